/**
 * A summary edited by hand in the preview is scored by the retention scorecard with the same inputs
 * as the proposed one: the replaced span, the inserted text and the items after the span (a failure
 * of the span that a newer step kept after it resolved is resolved for both).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, compactExtractive, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { withEditedSummaries } from '../../src/service/compaction/preview';
import type { PreparedCompaction } from '../../src/compaction/rewrite/commit';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

/** One request: the test fails, the agent reads and edits, and the newest step runs the test again, passing. */
const work: Step[] = [
  { user: 'make the parser tests pass' },
  {
    tool: 'bash',
    command: 'npm test -- parser',
    output: 'FAIL test/parser.test.ts\n  expected 2 tokens, got 3',
    ok: false,
  },
  { tool: 'read', path: 'src/parser.ts', output: filler(300) },
  { say: `The split is too strict. ${filler(1200)}` },
  { tool: 'edit', path: 'src/parser.ts', old: 'split(/ /)', new: 'split(/\\s+/)' },
  { tool: 'read', path: 'src/lexer.ts', output: filler(300) },
  { tool: 'bash', command: 'npm test -- parser', output: 'PASS test/parser.test.ts', exit: 0 },
];

for (const format of ['claude-code', 'cline', 'openhands'] as const) {
  test(`${format}: an edited summary's scorecard reads the steps after its span, as the proposed one's does`, async () => {
    const { write, file } = WRITERS[format];
    const items = itemsFromEntries(importTranscriptTextSync(write(work), file).entries);
    const r = await compactExtractive(items);
    const cp = r.checkpoints.find((c) => c.strategy === 'extractive');
    assert.ok(cp?.retention, 'a summary with a scorecard was written');
    const proposed = cp.retention;
    assert.ok(proposed.errors.resolved >= 1, 'the failed run is resolved by the newest step, after the span');
    const prepared: PreparedCompaction = {
      checkpoints: r.checkpoints,
      tokensBefore: r.tokensBefore,
      tokensAfter: r.tokensAfter,
      startedAt: 0,
    };
    const edited = withEditedSummaries(prepared, [`${cp.summary}\n\nChecked by hand.`], items);
    const hand = edited.checkpoints.find((c) => c.id === cp.id);
    assert.equal(hand?.editedByHand, true);
    assert.ok(hand.retention, 'the edited summary is scored');
    assert.deepEqual(hand.retention.errors, proposed.errors, 'the same failures open and resolved');
    assert.deepEqual(hand.retention.missing.openErrors, proposed.missing.openErrors);
  });
}
