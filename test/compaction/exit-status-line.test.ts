/**
 * A line a harness adds after a command's output only to state its exit status (OpenHands' "[The
 * command completed with exit code 1.]", "Process exited with code 1") tells no error: a search that
 * found nothing and exited 1 is a "no match", not a failure to fix. Recorded in OpenHands' and Codex's
 * formats.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { probeAnswer } from '../../src/compaction/retention/outcome';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

test('probeAnswer: a line stating only the exit status is no error line of the search', () => {
  const grep = 'grep -A 5 -B 5 "toolu_01Sue" docs/ROOT_CAUSE_ANALYSIS.md';
  for (const line of [
    '[The command completed with exit code 1.]',
    'Process exited with code 1',
    'Command failed with exit code 1',
    'Exit code: 1',
  ])
    assert.equal(probeAnswer(grep, `${grep}\n${line}`, 1, false), 'no match', line);
  // A search that could not run still says so.
  assert.equal(
    probeAnswer(grep, 'grep: Unmatched ( or \\(\n[The command completed with exit code 2.]', 2, false),
    undefined,
  );
});

for (const format of ['openhands', 'codex'] as const) {
  test(`${format}: a search that found nothing (exit 1) is reported as no match, not as a failure`, () => {
    const { write, file } = WRITERS[format];
    const steps: Step[] = [
      { user: 'find where the tool call id is discussed in the analysis' },
      {
        tool: 'bash',
        command: 'grep -A 5 -B 5 "toolu_01Sue" docs/ROOT_CAUSE_ANALYSIS.md',
        output: '',
        ok: false,
        exit: 1,
      },
      { say: `The analysis does not mention it. ${filler(20)}` },
      { tool: 'read', path: 'docs/ROOT_CAUSE_ANALYSIS.md', output: `# Analysis\n${filler(10)}` },
    ];
    const entries = importTranscriptTextSync(write(steps), file).entries;
    const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsFromEntries(entries), 6000);
    assert.match(summary, /`grep -A 5 -B 5 "toolu_01Sue" docs\/ROOT_CAUSE_ANALYSIS\.md` → no match/, summary);
    assert.doesNotMatch(summary, /failed|unresolved|^- open:/m, summary);
  });
}
