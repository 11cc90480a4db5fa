/**
 * The gauge's last figure per session in workspace state: read back per session, written only when
 * the figure, the budget or exactness changes, at most 20
 * sessions kept, and anything malformed in the state ignored.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { LastBudgetMemory } from '../../src/views/sidebar/last-budget';
import type { BudgetView } from '../../src/webview/shared/protocol';

/** A Map-backed workspace state that counts writes. */
function memento() {
  const values = new Map<string, unknown>();
  const store = {
    writes: 0,
    get: <T>(key: string) => values.get(key) as T | undefined,
    update: (key: string, value: unknown) => {
      store.writes++;
      values.set(key, value);
      return Promise.resolve();
    },
  };
  return store;
}

const view = (used: number, over: Partial<BudgetView> = {}) =>
  ({ used, inputBudget: 10_000, exact: true, ...over }) as BudgetView;

test('remembers the figure per session and reads it back', () => {
  const store = memento();
  const memory = new LastBudgetMemory(store, () => new Date('2026-11-30T10:00:00.000Z'));
  memory.remember('a', view(4_200));
  memory.remember('b', view(900, { exact: false }));
  assert.deepEqual(memory.get('a'), {
    sessionId: 'a',
    used: 4_200,
    inputBudget: 10_000,
    exact: true,
    time: '2026-11-30T10:00:00.000Z',
  });
  assert.equal(memory.get('b')?.exact, false);
  assert.equal(memory.get('c'), undefined);
  assert.equal(memory.get(undefined), undefined);
});

test('writes only when the figure, the budget or exactness changes', () => {
  const store = memento();
  const memory = new LastBudgetMemory(store);
  memory.remember('a', view(4_200));
  memory.remember('a', view(4_200));
  memory.remember('a', view(4_200));
  assert.equal(store.writes, 1, 'redraws with the same figure are not written');
  memory.remember('a', view(4_300));
  assert.equal(store.writes, 2);
  assert.equal(memory.get('a')?.used, 4_300);
  memory.remember('a', view(4_300, { exact: false }));
  memory.remember('a', view(4_300, { exact: false, inputBudget: 20_000 }));
  assert.equal(store.writes, 4);
});

test('keeps the 20 sessions shown last and ignores malformed state', () => {
  const store = memento();
  const memory = new LastBudgetMemory(store);
  for (let k = 0; k < 25; k++) memory.remember(`s${k}`, view(k * 100));
  assert.equal(memory.get('s24')?.used, 2_400);
  assert.equal(memory.get('s5')?.used, 500);
  assert.equal(memory.get('s4'), undefined, 'the oldest went first');
  void store.update('contextKeeper.lastBudget', [
    { sessionId: 'x', used: 'many' },
    null,
    7,
    { sessionId: 'y', used: 10, inputBudget: 100, exact: true, time: 't' },
  ]);
  assert.equal(memory.get('x'), undefined);
  assert.equal(memory.get('y')?.used, 10);
  void store.update('contextKeeper.lastBudget', 'not a list');
  assert.equal(memory.get('y'), undefined);
});
