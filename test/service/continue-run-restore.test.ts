/**
 * Every step a Continue in a New Task writes is one compaction run, whatever the service had to do
 * to bring the new task within the window (a clip of the latest request, then a summary of
 * everything eligible): the history shows it as one entry, and restoring it brings back every
 * message it replaced, the clipped latest request included.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeOutcome } from '../../src/service/compaction/outcome';
import { runStepIds, committedTogether } from '../../src/service/session/run-steps';
import { continuedAtSmallerWindow } from './continued-recording';

test('a continue that clips the latest request and summarises is one run: one history entry, and its restore brings back every message whole', async (t) => {
  const fx = await continuedAtSmallerWindow(t, {
    recorded: 128_000,
    count: 240,
    lastWords: 9000,
    window: 16_000,
    prompt: 3_000,
  });
  const before = fx.service.getTranscript().context.map((i) => i.id);
  const budget = fx.service.getBudget();
  assert.ok(budget.used > budget.inputBudget, `${budget.used} of ${budget.inputBudget} tokens`);
  const recorded = fx.service.getCheckpoints().length;

  const outcome = await fx.service.compactNow({ trigger: 'continue', calls: 'extractive' });
  assert.equal(outcome.status.kind, 'applied', describeOutcome(outcome.status));
  const steps = fx.service.getCheckpoints().slice(recorded);
  const strategies = steps.map((c) => `${c.strategy} ${c.time}`);
  assert.ok(
    steps.some((c) => c.strategy === 'clip'),
    `a clip step: ${strategies.join(', ')}`,
  );
  assert.ok(
    fx.service.getTranscript().context.some((i) => i.id === 'last~k'),
    'the latest request is clipped in the context',
  );

  // One entry in the history: every step was committed together with the first.
  assert.ok(
    steps.every((c) => committedTogether(c, steps[0])),
    strategies.join(', '),
  );
  const run = runStepIds(fx.service.getCheckpoints(), steps[0].id);
  assert.deepEqual(
    run,
    steps.map((c) => c.id),
  );

  // Restored as the history restores it (every step of the run): the context is as before.
  const restored = await fx.service.restoreCheckpoint(run);
  assert.deepEqual([...restored.undone].sort(), [...run].sort());
  const after = fx.service.getTranscript().context;
  assert.deepEqual(
    after.map((i) => i.id),
    before,
  );
  assert.ok(!after.some((i) => i.id.includes('~k')), 'no clipped item is left');
});
