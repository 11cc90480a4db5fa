/**
 * What the compaction worker holds is found by walking the last job's items beside the new job's:
 * a context grown at its end or kept after a summary is found without sending it again, a reordered
 * one is sent again, and the walk reads a bounded number of items whatever the order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { itemsFromEntries } from '../../src/compaction/context';
import type { ContextItem } from '../../src/compaction/types';
import { HeldItems } from '../../src/service/compaction/worker/session-worker';

const itemsOf = (n: number, prefix = 'm'): ContextItem[] =>
  itemsFromEntries(
    Array.from({ length: n }, (_, k) => ({ id: `${prefix}${k}`, message: { role: 'user', content: `${k}` } })),
  );

/** The keys found for `job`, the thread holding `held` under keys 100, 101, … */
function keysOf(held: readonly ContextItem[], job: readonly ContextItem[]): Array<number | undefined> {
  const index = new HeldItems({ items: held, keys: held.map((_, k) => 100 + k) }, job.length);
  return job.map((it) => index.keyOf(it));
}

test('a context grown at its end is found held up to where it grew', () => {
  const held = itemsOf(5);
  const grown = [...held, ...itemsOf(2, 'new')];
  assert.deepEqual(keysOf(held, grown), [100, 101, 102, 103, 104, undefined, undefined]);
});

test('the messages kept after a summary are found held; the summary and new messages are not', () => {
  const held = itemsOf(100);
  const [summary] = itemsOf(1, 'summary');
  const [late] = itemsOf(1, 'late');
  const job = [held[0], summary, ...held.slice(90), late];
  assert.deepEqual(keysOf(held, job), [100, undefined, ...held.slice(90).map((_, k) => 190 + k), undefined]);
});

test('held items found only behind the place reached (a reordered context) are sent again', () => {
  const held = itemsOf(4);
  assert.deepEqual(keysOf(held, [held[2], held[3], held[0], held[1]]), [102, 103, undefined, undefined]);
});

test('the walk reads a bounded number of held items, whatever the job holds', () => {
  const n = 5_000;
  const held = itemsOf(n);
  let reads = 0;
  const counted = new Proxy(held, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  // None of the job's items is held, and each would otherwise be looked for among all held ones.
  const job = itemsOf(n, 'other');
  const index = new HeldItems({ items: counted, keys: held.map((_, k) => k) }, job.length);
  for (const it of job) assert.equal(index.keyOf(it), undefined);
  assert.ok(reads <= 4 * (n + n) + 4096 + 2 * n, `${reads} reads for ${n} held and ${n} asked`);
  // The order found is still used once the scans are spent.
  const again = new HeldItems({ items: held, keys: held.map((_, k) => k) }, 2 * n);
  for (const it of job) again.keyOf(it);
  assert.equal(again.keyOf(held[0]), 0);
});
