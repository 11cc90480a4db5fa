/**
 * The call limit (`maxSummaryCalls`) holds for a whole compaction, every span together, counted at
 * a loopback model server; every replaced message is still covered, and the coverage of the
 * compaction's summaries is numbered in the conversation's order, so their ranges never overlap.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatMessage, Checkpoint, ContextItem } from '../../src/compaction/types';
import { compact, estimateSummaryCalls } from '../../src/compaction/rewrite/compactor';
import { describeCoverage } from '../../src/compaction/summary/coverage';
import { text } from '../../src/demo/modelserver/replies';
import { indexSource, readHistory } from '../../src/recall';
import { items, quarterMeter, rig } from './fixtures';
import { describeCompaction } from '../../src/compaction/outcome-text';

const NOTES = '## Objective\nThe user asked for CSV export.\n## Work completed\n- The agent read the files.';

/** History of `turns` turns, then the latest request and `steps` steps of the current task; each tool result ~`size` characters. */
function session(turns: number, steps: number, size: number): ContextItem[] {
  const big = (tag: string) => `${tag} `.repeat(Math.ceil(size / (tag.length + 1)));
  const m: ChatMessage[] = [{ role: 'system', content: 'You are a coding agent.' }];
  const call = (id: string, path: string): ChatMessage => ({
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path }) } }],
  });
  for (let t = 1; t <= turns; t++) {
    m.push({ role: 'user', content: `Export part ${t} as CSV.` });
    m.push(call(`h${t}`, `src/hist${t}.ts`));
    m.push({ role: 'tool', tool_call_id: `h${t}`, content: big(`hist${t}`) });
    m.push({ role: 'assistant', content: `Exported part ${t}.` });
  }
  m.push({ role: 'user', content: 'Now add tests for the export.' });
  for (let s = 1; s <= steps; s++) {
    m.push(call(`d${s}`, `test/step${s}.ts`));
    m.push({ role: 'tool', tool_call_id: `d${s}`, content: big(`step${s}`) });
  }
  return items(m);
}

/** A deep target: the history alone does not reach it, so the current task's older steps are summarised too. */
function deepBudget(context: ContextItem[]) {
  const total = quarterMeter().measure(context).total;
  return { contextWindow: Math.ceil(total / 0.9), reservedOutput: 0, compactAt: 0.8, compactTo: 0.08 };
}

const summaries = (cps: Checkpoint[]) => cps.filter((c) => c.strategy === 'summary' || c.strategy === 'extractive');

/** A manual compaction of {@link session} to a deep target with at most `limit` model calls, counted at the server. */
async function compactAtLimit(limit: number) {
  const r = await rig(() => text(NOTES), { contextWindow: 2_600 });
  const context = session(4, 6, 3000);
  const meter = quarterMeter();
  const options = {
    budget: deepBudget(context),
    trigger: 'manual' as const,
    force: true,
    noCollapse: true,
    maxSummaryCalls: limit,
  };
  const estimate = estimateSummaryCalls({ items: context, meter, summarizer: r.summarizer, options });
  const result = await compact({ items: context, meter, summarizer: r.summarizer, options });
  await r.close();
  return { context, estimate, result, calls: r.server.requests.length };
}

test('the call limit holds for the whole compaction, not per span: two spans that need more calls than 12 make 12', async () => {
  const { estimate, result, calls } = await compactAtLimit(12);
  assert.ok(estimate);
  assert.equal(estimate.spans, 2);
  assert.ok(estimate.needed > 12, `the spans need ${estimate.needed} calls`);
  assert.equal(estimate.limit, 12);
  assert.equal(estimate.overLimit, estimate.needed - 12, 'the calls beyond the limit');
  assert.equal(result.status.kind, 'applied', describeCompaction(result.status));
  assert.equal(calls, 12, 'the server saw exactly the limit');
  const [older, newer] = summaries(result.checkpoints);
  assert.equal(
    (older.usage?.calls ?? 0) + (newer.usage?.calls ?? 0),
    calls,
    'the checkpoints count the calls the server saw',
  );
  // The newer span keeps the calls it needs; the oldest messages go without a model.
  assert.deepEqual(
    newer.coverage?.parts.map((p) => p.writer),
    ['model'],
  );
  assert.deepEqual(
    older.coverage?.parts.map((p) => [p.writer, p.reason]),
    [
      ['extractive', 'call-limit'],
      ['model', undefined],
    ],
  );
  assert.match(describeCoverage(older.coverage), /summarised without a model because of the 12-call limit$/);
});

