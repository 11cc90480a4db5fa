/**
 * A failed edit's reason in the summary is the tool's message saying it failed, never a line of the
 * file's text the message quotes (an edit's old text holding `raise ValueError(` is code, not the
 * failure). Recorded in SWE-agent's, Claude Code's and OpenHands' formats.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { toolFailureLine } from '../../src/compaction/summary/ledger/actions';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);
const old = 'def check(x):\n    if x < 0:\n        raise ValueError(\n            "negative"\n        )\n    return x';
const message = `No replacement was performed, old_str \`${old}\` did not appear verbatim in /w/src/check.py.`;

test('toolFailureLine: the line saying the tool failed, not a quoted line of code', () => {
  assert.match(toolFailureLine(message), /^No replacement was performed/);
  assert.equal(
    toolFailureLine('Error: String to replace not found in file.'),
    'Error: String to replace not found in file.',
  );
});

for (const format of ['swe-agent', 'claude-code', 'openhands'] as const) {
  test(`${format}: a failed edit quoting code is reported with the tool's failure message`, () => {
    const { write, file } = WRITERS[format];
    const steps: Step[] = [
      { user: 'make check() accept zero and reject negatives with a clear message' },
      { tool: 'read', path: '/w/src/check.py', output: `${old}\n${filler(10)}` },
      {
        tool: 'edit',
        path: '/w/src/check.py',
        old: `${old}\n# x`,
        new: 'def check(x):\n    return x',
        result: message,
        ok: false,
      },
      { say: `The old text did not match; retrying. ${filler(10)}` },
      { tool: 'edit', path: '/w/src/check.py', old: '    return x', new: '    return abs(x)' },
      { tool: 'bash', command: 'python -m pytest -q', output: '3 passed' },
    ];
    const entries = importTranscriptTextSync(write(steps), file).entries;
    const notes = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsFromEntries(entries), 6000);
    const line = notes.split('\n').find((l) => /check\.py failed/.test(l));
    assert.ok(line, notes);
    assert.match(line, /No replacement was performed/, line);
    assert.doesNotMatch(line, /raise ValueError/, line);
  });
}
