/**
 * No credential reaches any section of a summary or of its scorecard, whatever shape it was written
 * in (`password: '…'` in code, `--password=…` on a command line, `API_KEY=…` in an `.env` file's
 * output, `Authorization: Bearer …` in the agent's own words) and wherever it was (a tool call's
 * arguments, a tool's output, the agent's text): not whole, and not as a piece a list cut out of it
 * (`DevPass2024` of `'DevPass2024!'`, a name without its punctuation).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { compact } from '../../src/compaction/rewrite/compactor';
import { quarterCounter } from '../support/generate';
import { sectionOf, WRITERS, type Step } from '../support/recordings';
import { maskSecrets } from '../../src/compaction/secrets';

const CODE_PASSWORD = 'DevPasswordXYZW!';
const FLAG_PASSWORD = 'Fl4gSecret#2024';
const API_KEY = 'k3yValue_9a8b7c6d5e';
const BEARER = 'bEaRer0token1value2abc3';

/** The pieces of a value a list may cut out of it: its runs of letters, digits and `_` of 8+ characters. */
function piecesOf(value: string): string[] {
  return value.split(/[^A-Za-z0-9_]+/).filter((p) => p.length >= 8);
}

const STEPS: Step[] = [
  { user: 'Connect the app to the dev database and the pricing API, then check it works.' },
  {
    tool: 'bash',
    command: `node -e "const { Pool } = require('pg'); const pool = new Pool({ host: '127.0.0.1', user: 'app_user', password: '${CODE_PASSWORD}' }); pool.query('SELECT current_database()').then(r => console.log(r.rows))"`,
    output: "[ { current_database: 'dev_db' } ]",
  },
  {
    tool: 'bash',
    command: `gcloud sql users set-password app_user --instance=dev-db --password=${FLAG_PASSWORD}`,
    output: 'Updating Cloud SQL user...done.',
  },
  { tool: 'bash', command: 'cat .env.local', output: `DATABASE_HOST=127.0.0.1\nPRICING_API_KEY=${API_KEY}\nPORT=3000` },
  {
    say: `The API takes the header Authorization: Bearer ${BEARER} and the database user's password is set. ${'Both were checked. '.repeat(20)}`,
  },
  {
    tool: 'write',
    path: '/w/src/db/pool.ts',
    content: `export const pool = new Pool({ host: '127.0.0.1', user: 'app_user', password: '${CODE_PASSWORD}' });\nexport const pricingKey = '${API_KEY}';\n`,
  },
  {
    tool: 'read',
    path: '/w/src/db/pool.ts',
    output: `const pool = new Pool({ password: '${CODE_PASSWORD}' });\n`.repeat(6),
  },
  { tool: 'bash', command: 'npm test', output: 'PASS src/db/pool.test.ts\nTests: 3 passed' },
  // Later work, so that the compaction has to summarise all of the above to reach its target.
  { say: 'All checks pass.' },
  { user: 'Document the settings in the README.' },
  { say: `The settings are documented. ${'Each one has a line of its own in the README. '.repeat(100)}` },
  { user: 'Now write down what you did.' },
  { say: 'Writing it down.' },
];

const meter = new TokenMeter({ counter: quarterCounter });

const SECRETS = [CODE_PASSWORD, FLAG_PASSWORD, API_KEY, BEARER];

for (const format of ['claude-code', 'cline', 'codex', 'openhands'] as const) {
  test(`${format}: no secret value, nor a piece of one, is in any section of the summary or scorecard`, async () => {
    const w = WRITERS[format];
    const items = itemsFromEntries(importTranscriptTextSync(w.write(STEPS), w.file).entries);
    // A window the span overflows, with room for every section of the notes (their lists included).
    const r = await compact({
      items,
      meter,
      summarizer: new ExtractiveSummarizer((t) => meter.countText(t)),
      options: {
        budget: {
          contextWindow: Math.ceil(1.25 * items.reduce((n, i) => n + meter.countMessage(i.message), 0)),
          reservedOutput: 0,
          compactAt: 0.8,
          compactTo: 0.5,
        },
        trigger: 'manual',
        force: true,
        summaryBudget: 0.9,
      },
    });
    const summary = r.context.find((i) => i.kind === 'summary');
    assert.ok(summary, 'a summary was written');
    const shown = `${textWithPlaceholders(summary.message.content)}\n${JSON.stringify(r.checkpoints.map((c) => [c.retention, c.summary]))}`;
    // The summary does speak of the work: the secrets are left out, not the whole span.
    assert.match(shown, /pool\.ts/);
    for (const secret of SECRETS) {
      assert.ok(!shown.includes(secret), `${secret} in:\n${shown}`);
      for (const piece of piecesOf(secret)) assert.ok(!shown.includes(piece), `${piece} (of ${secret}) in:\n${shown}`);
    }
    // A masked name is left out of the lists, not listed as a mask.
    const text = textWithPlaceholders(summary.message.content);
    for (const heading of ['Code names', 'Identifiers']) assert.doesNotMatch(sectionOf(text, heading), /\[masked/);
  });
}

test('an unquoted value is masked to the end of its word, a `#` inside it included, not past a backtick', () => {
  assert.equal(maskSecrets('gcloud --password=Fl4g#2024 --quiet'), 'gcloud --password=[masked secret] --quiet');
  assert.equal(maskSecrets('ran `login --token=abc123def456`.'), 'ran `login --token=[masked secret]`.');
  // A comment after a blank is no part of the value.
  assert.equal(maskSecrets('API_KEY=abc123def456 # the dev key'), 'API_KEY=[masked secret] # the dev key');
});
