/**
 * The restore plan the confirmation shows: the checkpoints a restore would undo and the prompt
 * tokens after it equal what the restore then does, for a compaction followed by a later one that
 * did not take in its summary (that one stays in force); and planning changes nothing.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { text } from '../../src/demo/modelserver/replies';
import type { Entry } from '../../src/compaction/types';
import { filler, serviceFixture } from './fixtures';
import { describeOutcome } from '../../src/service/compaction/outcome';

function conversation(turns: number, from = 0): Entry[] {
  const out: Entry[] = [];
  for (let t = from; t < from + turns; t++) {
    out.push({ id: `u${t}`, message: { role: 'user', content: `Step ${t}: ${filler(6, `u${t}`)}` } });
    out.push({ id: `a${t}`, message: { role: 'assistant', content: `Done ${t}: ${filler(6, `a${t}`)}` } });
  }
  return out;
}

test('planRestore gives the checkpoints undone and the tokens after, as the restore then does; planning changes nothing', async (t) => {
  const fx = await serviceFixture(() => text(`Done: ${filler(6, 'reply')}`), { window: 200_000 });
  t.after(fx.cleanup);
  await fx.service.importTranscript({
    source: 'test',
    entries: [{ id: 's', message: { role: 'system', content: 'You are a recorded agent.' } }, ...conversation(40)],
  });
  const first = await fx.service.compactNow();
  assert.equal(first.status.kind, 'applied');
  // More work after it, then a second compaction of that work only (not of the first summary).
  for (const task of ['Add the tests.', 'Run them.', 'Fix the failing one.', 'Update the docs.', 'Release it.'])
    assert.equal((await fx.service.runTask(task)).status, 'done');
  const second = await fx.service.compactNow();
  assert.equal(second.status.kind, 'applied', describeOutcome(second.status));
  const firstIds = first.checkpoints.map((c) => c.id);

  const before = {
    budget: fx.service.getBudget().used,
    checkpoints: JSON.stringify(fx.service.getCheckpoints()),
    messages: JSON.stringify(fx.service.getMessages()),
  };
  const plan = fx.service.planRestore(firstIds);
  assert.deepEqual(
    {
      budget: fx.service.getBudget().used,
      checkpoints: JSON.stringify(fx.service.getCheckpoints()),
      messages: JSON.stringify(fx.service.getMessages()),
    },
    before,
    'planning changes nothing',
  );
  assert.ok(plan.tokens > before.budget, 'what was replaced comes back');

  assert.ok(
    second.checkpoints.every((c) => !plan.undone.includes(c.id)),
    'a later compaction not built on it stays in force',
  );
  const done = await fx.service.restoreCheckpoint(firstIds);
  assert.deepEqual([...plan.undone].sort(), [...done.undone].sort(), 'the same checkpoints undone');
  assert.equal(fx.service.getBudget().used, plan.tokens, 'the same tokens after');
  assert.throws(() => fx.service.planRestore(firstIds), /already restored/);
  assert.throws(() => fx.service.planRestore('no-such-checkpoint'), /no checkpoint with id/);
});
