/**
 * Work cut into slices bounded by time yields whole turns of the event loop: a timer that is due
 * runs between two slices, also when the work started in an I/O callback (where one
 * `setImmediate` would run right after it, in the same turn).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stat } from 'node:fs';
import { nextTurn, TimeSlices } from '../../src/lifecycle/time-slices';

/** Keeps the thread busy for `ms` milliseconds (so that a timer falls due). */
function busy(ms: number): void {
  for (const end = performance.now() + ms; performance.now() < end;);
}

/** In an I/O callback: a timer falls due, then `wait()` is awaited; resolves with the order of the two. */
function orderFromIo(wait: () => Promise<void>): Promise<string[]> {
  return new Promise((resolve) => {
    stat(__filename, () => {
      const order: string[] = [];
      setTimeout(() => order.push('timer'), 0);
      busy(5);
      void wait().then(() => {
        order.push('after the wait');
        // The timer runs in any case by the next turn's end.
        void nextTurn().then(() => resolve(order));
      });
    });
  });
}

test('nextTurn resolves after the timers of the next turn of the event loop, also from an I/O callback', async () => {
  assert.deepEqual(await orderFromIo(nextTurn), ['timer', 'after the wait']);
  // Why one setImmediate is not enough: from an I/O callback it runs in the same turn, before the timer.
  const once = () => new Promise<void>((resolve) => setImmediate(resolve));
  assert.deepEqual(await orderFromIo(once), ['after the wait', 'timer']);
});

test('a slice is due once its milliseconds have passed, and a turn starts the next one', async () => {
  const slices = new TimeSlices(20);
  assert.equal(slices.due(), false, 'not at its start');
  busy(25);
  assert.equal(slices.due(), true, 'after its time');
  const order: string[] = [];
  setTimeout(() => order.push('timer'), 0);
  await slices.turn();
  order.push('next slice');
  assert.deepEqual(order, ['timer', 'next slice'], 'a due timer runs between two slices');
  assert.equal(slices.due(), false, 'the next slice has its own time');
});
