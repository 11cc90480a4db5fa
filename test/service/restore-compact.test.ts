/**
 * Restore, then the next model call: messages a checkpoint restore brought back are kept out of the
 * next automatic compaction (never silently undone); when the restored context cannot fit the window,
 * the user is asked before anything is compacted again, and a refusal stops the task with a clear
 * error instead of compacting. Through a real context service and a loopback model server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatMessage } from '../../src/compaction/types';
import { checkContext, checkToolPairing } from '../../src/compaction/plan/invariants';
import { text, toolCalls } from '../../src/demo/modelserver/replies';
import { filler, promptTokensOf, serviceFixture } from './fixtures';
import type { RestoredOverflow } from '../../src/service/records';
import { describeOutcome } from '../../src/service/compaction/outcome';

const READS = 8;
const files: Record<string, string> = {};
for (let i = 1; i <= READS; i++) files[`src/f${i}.txt`] = filler(160, `f${i}`);

/** A task of `reads` reads (one per step), then a text answer; later tasks answer with text. */
async function fixture(confirm?: (info: RestoredOverflow) => Promise<boolean>, reads = READS) {
  let task = 1;
  const fx = await serviceFixture(
    (_body, n) =>
      task === 1 && n <= reads
        ? toolCalls([{ id: `c${n}`, name: 'read_file', arguments: JSON.stringify({ path: `src/f${n}.txt` }) }])
        : text('Done.'),
    { files, window: 16_000, reserved: 1_000, ...(confirm ? { confirmCompactRestored: confirm } : {}) },
  );
  const outcome = await fx.service.runTask(`Read src/f1.txt to src/f${reads}.txt one by one.`);
  assert.equal(outcome.status, 'done');
  assert.ok(outcome.compactions >= 1, `the first task compacted (${outcome.compactions})`);
  task = 2;
  return fx;
}

/** Raw entry ids that are no longer raw in the active context. */
function notRaw(fx: Awaited<ReturnType<typeof fixture>>, ids: readonly string[]): string[] {
  const raw = new Set(
    fx.service
      .getTranscript()
      .context.filter((i) => i.kind === 'raw')
      .map((i) => i.id),
  );
  return ids.filter((id) => !raw.has(id));
}

test('restored messages are kept out of the next automatic compaction, and a manual compaction may compact them again', async (t) => {
  const fx = await fixture(undefined, 6);
  t.after(fx.cleanup);
  const budget = fx.service.getBudget();
  const last = fx.service
    .getCheckpoints()
    .filter((c) => !c.restored)
    .at(-1)!;
  const restored = await fx.service.restoreCheckpoint(last.id);
  const ids = fx.service
    .getCheckpoints()
    .filter((c) => restored.undone.includes(c.id))
    .flatMap((c) => c.replacedIds);
  const after = fx.service.getBudget().used;
  assert.ok(
    after >= budget.compactAt.tokens && after <= budget.inputBudget,
    `the restore puts the context over the trigger but inside the window: ${after} (trigger ${budget.compactAt.tokens}, budget ${budget.inputBudget})`,
  );
  const before = fx.service.getCheckpoints().length;
  const sentBefore = fx.requests.length;
  const outcome = await fx.service.runTask('Now list what each file holds.');
  assert.equal(outcome.status, 'done');
  // No checkpoint made after the restore replaced a restored message; all of them were sent.
  for (const cp of fx.service.getCheckpoints().slice(before))
    assert.deepEqual(
      cp.replacedIds.filter((id) => ids.includes(id)),
      [],
      `checkpoint ${cp.id}`,
    );
  assert.deepEqual(notRaw(fx, ids), []);
  const sent = fx.requests[sentBefore].messages as ChatMessage[];
  assert.deepEqual(checkToolPairing(sent), []);
  assert.ok(promptTokensOf(fx.requests[sentBefore]) <= budget.inputBudget);
  const { entries, context } = fx.service.getTranscript();
  assert.deepEqual(checkContext(context, entries), []);
  // The user's own compaction ends the protection.
  const manual = await fx.service.compactNow();
  assert.equal(manual.status.kind, 'applied', describeOutcome(manual.status));
  assert.ok(notRaw(fx, ids).length > 0, 'a manual compaction compacts restored messages');
});

