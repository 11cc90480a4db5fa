/** CompactionGuard: one automatic compaction per model call, back-off, breaker, thrashing. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompactionGuard, THRASH_ADVICE } from '../../src/compaction/rewrite/guard';

test('at most one automatic compaction per model call; manual is not limited by the guard', () => {
  const guard = new CompactionGuard();
  guard.modelCallStarted();
  assert.equal(guard.mayAutoCompact().allowed, true);
  guard.compactionSucceeded('auto', 100, 800);
  assert.deepEqual(guard.mayAutoCompact(), {
    allowed: false,
    reason: 'already compacted automatically before this model call',
  });
  guard.modelCallStarted();
  assert.equal(guard.mayAutoCompact().allowed, true);
});

test('failures back off 1 then 2 model calls, and the third opens the breaker until a manual success', () => {
  const guard = new CompactionGuard();
  const allowedAt: number[] = [];
  for (let call = 1; call <= 12; call++) {
    guard.modelCallStarted();
    if (guard.mayAutoCompact().allowed) {
      allowedAt.push(call);
      guard.compactionFailed('auto');
    }
  }
  assert.deepEqual(allowedAt, [1, 3, 6]);
  assert.equal(guard.status().paused, true);
  assert.equal(guard.status().pauseReason, 'failures');
  assert.match(guard.status().advice ?? '', /run Compact Conversation manually/);
  guard.compactionFailed('manual');
  assert.equal(guard.status().paused, true, 'a failed manual compaction keeps it paused');
  guard.compactionSucceeded('manual', 100, 800);
  guard.modelCallStarted();
  assert.deepEqual(guard.mayAutoCompact(), { allowed: true });
  assert.equal(guard.status().consecutiveFailures, 0);
});

test('a success between failures resets the count', () => {
  const guard = new CompactionGuard();
  guard.modelCallStarted();
  guard.compactionFailed('auto');
  guard.modelCallStarted();
  guard.modelCallStarted();
  guard.compactionSucceeded('auto', 100, 800);
  assert.equal(guard.status().consecutiveFailures, 0);
  assert.equal(guard.status().backoffCalls, 0);
});

test('thrashing: refill past the trigger within one model call, three times → reported with advice and paused', () => {
  const guard = new CompactionGuard();
  for (let round = 0; round < 3; round++) {
    guard.modelCallStarted();
    assert.equal(guard.mayAutoCompact().allowed, true, `round ${round}`);
    guard.compactionSucceeded('auto', 500, 800);
    guard.meterReading(600, 800);
    guard.modelCallStarted();
    guard.meterReading(850, 800);
  }
  assert.equal(guard.thrashing, true);
  assert.equal(guard.status().advice, THRASH_ADVICE);
  assert.equal(guard.status().pauseReason, 'thrashing');
  guard.modelCallStarted();
  assert.equal(guard.mayAutoCompact().allowed, false);
});

test('normal growth over many model calls is not thrashing; a compaction that stays above the trigger is', () => {
  const guard = new CompactionGuard({ thrashLimit: 2, pauseOnThrash: false });
  guard.modelCallStarted();
  guard.compactionSucceeded('auto', 400, 800);
  for (let i = 0; i < 5; i++) {
    guard.modelCallStarted();
    guard.meterReading(400 + i * 150, 800);
  }
  assert.equal(guard.status().thrashes, 0);
  guard.modelCallStarted();
  guard.compactionSucceeded('auto', 900, 800);
  guard.modelCallStarted();
  guard.compactionSucceeded('auto', 850, 800);
  assert.equal(guard.thrashing, true);
  assert.equal(guard.status().paused, false, 'pauseOnThrash false only reports');
});
