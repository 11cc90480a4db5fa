/**
 * Committing a compaction prepared in the worker: the worker sends what the commit and the save need
 * of the replaced items (their tokens, the ids they cover, the text of their stored form), so the
 * caller's thread does not read the span again; the committed checkpoint, its tokens and its saved
 * text are those of the same compaction run inline.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { itemsFromEntries } from '../../src/compaction/context';
import { commitPrepared } from '../../src/compaction/rewrite/commit';
import type { CompactionResult } from '../../src/compaction/outcome';
import type { ContextItem } from '../../src/compaction/types';
import { prepareOffThread } from '../../src/service/compaction/worker/runner';
import { storedCheckpointText, toStored } from '../../src/service/session/stored-text';
import { budget, meter, normalized as positional, session, summarizer, tools } from './worker-fixtures';

/** {@link positional}, with each checkpoint's duration (a clock reading) left out. */
const normalized = (value: unknown) => positional(value).replace(/"durationMs":\d+/g, '"durationMs":0');

/** Prepares on `mode` and commits on the caller's thread, over fresh copies of the same session. */
async function committed(mode: 'inline' | 'worker', seed: number, turns: number): Promise<CompactionResult> {
  const items: ContextItem[] = itemsFromEntries(session(seed, turns));
  const prepared = await prepareOffThread(
    { items, tools, meter, summarizer, options: { budget: budget(16_000), trigger: 'auto' } },
    { mode },
  );
  assert.ok(!('status' in prepared), `${mode}: a compaction was prepared`);
  return commitPrepared(items, prepared, meter, tools);
}

test('a compaction prepared in the worker commits to the checkpoint, tokens and saved text of the same compaction inline', async () => {
  for (const [seed, turns] of [
    [1, 60],
    [4, 150],
  ]) {
    const inline = await committed('inline', seed, turns);
    const inWorker = await committed('worker', seed, turns);
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
