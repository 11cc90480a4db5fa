/**
 * The service state while a task runs is never `idle`: not before the first model call (the user's
 * message written, the tokenizer still loading), not after the last reply (the end-of-task safe
 * point), so the views never offer what only an idle session allows (delete, switch, rebuild) while
 * a task goes on; `taskRunning` says the same from the call of `runTask` until it settles.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunked } from '../../src/demo/modelserver/replies';
import type { TokenCounter } from '../../src/tokenizer/tokenizer';
import { serviceFixture } from './fixtures';
import { until } from '../support/until';

test('from runTask until it settles the state is never idle and taskRunning is true, also while the tokenizer loads', async (t) => {
  let release!: () => void;
  const ready = new Promise<void>((resolve) => (release = resolve));
  // Estimates until `ready`: the first model call waits for exact counts (see agent-hooks.ts).
  const counter: TokenCounter = {
    encoding: 'o200k_base',
    countText: (text) => Math.ceil(text.length / 4),
    exact: false,
    ready,
  };
  const fx = await serviceFixture(() => chunked(['one ', 'two ', 'three'], 30), {
    window: 64_000,
    tokenCounter: counter,
  });
  t.after(fx.cleanup);
  const { service } = fx;
  const seen: string[] = [];
  const idleWhileRunning: string[] = [];
  const sub = service.onDidChangeState((change) => {
    seen.push(change.state);
    if (change.state === 'idle' && service.taskRunning) idleWhileRunning.push(`idle after ${seen.join(' → ')}`);
  });
  t.after(() => sub.dispose());
  assert.equal(service.taskRunning, false);
  const task = service.runTask('say three words');
  assert.equal(service.taskRunning, true, 'running from the call on');
  assert.notEqual(service.getState().state, 'idle', 'not idle from the call on');
  // The task waits for the tokenizer: still not idle, no model call yet.
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.equal(fx.requests.length, 0, 'no model call before the tokenizer is ready');
  assert.equal(service.getState().state, 'streaming');
  assert.equal(service.getState().detail, 'between model calls');
  release();
  const outcome = await task;
  assert.equal(outcome.status, 'done');
  assert.equal(outcome.finalText, 'one two three');
  assert.deepEqual(idleWhileRunning, [], 'idle announced while the task ran');
  assert.equal(service.taskRunning, false);
  assert.equal(service.getState().state, 'idle');
  assert.equal(seen.at(-1), 'idle', 'idle announced once the task settled');
});

test('a cancelled task settles idle, and taskRunning turns false with the idle announcement', async (t) => {
  const fx = await serviceFixture(
    () =>
      chunked(
        Array.from({ length: 100 }, (_, i) => `w${i} `),
        30,
      ),
    { window: 64_000 },
  );
  t.after(fx.cleanup);
  const { service } = fx;
  const atIdle: boolean[] = [];
  const sub = service.onDidChangeState((change) =>
    change.state === 'idle' ? atIdle.push(service.taskRunning) : undefined,
  );
  t.after(() => sub.dispose());
  const task = service.runTask('talk a while');
  await until(() => service.getState().state === 'streaming' && fx.requests.length === 1, 'the reply to stream');
  service.cancel();
  assert.equal((await task).status, 'cancelled');
  assert.deepEqual(atIdle, [false], 'one idle announcement, after the task ended');
});
