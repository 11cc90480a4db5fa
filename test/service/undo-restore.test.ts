/**
 * Undoing a restore through the service: the compacted context comes back exactly (with messages
 * appended since), the checkpoint is in force again and can be restored again, the change is on
 * disk, and an undo is refused once the context was rewritten after the restore.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkContext } from '../../src/compaction/plan/invariants';
import { text, toolCalls } from '../../src/demo/modelserver/replies';
import type { Responder } from '../../src/demo/modelserver/wire';
import { filler, serviceFixture, StubSummarizer } from './fixtures';
import type { CheckpointRestored } from '../../src/service/records';
import { describeOutcome } from '../../src/service/compaction/outcome';

const files = { 'f1.txt': filler(60, 'a'), 'f2.txt': filler(60, 'b'), 'f3.txt': filler(60, 'c') };
/** Three tasks that each read one file, then plain answers. */
const responder: Responder = (_body, n) => {
  if (n <= 6)
    return n % 2 === 1
      ? toolCalls([{ id: `h${n}`, name: 'read_file', arguments: JSON.stringify({ path: `f${(n + 1) / 2}.txt` }) }])
      : text(`Read file ${n / 2}.`);
  return text(`answer ${n}`);
};

async function compacted() {
  const fx = await serviceFixture(responder, { files, summarizer: new StubSummarizer('SUMMARY-OK'), window: 64_000 });
  for (let i = 1; i <= 3; i++) await fx.service.runTask(`Read f${i}.txt`);
  const outcome = await fx.service.compactNow();
  assert.equal(outcome.status.kind, 'applied', describeOutcome(outcome.status));
  return fx;
}

test('undoing a restore brings the compacted context back, with the messages appended since, and persists it', async (t) => {
  const fx = await compacted();
  t.after(fx.cleanup);
  const service = fx.service;
  const compactedIds = service.getTranscript().context.map((i) => i.id);
  const compactedTokens = service.getBudget().used;
  const summary = service.getCheckpoints().find((c) => c.strategy === 'summary')!;
  assert.equal(service.getUndoableRestore(), undefined, 'nothing to undo before a restore');
  await assert.rejects(service.undoRestore(), /no restore to undo/);

  const restored = await service.restoreCheckpoint(summary.id);
  assert.ok(service.getBudget().used > compactedTokens, 'the restore grew the context');
  assert.deepEqual(service.getUndoableRestore(), restored);
  // Messages after the restore stay and follow the compacted context once the restore is undone.
  await service.runTask('one more request');
  const appended = service
    .getTranscript()
    .entries.slice(-2)
    .map((e) => e.id);

  const events: CheckpointRestored[] = [];
  const sub = service.onDidRestoreCheckpoint((e) => events.push(e));
  const undone = await service.undoRestore();
  sub.dispose();
  assert.deepEqual(undone, { ...restored, undo: true });
  assert.deepEqual(events, [undone]);
  const { context, entries } = service.getTranscript();
  assert.deepEqual(
    context.map((i) => i.id),
    [...compactedIds, ...appended],
  );
  assert.deepEqual(checkContext(context, entries), []);
  for (const id of restored.undone)
    assert.equal(service.getCheckpoints().find((c) => c.id === id)?.restored, undefined, `${id} is in force again`);
  assert.ok(service.getBudget().used < compactedTokens + 200, 'the gauge is back near the compacted level');
  assert.equal(service.getUndoableRestore(), undefined);

  const reopened = await fx.reopen();
  assert.deepEqual(
    reopened.getTranscript().context.map((i) => i.id),
    context.map((i) => i.id),
    'the undo is on disk',
  );
  assert.equal(reopened.getCheckpoints().find((c) => c.id === summary.id)?.restored, undefined);
  // The checkpoint can be restored again.
  const again = await service.restoreCheckpoint(summary.id);
  assert.deepEqual(again.undone, restored.undone);
});

test('a restore can no longer be undone after a compaction rewrote the context', async (t) => {
  const fx = await compacted();
  t.after(fx.cleanup);
  const summary = fx.service.getCheckpoints().find((c) => c.strategy === 'summary')!;
  await fx.service.restoreCheckpoint(summary.id);
  const outcome = await fx.service.compactNow();
  assert.equal(outcome.status.kind, 'applied', describeOutcome(outcome.status));
  assert.equal(fx.service.getUndoableRestore(), undefined);
  await assert.rejects(fx.service.undoRestore(), /the context changed since the last restore/);
});
