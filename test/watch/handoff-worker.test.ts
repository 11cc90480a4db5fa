/**
 * "Compact into a handoff" of a large context runs in the compaction worker: the same Markdown as
 * inline, progress reported, a warm worker reused by the next handoff, and cancel giving no handoff.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { itemsFromEntries } from '../../src/compaction/context';
import { compactionWorkerFile, WORKER_MIN_TOKENS } from '../../src/service/compaction/worker/runner';
import { buildHandoff } from '../../src/watch/handoff';
import { meter, session, tools } from '../service/worker-fixtures';
import { CompactionWorker } from '../../src/service/compaction/worker/session-worker';

test('handoff: a large context compacts in the worker, with progress, into the Markdown an inline run gives; the next handoff reuses the warm worker', async (t) => {
  const file = compactionWorkerFile();
  assert.ok(file, 'the worker script is built');
  const worker = new CompactionWorker(file);
  t.after(() => worker.dispose());
  const items = itemsFromEntries(session(21, 150));
  assert.ok(meter.measure(items, tools).total >= WORKER_MIN_TOKENS, 'large enough for the worker');
  const input = { items, tools, meter, title: 'Claude Code session big.jsonl', targetTokens: 8_000 };
  const inline = await buildHandoff(input, undefined, { mode: 'inline' });
  const routes: string[] = [];
  const progress: number[] = [];
  const onThread = await buildHandoff(input, undefined, {
    worker,
    onRoute: (route) => routes.push(route),
    onProgress: (p) => progress.push(p.done),
  });
  assert.deepEqual(routes, ['worker'], 'the default route at this size is the worker');
  assert.equal(onThread.markdown, inline.markdown);
  assert.deepEqual([onThread.tokensBefore, onThread.tokensAfter], [inline.tokensBefore, inline.tokensAfter]);
  assert.ok(onThread.tokensAfter < onThread.tokensBefore / 3);
  assert.ok(progress.length >= 2 && progress.at(-1)! > 0, `progress reported (${progress.join(', ')})`);
  // The same session a little later: one more turn; the warm thread is sent only what is new.
  const later = itemsFromEntries(session(21, 151));
  const again = await buildHandoff({ ...input, items: [...items, ...later.slice(items.length)] }, undefined, {
    worker,
  });
  assert.equal(
    again.markdown,
    (await buildHandoff({ ...input, items: [...items, ...later.slice(items.length)] }, undefined, { mode: 'inline' }))
      .markdown,
  );
  assert.equal(worker.stats.threads, 1);
  assert.equal(worker.stats.itemsSent, items.length + (later.length - items.length));
});

test('handoff: cancelling a handoff in the worker rejects with the reason and gives no handoff', async (t) => {
  const file = compactionWorkerFile();
  assert.ok(file);
  const worker = new CompactionWorker(file);
  t.after(() => worker.dispose());
  const controller = new AbortController();
  const run = buildHandoff(
    { items: itemsFromEntries(session(22, 150)), tools, meter, title: 'session s.jsonl' },
    controller.signal,
    {
      worker,
      onProgress: () => controller.abort(new Error('handoff cancelled')),
    },
  );
  await assert.rejects(run, /handoff cancelled/);
});
