/** Summaries prepared ahead of the trigger: used without waiting, discarded when stale. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { text, toolCalls } from '../../src/demo/modelserver/replies';
import { filler, serviceFixture, StubSummarizer } from './fixtures';

/** Each step reads a small file with a long explanation (~1.4k tokens a step), then answers. */
function steps(count: number) {
  return (_b: unknown, n: number) =>
    n <= count
      ? toolCalls([{ id: `c${n}`, name: 'read_file', arguments: '{"path":"a.txt"}' }], filler(100, `step${n}`))
      : text('done');
}

test('a summary prepared ahead applies at the trigger without a summarizer call there', async (t) => {
  const summarizer = new StubSummarizer('PREPARED SUMMARY', 50);
  const fx = await serviceFixture(steps(12), {
    files: { 'a.txt': 'a' },
    summarizer,
    window: 16_000,
    reserved: 1_000,
    prepareAheadMargin: 0.25,
    compactTo: 0.4,
  });
  t.after(fx.cleanup);
  // Summarizer calls made while the automatic compaction runs (there should be none: it was prepared).
  let callsDuringCompaction = 0;
  let compacting = false;
  let before = 0;
  fx.service.onDidChangeState((s) => {
    if (s.state === 'compacting' && !compacting) {
      compacting = true;
      before = summarizer.requests.length;
    } else if (s.state !== 'compacting' && compacting) {
      compacting = false;
      callsDuringCompaction += summarizer.requests.length - before;
    }
  });
  const outcome = await fx.service.runTask('work through the steps');
  await fx.service.whenIdle();
  assert.equal(outcome.status, 'done');
  const stats = fx.service.getStats().compaction;
  assert.ok(stats.automatic >= 1, 'compacted');
  assert.ok(stats.preparedUsed >= 1, `a prepared summary was used (${JSON.stringify(stats)})`);
  assert.equal(callsDuringCompaction, 0, 'no summarizer call at the trigger');
  const prepared = fx.service.getCheckpoints().find((c) => c.summary.startsWith('PREPARED SUMMARY'));
  assert.ok(prepared, 'the checkpoint holds the prepared summary');
});

test('a prepared summary is discarded when the span changes before the trigger', async (t) => {
  const summarizer = new StubSummarizer('PREPARED SUMMARY', 0);
  let pinTarget: string | undefined;
  const fx = await serviceFixture(steps(12), {
    files: { 'a.txt': 'a' },
    summarizer,
    window: 16_000,
    reserved: 1_000,
    prepareAheadMargin: 0.25,
    compactTo: 0.4,
  });
  t.after(fx.cleanup);
  // Pin an old message as soon as the first preparation finished (between two steps).
  let pinned: Promise<void> = Promise.resolve();
  fx.service.onDidFinishToolCall(() => {
    const stats = fx.service.getStats().compaction;
    if (!pinTarget && stats.summarizerRuns >= 1) {
      pinTarget = fx.service.getTranscript().entries.find((e) => e.message.role === 'assistant')!.id;
      const target = pinTarget;
      pinned = fx.service.whenIdle().then(() => fx.service.pin(target));
    }
  });
  const outcome = await fx.service.runTask('work through the steps');
  await pinned;
  assert.equal(outcome.status, 'done');
  const stats = fx.service.getStats().compaction;
  assert.ok(pinTarget, 'pinned during the run');
  assert.ok(stats.preparedDiscarded >= 1, `stale preparation discarded (${JSON.stringify(stats)})`);
  for (const cp of fx.service.getCheckpoints())
    assert.ok(!cp.replacedIds.includes(pinTarget), 'the pinned message was not summarized');
});
