/**
 * Command output recorded with terminal colour codes reads in recall as the terminal showed it:
 * no escape sequence in a read or a search hit, and a read's character cap never cuts one in two.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { RECALL_LIMITS, readHistory, searchHistory } from '../../src/recall';

const ESC = '\u001b';
const coloured = Array.from(
  { length: 60 },
  (_, i) => `${ESC}[1m${ESC}[31mError:${ESC}[0m step ${i} of the plan failed ${ESC}]0;title${ESC}\\`,
).join('\n');
const steps: Step[] = [
  { user: 'apply the terraform plan' },
  { tool: 'bash', command: 'terraform apply', output: coloured, ok: false },
  { done: 'The apply failed.' },
];

for (const format of ['openhands', 'claude-code', 'cline'] as const) {
  test(`${format}: recall shows command output without terminal escape sequences`, () => {
    const { write, file } = WRITERS[format];
    const source = { entries: importTranscriptTextSync(write(steps), file).entries, checkpoints: [] };
    const all = readHistory(source, {});
    const shown = all.messages.map((m) => m.text).join('\n');
    assert.match(shown, /Error: step 59 of the plan failed/);
    assert.ok(!shown.includes(ESC), 'no escape character in a read');
    // Every cut of a small cap: none holds part of a sequence (the `[1m` left after an ESC cut off).
    for (let cap = 50; cap < 400; cap += 7) {
      const r = readHistory(source, { limits: { ...RECALL_LIMITS, readChars: cap } });
      for (const m of r.messages) assert.doesNotMatch(m.text, /\u001b|\[\d+m/, `cap ${cap}`);
    }
    const hits = searchHistory(source, { query: 'step 42 of the plan' });
    assert.ok(hits.hits.length > 0, 'found');
    for (const h of hits.hits) assert.ok(!JSON.stringify(h).includes(ESC), 'no escape character in a hit');
  });
}
