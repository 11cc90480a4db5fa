/**
 * A process that compacts once (the command-line `compact` and `replay`, which turn the per-message
 * memos off) keeps no reading of a span for a grown span it never reads: the span's items are free
 * once the compaction is done with them. With the memos on (the extension), the reading is kept and
 * continued.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { GrowingSpan } from '../../src/compaction/meter/span-memo';
import { keepMessageMemos } from '../../src/compaction/message-memo';
import { itemsFromEntries } from '../../src/compaction/context';
import { SpanIdentifiers } from '../../src/compaction/summary/identifiers/backfill';
import { generateSession } from '../../bench/corpus';

v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Runs `body` with the per-message memos off, then turns them on again (their default). */
function memosOff<T>(body: () => T): T {
  keepMessageMemos(false);
  try {
    return body();
  } finally {
    keepMessageMemos(true);
  }
}

test('GrowingSpan keeps nothing while the per-message memos are off, and drops what it kept before', () => {
  const items = itemsFromEntries(generateSession(3, 50 * 300).slice(0, 50));
  const memo = new GrowingSpan<string>();
  memo.set(items.slice(0, 40), 'kept');
  memosOff(() => {
    // Kept while on: the next reading with the memos off drops it.
    memo.set(items, 'one-shot');
    assert.equal(memo.get(items), undefined);
    assert.equal(memo.get(items.slice(0, 40)), undefined);
  });
  assert.equal(memo.get(items), undefined, 'nothing kept from the one-shot reading');
  memo.set(items.slice(0, 40), 'kept');
  assert.deepEqual(memo.get(items), { state: 'kept', from: 40 });
});

type Items = ReturnType<typeof itemsFromEntries>;

/** Reads every source's identifiers of `items`, as back-fills of a summary do. */
function readIdentifiers(items: Items): void {
  const ids = new SpanIdentifiers(items);
  for (const key of ['args', 'conversation', 'output'] as const) for (const _ of ids.of(key));
}

/**
 * Whether a span of 600 items (its array) is still reachable once {@link readIdentifiers} has read
 * it, with the memos as `memos` says. A WeakRef's target stays alive until the end of the job that
 * made it: the check waits for the next turn.
 */
async function spanHeldAfterReading(memos: boolean): Promise<boolean> {
  let items: Items | undefined = itemsFromEntries(generateSession(5, 600 * 300).slice(0, 600));
  const ref = new WeakRef(items);
  if (memos) readIdentifiers(items);
  else memosOff(() => readIdentifiers(items!));
  items = undefined;
  await new Promise((r) => setImmediate(r));
  gc();
  return ref.deref() !== undefined;
}

test('identifier back-fill: the span read last is kept for a grown span with the memos on, never with them off', async () => {
  assert.equal(await spanHeldAfterReading(true), true, 'with the memos on, the span is kept for the next, grown one');
  // A one-shot reading keeps nothing of its span.
  assert.equal(await spanHeldAfterReading(false), false, 'a one-shot reading holds its span');
});
