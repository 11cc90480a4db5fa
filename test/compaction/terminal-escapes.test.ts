/**
 * A failure printed in colour (terraform, jest and cargo colour their output when they think they
 * write to a terminal) is quoted in the summary as the person read it: no escape sequences in the
 * error line, in the open failure nor in the scorecard's signature.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { errorSignatures } from '../../src/compaction/retention/errors';
import { withoutAnsi } from '../../src/compaction/text';

const ESC = '\u001b';
const COLOURED = `${ESC}[31m│${ESC}[0m ${ESC}[0m${ESC}[1m${ESC}[31mError: ${ESC}[0m${ESC}[0m${ESC}[1mFailed to read variables file${ESC}[0m\n${ESC}]0;terraform${ESC}\\\nexit status 1`;

test('withoutAnsi removes colour, cursor and title sequences and keeps the text', () => {
  assert.equal(withoutAnsi(COLOURED), '│ Error: Failed to read variables file\n\nexit status 1');
  const plain = 'no escapes here';
  assert.equal(withoutAnsi(plain), plain);
});

for (const format of ['claude-code', 'codex', 'cline'] as const) {
  test(`${format}: a coloured failure is quoted without escape sequences`, () => {
    const { write, file } = WRITERS[format];
    const steps: Step[] = [
      { user: 'run the terraform plan for the staging variables' },
      { tool: 'bash', command: 'terraform plan -var-file=staging.tfvars', output: COLOURED, ok: false },
    ];
    const entries = importTranscriptTextSync(write(steps), file).entries;
    const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsFromEntries(entries), 6000);
    assert.match(summary, /Failed to read variables file/, summary);
    assert.ok(!summary.includes(ESC), summary);
    const errors = errorSignatures(entries, 0, entries.length);
    assert.ok(errors.length > 0, 'the failure is a signature');
    for (const e of errors) assert.ok(!e.line.includes(ESC), e.line);
  });
}
