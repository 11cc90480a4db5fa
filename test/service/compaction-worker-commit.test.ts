/**
 * Committing a compaction prepared in the worker: the worker sends what the commit and the save need
 * of the replaced items (their tokens, the ids they cover, the text of their stored form), so the
 * caller's thread does not read the span again; the committed checkpoint, its tokens and its saved
 * text are those of the same compaction run inline.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { itemsFromEntries } from '../../src/compaction/context';
import { applyPrepared, commitPrepared } from '../../src/compaction/rewrite/commit';
import type { CompactionResult } from '../../src/compaction/outcome';
import type { ContextItem } from '../../src/compaction/types';
import { prepareOffThread } from '../../src/service/compaction/worker/runner';
import { storedCheckpointText, toStored } from '../../src/service/session/stored-text';
import { budget, meter, normalized as positional, session, summarizer, tools } from './worker-fixtures';

/** {@link positional}, with each checkpoint's duration (a clock reading) left out. */
const normalized = (value: unknown) => positional(value).replace(/"durationMs":\d+/g, '"durationMs":0');

/**
 * Prepares on `mode` and commits on the caller's thread, over fresh copies of the same session;
 * with `grown`, a message is appended to the context while the compaction runs.
 */
async function committed(
  mode: 'inline' | 'worker',
  seed: number,
  turns: number,
  grown = false,
): Promise<CompactionResult> {
  const items: ContextItem[] = itemsFromEntries(session(seed, turns));
  const prepared = await prepareOffThread(
    { items, tools, meter, summarizer, options: { budget: budget(16_000), trigger: 'auto' } },
    { mode },
  );
  assert.ok(!('status' in prepared), `${mode}: a compaction was prepared`);
  if (grown)
    items.push(
      ...itemsFromEntries([{ id: 'late', message: { role: 'user', content: 'One more thing: keep the logs.' } }]),
    );
  // Applied afresh to the context as it stands now, without what preparing kept: the reference.
  const afresh = applyPrepared(items, prepared, meter, tools);
  const result = commitPrepared(items, prepared, meter, tools);
  assert.ok(!('status' in afresh));
  assert.equal(result.tokensBefore, afresh.tokensBefore, `${mode}: tokens before as applied afresh`);
  assert.equal(result.tokensAfter, afresh.tokensAfter, `${mode}: tokens after as applied afresh`);
  assert.deepEqual(result.context, afresh.context, `${mode}: the context as applied afresh`);
  assert.deepEqual(
    result.checkpoints.map((c) => [c.tokensBefore, c.tokensAfter, c.replacedIds]),
    afresh.checkpoints.map((c) => [c.tokensBefore, c.tokensAfter, c.replacedIds]),
  );
  return result;
}

test('a compaction prepared in the worker commits to the checkpoint, tokens and saved text of the same compaction inline', async () => {
  for (const [seed, turns, grown] of [
    [1, 60, false],
    [4, 150, false],
    [5, 80, true],
  ] as const) {
    const inline = await committed('inline', seed, turns, grown);
    const inWorker = await committed('worker', seed, turns, grown);
    if (grown)
      assert.equal(inWorker.context.at(-1)?.id, 'late', 'the message sent meanwhile stays after the compaction');
    assert.equal(inWorker.status.kind, 'applied');
    assert.equal(inWorker.tokensBefore, inline.tokensBefore);
    assert.equal(inWorker.tokensAfter, inline.tokensAfter);
    assert.equal(normalized(inWorker.checkpoints), normalized(inline.checkpoints));
    assert.equal(normalized(inWorker.context), normalized(inline.context));
    for (const [k, cp] of inWorker.checkpoints.entries()) {
      assert.ok(cp.replacedIds.length > 0, `seed ${seed}: checkpoint ${k} replaced messages`);
      assert.deepEqual(cp.replacedIds, inline.checkpoints[k].replacedIds);
      // The saved text: the worker's text of the replaced items, as the plain stored form reads.
      const text = storedCheckpointText(cp);
      assert.deepEqual(JSON.parse(text), {
        ...JSON.parse(JSON.stringify(cp)),
        replaced: cp.replaced.map(toStored),
        inserted: cp.inserted.map(toStored),
      });
      assert.equal(normalized(JSON.parse(text)), normalized(JSON.parse(storedCheckpointText(inline.checkpoints[k]))));
    }
  }
});
