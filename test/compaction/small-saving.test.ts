/**
 * A compaction that cannot get the context under its threshold (here the system prompt alone is over
 * the budget) writes no checkpoint that frees less than `minimumSaving` of the budget: the newer
 * steps stay verbatim, and the outcome says which spans were left and which message is over the
 * budget by itself.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, compactExtractive, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { describeCompaction } from '../../src/compaction/outcome-text';
import { minimumSaving } from '../../src/compaction/rewrite/compactor';
import { thresholds } from '../../src/compaction/plan/budget';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);
const WINDOW = 2000;

const work: Step[] = [
  { user: 'explain the build setup' },
  { say: `The build uses esbuild. ${filler(300)}` },
  { user: 'now list the test folders' },
  { tool: 'bash', command: 'ls test/unit', output: `unit tests: ${filler(45)}`, exit: 0 },
  { tool: 'bash', command: 'ls test/e2e', output: 'e2e tests: login.spec.ts', exit: 0 },
];

/** The formats whose recordings hold a system prompt, with the prompt the writer puts there. */
const SYSTEM = { 'openai-chat': 'You are a coding agent.', 'swe-agent': 'You are a helpful assistant.' } as const;

for (const [format, prompt] of Object.entries(SYSTEM) as Array<[keyof typeof SYSTEM, string]>) {
  test(`${format}: over the budget with the system prompt alone, a span that frees little is left verbatim and the outcome says why`, async () => {
    const { write, file } = WRITERS[format];
    const text = write(work).replace(prompt, `You are a coding agent. ${filler(450)}`);
    const items = itemsFromEntries(importTranscriptTextSync(text, file).entries);
    const r = await compactExtractive(items, WINDOW);
    assert.equal(r.status.kind, 'applied', describeCompaction(r.status));
    if (r.status.kind !== 'applied') return;
    const summaries = r.checkpoints.filter((c) => c.strategy === 'extractive');
    assert.equal(summaries.length, 1, 'only the older turn, which frees much, is summarised');
    const context = r.context.map((i) => textWithPlaceholders(i.message.content)).join('\n');
    assert.ok(context.includes('unit tests: lorem'), 'the current task’s older step is kept verbatim');
    const small = r.status.smallSpans;
    assert.ok(small, 'the outcome names the span left as it was');
    const th = thresholds({ contextWindow: WINDOW, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 });
    assert.equal(small.minTokens, minimumSaving(th));
    assert.ok(small.tokens < small.minTokens);
    const over = r.status.overBudget?.holders.oversized;
    assert.deepEqual(
      over?.map((o) => [o.position, o.part]),
      [[1, 'system prompt']],
      'the system prompt is named as over the budget by itself',
    );
    const said = describeCompaction(r.status);
    assert.match(said, /over the budget of 2,000 by itself: message 1 \(system prompt, [\d,]+ tokens\)/);
    assert.match(
      said,
      /left as (it was|they were): rewriting (it|them) would free at most [\d,]+ tokens, under the [\d,]+/,
    );
  });
}

test('minimumSaving is half the room a compaction buys, at least a twentieth of the budget', () => {
  assert.equal(minimumSaving({ inputBudget: 8000, triggerTokens: 6400, targetTokens: 4000 }), 1200);
  assert.equal(minimumSaving({ inputBudget: 8000, triggerTokens: 6400, targetTokens: 6400 }), 400);
});
