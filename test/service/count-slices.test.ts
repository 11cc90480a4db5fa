/** The exact recount after the tokenizer loads runs in slices, one per turn (src/service/meter/count-slices.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TokenMeter } from '../../src/compaction/meter/meter';
import type { TokenCounter } from '../../src/tokenizer/tokenizer';
import type { ChatMessage } from '../../src/compaction/types';
import { CHARS_PER_TURN, countInSlices } from '../../src/service/meter/count-slices';

test("every message is counted once into the meter's cache, at most about CHARS_PER_TURN characters a turn", async () => {
  const turns: number[] = [];
  const counter: TokenCounter = {
    encoding: 'o200k_base',
    countText: (t) => {
      turns[turns.length - 1] += t.length;
      return Math.ceil(t.length / 4);
    },
  };
  const meter = new TokenMeter({ counter });
  const message = (k: number): ChatMessage => ({
    role: k % 2 ? 'assistant' : 'user',
    content: `message ${k} `.repeat(200 + (k % 7) * 50),
  });
  const items = Array.from({ length: 300 }, (_, k) => ({ message: message(k) }));
  // Entries share most messages with the items (raw items are the entries' own messages).
  const entries = [...items.slice(0, 250), ...Array.from({ length: 40 }, (_, k) => ({ message: message(1000 + k) }))];
  await countInSlices(
    meter,
    () => [items, entries],
    () => {
      turns.push(0);
      return false;
    },
  );
  const total = [...items, ...entries.slice(250)].reduce((n, i) => n + (i.message.content as string).length, 0);
  assert.equal(
    turns.reduce((a, b) => a + b, 0),
    total,
    'each message counted once',
  );
  const longest = Math.max(...[...items, ...entries].map((i) => (i.message.content as string).length));
  assert.ok(turns.length > total / (CHARS_PER_TURN + longest), `spread over turns (${turns.length})`);
  for (const n of turns) assert.ok(n <= CHARS_PER_TURN + longest, `a turn counted ${n} characters`);
  // The recount after it reads the cache.
  turns.push(0);
  for (const i of [...items, ...entries]) meter.countMessage(i.message);
  assert.equal(turns.at(-1), 0);
});

test('a disposed service stops the slices', async () => {
  let counted = 0;
  const meter = new TokenMeter({ counter: { encoding: 'o200k_base', countText: (t) => (counted++, t.length) } });
  const user = (k: number): ChatMessage => ({ role: 'user', content: `x${k} `.repeat(5_000) });
  const items = Array.from({ length: 100 }, (_, k) => ({ message: user(k) }));
  let calls = 0;
  await countInSlices(
    meter,
    () => [items],
    () => ++calls > 2,
  );
  assert.ok(counted > 0 && counted < items.length, `stopped part way (${counted} of ${items.length})`);
});