test('a restored context that cannot fit the window: the user is asked first; declined, nothing is compacted and the task stops with a clear error; accepted, it compacts and goes on', async (t) => {
  const asked: RestoredOverflow[] = [];
  let answer = false;
  const fx = await fixture(async (info) => {
    asked.push(info);
    return answer;
  });
  t.after(fx.cleanup);
  const budget = fx.service.getBudget();
  // Restoring the first checkpoint undoes every later one: the whole history comes back.
  const first = fx.service.getCheckpoints()[0];
  await fx.service.restoreCheckpoint(first.id);
  const used = fx.service.getBudget().used;
  assert.ok(used > budget.inputBudget, `the restored context is over the window: ${used} > ${budget.inputBudget}`);
  const checkpoints = fx.service.getCheckpoints().length;
  const sent = fx.requests.length;

  const declined = await fx.service.runTask('Continue.');
  assert.equal(declined.status, 'error');
  assert.match(declined.error ?? '', /restored messages do not fit the context window .* were not compacted again/);
  assert.equal(asked.length, 1);
  assert.equal(asked[0].providerRefused, false);
  assert.ok(asked[0].used > asked[0].inputBudget && asked[0].restoredMessages > 0, JSON.stringify(asked[0]));
  assert.equal(fx.service.getCheckpoints().length, checkpoints, 'nothing compacted');
  assert.equal(fx.requests.length, sent, 'no request sent over the window');

  answer = true;
  const accepted = await fx.service.runTask('Continue, compacting is fine.');
  assert.equal(accepted.status, 'done', accepted.error);
  assert.equal(asked.length, 2);
  assert.ok(fx.service.getCheckpoints().length > checkpoints, 'compacted after the user agreed');
  assert.ok(promptTokensOf(fx.requests[sent]) <= budget.inputBudget, 'the request sent fits');
  const { entries, context } = fx.service.getTranscript();
  assert.deepEqual(checkContext(context, entries), []);
});

test('with nobody to ask, a restored context over the window is never compacted again automatically', async (t) => {
  const fx = await fixture();
  t.after(fx.cleanup);
  await fx.service.restoreCheckpoint(fx.service.getCheckpoints()[0].id);
  const checkpoints = fx.service.getCheckpoints().length;
  const outcome = await fx.service.runTask('Continue.');
  assert.equal(outcome.status, 'error');
  assert.equal(fx.service.getCheckpoints().length, checkpoints);
});

test('after a reload, messages a restore brought back are still kept out of automatic compaction', async (t) => {
  const fx = await fixture(undefined, 6);
  t.after(fx.cleanup);
  const last = fx.service
    .getCheckpoints()
    .filter((c) => !c.restored)
    .at(-1)!;
  const restored = await fx.service.restoreCheckpoint(last.id);
  const ids = fx.service
    .getCheckpoints()
    .filter((c) => restored.undone.includes(c.id))
    .flatMap((c) => c.replacedIds);
  fx.service.dispose();
  const service = await fx.reopen();
  const before = service.getCheckpoints().length;
  const outcome = await service.runTask('Now list what each file holds.');
  assert.equal(outcome.status, 'done');
  for (const cp of service.getCheckpoints().slice(before))
    assert.deepEqual(
      cp.replacedIds.filter((id) => ids.includes(id)),
      [],
      `checkpoint ${cp.id}`,
    );
  const raw = new Set(
    service
      .getTranscript()
      .context.filter((i) => i.kind === 'raw')
      .map((i) => i.id),
  );
  assert.deepEqual(
    ids.filter((id) => !raw.has(id)),
    [],
    'every restored message is still raw after the reload',
  );
});
