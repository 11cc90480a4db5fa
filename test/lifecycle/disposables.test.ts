import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DisposableStore, toDisposable } from '../../src/lifecycle/disposables';

const recorder = () => {
  const order: string[] = [];
  return { order, item: (name: string) => toDisposable(() => order.push(name)) };
};

test('a store disposes its items newest first, once', () => {
  const { order, item } = recorder();
  const store = new DisposableStore();
  store.addAll(item('emitter'), item('listener'));
  store.dispose();
  store.dispose();
  assert.deepEqual(order, ['listener', 'emitter']);
  assert.equal(store.isDisposed, true);
});

test('clear() releases the items and keeps the store usable for the next session', () => {
  const { order, item } = recorder();
  const store = new DisposableStore();
  store.add(item('first session'));
  store.clear();
  store.add(item('second session'));
  assert.deepEqual(order, ['first session']);
  store.dispose();
  assert.deepEqual(order, ['first session', 'second session']);
});

test('an item added after disposal is disposed at once instead of leaking', () => {
  const { order, item } = recorder();
  const store = new DisposableStore();
  store.dispose();
  const added = store.add(item('late'));
  assert.deepEqual(order, ['late']);
  added.dispose();
  assert.deepEqual(order, ['late'], 'toDisposable runs its function once');
});

test('one failing item does not stop the others; the first error is rethrown', () => {
  const { order, item } = recorder();
  const store = new DisposableStore();
  store.addAll(
    item('a'),
    toDisposable(() => {
      throw new Error('first failure');
    }),
    item('c'),
  );
  assert.throws(() => store.dispose(), /first failure/);
  assert.deepEqual(order, ['c', 'a']);
});