test('when the newer span needs every call, the older one is written whole without a model, and says why', async () => {
  const { result, calls } = await compactAtLimit(4);
  assert.equal(result.status.kind, 'applied', describeCompaction(result.status));
  assert.equal(calls, 4);
  const [older, newer] = summaries(result.checkpoints);
  assert.equal(older.strategy, 'extractive', 'no model wrote it');
  assert.equal(older.usage?.calls, 0);
  assert.deepEqual(
    older.coverage?.parts.map((p) => [p.writer, p.reason]),
    [['extractive', 'call-limit']],
  );
  assert.equal(older.coverage?.messages, older.replacedIds.length, 'every replaced message is covered');
  assert.match(older.summary, /summarised without a model \(extracted notes\) because of the 4-call limit/);
  assert.equal(newer.usage?.calls, 4);
  assert.equal(newer.coverage?.parts.at(-1)?.writer, 'model', 'the newest messages are read by the model');
});

test("the summaries' coverage is numbered in the conversation: ranges never overlap, and recall cites the same positions", async () => {
  const { context, result } = await compactAtLimit(20);
  assert.equal(result.status.kind, 'applied', describeCompaction(result.status));
  const cps = summaries(result.checkpoints);
  assert.equal(cps.length, 2);
  const entries = context.map((i) => ({ id: i.id, message: i.message }));
  const recall = indexSource({ entries, checkpoints: cps.map((c) => ({ id: c.id, replacedIds: c.replacedIds })) });
  let after = 0;
  for (const cp of cps) {
    const coverage = cp.coverage!;
    const first = coverage.parts[0].first;
    const last = coverage.parts.at(-1)!.last;
    assert.equal(last - first + 1, cp.replacedIds.length, 'the parts tile the replaced messages');
    assert.ok(first > after, `${describeCoverage(coverage)} starts after the previous summary's ${after}`);
    after = last;
    // The positions recall reads this checkpoint's messages at.
    const read = readHistory(recall, { checkpoint: cp.id });
    assert.equal(read.messages[0].index, first);
    assert.equal(describeCoverage(coverage), `messages ${first}-${last}`);
  }
  assert.equal(describeCoverage(cps[0].coverage!), 'messages 2-17');
  assert.equal(describeCoverage(cps[1].coverage!), 'messages 19-28');
});

test('a later compaction numbers its summary in the same conversation: a summary of summaries starts where the first did', async () => {
  const first = await compactAtLimit(20);
  assert.equal(first.result.status.kind, 'applied', describeCompaction(first.result.status));
  const grown = [
    ...first.result.context,
    ...items([
      { role: 'assistant', content: 'Tests written.' },
      { role: 'user', content: `Now the docs. ${'words '.repeat(400)}` },
    ]).map((i, k) => ({ ...i, id: `late${k}`, covers: [`late${k}`] })),
  ];
  const r = await rig(() => text(NOTES), { contextWindow: 2_600 });
  try {
    const meter = quarterMeter();
    const again = await compact({
      items: grown,
      meter,
      summarizer: r.summarizer,
      options: { budget: deepBudget(grown), trigger: 'manual', force: true, noCollapse: true, all: true },
    });
    assert.equal(again.status.kind, 'applied', describeCompaction(again.status));
    const cp = summaries(again.checkpoints)[0];
    const coverage = cp.coverage!;
    assert.equal(coverage.parts[0].first, 2, 'after the system prompt, as the first summary did');
    assert.equal(coverage.parts.at(-1)!.last, 1 + cp.replacedIds.length);
  } finally {
    await r.close();
  }
});
