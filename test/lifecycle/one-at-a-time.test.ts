/**
 * One call at a time: a call while one runs gets the busy answer and does not run; after the first
 * settles (also by an error, which is passed on) the next runs.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { OneAtATime } from '../../src/lifecycle/one-at-a-time';

test('a call while one runs gets the busy answer; the next call after it runs', async () => {
  const gate = new OneAtATime();
  let release!: () => void;
  let runs = 0;
  const first = gate.run(
    async () => {
      runs++;
      await new Promise<void>((resolve) => (release = resolve));
      return 'first';
    },
    () => 'busy',
  );
  assert.equal(
    await gate.run(
      async () => (runs++, 'second'),
      () => 'busy',
    ),
    'busy',
  );
  release();
  assert.equal(await first, 'first');
  assert.equal(
    await gate.run(
      async () => (runs++, 'third'),
      () => 'busy',
    ),
    'third',
  );
  assert.equal(runs, 2);
});

test('an error of the task is passed on and frees the gate', async () => {
  const gate = new OneAtATime();
  await assert.rejects(
    gate.run(
      () => Promise.reject(new Error('summarizer down')),
      () => 'busy',
    ),
    /summarizer down/,
  );
  assert.equal(
    await gate.run(
      async () => 'after',
      () => 'busy',
    ),
    'after',
  );
});
