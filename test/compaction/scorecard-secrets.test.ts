/**
 * The retention scorecard and the summary's lists never show a credential the summary masks: a
 * connection-string password in a failed command's name, an API key's value quoted bare in a later
 * command (an identifier of the tool-call arguments); long command names are cut at a word, marked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { retentionScorecard, scorecardDetails } from '../../src/compaction/retention/scorecard';
import type { ContextItem } from '../../src/compaction/types';
import { compactExtractive, WRITERS, type Step } from '../support/recordings';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { summaryItem } from '../support/conversation';

const PASSWORD = 'Pa55-w0rd-live';
const KEY = '5f3c9a7e-1b2d-4e6f-8a9b-0c1d2e3f4a5b';

const STEPS: Step[] = [
  { user: 'Check that the app reaches its database and the price API.' },
  {
    tool: 'bash',
    // Long enough that its name is cut inside the connection string.
    command: `node -e "const { Pool } = require('pg'); const pool = new Pool({ connectionString: 'postgresql://app_user:${PASSWORD}@127.0.0.1:5432/dev_entanglement_db' }); pool.query('select 1')"`,
    output: 'Error: connect ECONNREFUSED 127.0.0.1:5432',
    ok: false,
  },
  {
    tool: 'bash',
    command: `curl -s "https://devnet.example-rpc.com/?api-key=${KEY}" -d '{"method":"getHealth"}'`,
    output: '{"result":"ok"}',
  },
  {
    tool: 'bash',
    command: `grep -rn ${KEY} config/ scripts/`,
    output: 'scripts/demo.js:3: const rpc = process.env.RPC',
  },
  { tool: 'read', path: '/w/scripts/demo.js', output: 'const rpc = process.env.RPC;\n'.repeat(20) },
  { say: `The database refuses connections; the API answers. ${'It was checked twice. '.repeat(30)}` },
  // A newer turn, kept after the summary.
  { user: 'Now write down what you found.' },
  { say: 'Writing it down.' },
];

const FORMATS = ['claude-code', 'cline', 'codex'] as const;

function itemsOf(format: (typeof FORMATS)[number]): ContextItem[] {
  const w = WRITERS[format];
  return itemsFromEntries(importTranscriptTextSync(w.write(STEPS), w.file).entries);
}

for (const format of FORMATS) {
  test(`${format}: the scorecard's names are masked like the summary and cut at a word`, () => {
    const replaced = itemsOf(format);
    const card = retentionScorecard({ replaced, inserted: [summaryItem('Checked the services.')] });
    assert.ok(card);
    const shown = JSON.stringify(card) + scorecardDetails(card).join('\n');
    assert.ok(!shown.includes(PASSWORD), shown);
    assert.ok(!shown.includes(KEY), shown);
    assert.ok(!shown.includes(PASSWORD.slice(0, 6)), 'no cut piece of the password either');
    // Open, or left when the turn ended (a request came after it).
    const failed = [...card.missing.openErrors, ...(card.missing.earlierTurnErrors ?? [])];
    assert.ok(failed.length > 0, 'the failed command is listed as left out');
    for (const name of failed) {
      // A cut name ends with a whole word and the mark; an uncut one is a whole command.
      if (name.endsWith('…')) assert.match(name, /(?:^|\s)\S+…$/);
      assert.doesNotMatch(name, /dev_entanglem(?!ent_db)/, name);
    }
  });

  test(`${format}: a secret value the summary masks is in none of its lists`, async () => {
    const r = await compactExtractive(itemsOf(format));
    const summary = r.context.find((i) => i.kind === 'summary');
    assert.ok(summary, 'a summary was written');
    const text = textWithPlaceholders(summary.message.content);
    assert.ok(!text.includes(KEY), text);
    assert.ok(!text.includes(PASSWORD), text);
    // The checkpoints' scorecards (their replaced messages keep the originals, as the recording does).
    const cards = JSON.stringify(r.checkpoints.map((c) => [c.retention, c.summary]));
    assert.ok(r.checkpoints.some((c) => c.retention));
    assert.ok(!cards.includes(KEY) && !cards.includes(PASSWORD), cards);
  });
}
