/**
 * A compaction applied with a summary the user edited by hand says so: its text is theirs, not
 * the summarizer's alone ("compacted … by the extractive summarizer, the summary then edited by
 * hand"); applied as proposed, it names the summarizer only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, compactExtractive, type Step } from '../support/recordings';
import { quarterCounter } from '../support/generate';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { withEditedSummaries } from '../../src/service/compaction/preview';
import { commitPrepared, type PreparedCompaction } from '../../src/compaction/rewrite/commit';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { describeOutcome } from '../../src/service/compaction/outcome';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);
const work: Step[] = [
  { user: 'make the parser tests pass' },
  { tool: 'read', path: 'src/parser.ts', output: filler(300) },
  { say: `The split is too strict. ${filler(1200)}` },
  { tool: 'edit', path: 'src/parser.ts', old: 'split(/ /)', new: 'split(/\\s+/)' },
  { tool: 'bash', command: 'npm test -- parser', output: 'PASS test/parser.test.ts', exit: 0 },
];

for (const format of ['claude-code', 'cline'] as const) {
  test(`${format}: the notice of a compaction applied with a hand-edited summary says it was edited by hand`, async () => {
    const { write, file } = WRITERS[format];
    const items = itemsFromEntries(importTranscriptTextSync(write(work), file).entries);
    const r = await compactExtractive(items);
    const cp = r.checkpoints.find((c) => c.strategy === 'extractive');
    assert.ok(cp, 'a summary was written');
    const prepared = (): PreparedCompaction => ({
      checkpoints: r.checkpoints,
      tokensBefore: r.tokensBefore,
      tokensAfter: r.tokensAfter,
      startedAt: 0,
    });
    const meter = new TokenMeter({ counter: quarterCounter });
    const edited = commitPrepared(
      items,
      withEditedSummaries(prepared(), ['The parser splits on any white space now.'], items),
      meter,
    );
    assert.equal(edited.status.kind, 'applied');
    assert.match(describeOutcome(edited.status), /by the extractive summarizer, the summary then edited by hand$/);
    const asProposed = commitPrepared(items, prepared(), meter);
    assert.match(describeOutcome(asProposed.status), /by the extractive summarizer$/);
  });
}
