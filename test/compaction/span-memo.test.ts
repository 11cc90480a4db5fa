/**
 * The span kept for the next compaction: the same span again, or one grown at its end, gives the
 * notes and actions a fresh reading gives (the budget's trims never reach the kept lists; a call
 * answered only in the grown part and an id answered twice are read as a fresh reading reads them),
 * and a span with one message replaced is read again, not answered from what was kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TokenMeter } from '../../src/compaction/meter';
import { ExtractiveSummarizer } from '../../src/compaction/extractive';
import { itemsFromEntries } from '../../src/compaction/context';
import { GrowingSpan } from '../../src/compaction/spanMemo';
import { generateSession } from '../../bench/corpus';
import { actionsOf } from '../../src/compaction/actions';
import { collectRequests } from '../../src/compaction/requests';
import type { ContextItem } from '../../src/compaction/types';

const meter = new TokenMeter({ model: 'gpt-4o' });
const count = (t: string) => meter.countText(t);

test('notes: the same span again, at a tight then a loose budget, equals what a fresh summarizer writes', () => {
  const items = itemsFromEntries(generateSession(5, 600 * 300).slice(0, 600));
  const kept = new ExtractiveSummarizer(count, { lineAdditive: meter.lineAdditive });
  // A tight budget first: its trims must not shorten what the next summary reads.
  kept.notes(items, 300);
  for (const budget of [300, 4000, 20_000]) {
    const fresh = new ExtractiveSummarizer(count, { lineAdditive: meter.lineAdditive }).notes([...items], budget);
    assert.equal(kept.notes([...items], budget), fresh, `budget ${budget}`);
  }
});

test('notes: a span with one message replaced is read again', () => {
  const items = itemsFromEntries(generateSession(7, 400 * 300).slice(0, 400));
  const s = new ExtractiveSummarizer(count, { lineAdditive: meter.lineAdditive });
  s.notes(items, 20_000);
  const at = items.map((it) => it.message.role).lastIndexOf('assistant');
  const changed = items.slice();
  changed[at] = { ...items[at], message: { role: 'assistant', content: 'We decided to use SQLite because the data is small. Ran `npm test`.' } };
  const fresh = new ExtractiveSummarizer(count, { lineAdditive: meter.lineAdditive }).notes(changed, 20_000);
  assert.equal(s.notes(changed, 20_000), fresh);
  assert.notEqual(fresh, s.notes(items, 20_000));
});

test('GrowingSpan: answers for the same span or one grown at its end, with where the new items start', () => {
  const items = itemsFromEntries(generateSession(3, 50 * 300).slice(0, 50));
  const memo = new GrowingSpan<string>();
  memo.set(items.slice(0, 40), 'kept');
  assert.deepEqual(memo.get(items.slice(0, 40)), { state: 'kept', from: 40 });
  assert.deepEqual(memo.get(items), { state: 'kept', from: 40 });
  assert.equal(memo.get(items.slice(0, 39)), undefined);
  assert.equal(memo.get([...items.slice(1), items[0]]), undefined);
  const other = items.slice();
  other[10] = { ...items[10] };
  assert.equal(memo.get(other), undefined);
  const reworded = items.slice();
  reworded[10] = { ...items[10], message: { ...items[10].message } };
  assert.equal(memo.get(reworded), undefined);
  // Extended: the kept items are the grown span's.
  memo.set(items, 'kept', 40);
  assert.deepEqual(memo.get(items), { state: 'kept', from: 50 });
  memo.set(items.slice(0, 20), 'new');
  assert.deepEqual(memo.get(items), { state: 'new', from: 20 });
});

test('notes and actions: a span grown at its end equals a fresh reading of the whole span', () => {
  const items = itemsFromEntries(generateSession(9, 1200 * 300).slice(0, 1200));
  const kept = new ExtractiveSummarizer(count, { lineAdditive: meter.lineAdditive });
  // Each step reads a longer span than the last, from new arrays over the same items.
  for (const n of [600, 601, 700, 1000, 1200]) {
    const span = items.slice(0, n);
    const fresh = new ExtractiveSummarizer(count, { lineAdditive: meter.lineAdditive }).notes(span.slice(), 20_000);
    assert.equal(kept.notes(span, 20_000), fresh, `${n} messages`);
    assert.deepEqual(actionsOf(span.slice()), freshActions(span), `${n} messages`);
  }
});

test('actions: a call answered only in the grown part, and an id answered twice, give the actions of a fresh reading', () => {
  const base = itemsFromEntries(generateSession(4, 400 * 300).slice(0, 400));
  const call = (id: string, command: string): ContextItem => ({ id: `a-${id}`, kind: 'raw', covers: [`a-${id}`], message: { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command }) } }] } });
  const result = (id: string, text: string, n: number): ContextItem => ({ id: `t-${id}-${n}`, kind: 'raw', covers: [`t-${id}-${n}`], message: { role: 'tool', tool_call_id: id, content: text } });
  const first = [...base, call('late', 'npm test'), call('twice', 'npm run build')];
  const grown = [...first, result('late', 'error TS2322: Type string is not assignable\nexit code 2', 1), result('twice', 'ok', 1)];
  const again = [...grown, result('twice', 'npm ERR! build failed\nexit code 1', 2)];
  actionsOf(first);
  for (const span of [grown, again]) {
    const got = actionsOf(span);
    assert.deepEqual(got, freshActions(span));
    assert.ok(got.some((a) => a.kind === 'command' && a.command === 'npm test' && !a.ok), 'the late answer is read');
  }
  assert.ok(actionsOf(again).some((a) => a.kind === 'command' && a.command === 'npm run build' && !a.ok), 'the last answer of an id wins');
});

/** The actions of `items` read from scratch: a copy of every message, so no kept reading applies. */
function freshActions(items: readonly ContextItem[]) {
  return actionsOf(items.map((it) => ({ ...it, message: { ...it.message } })));
}

test('requests: a span grown at its end gives the requests of a fresh reading, and a changed span is read again', () => {
  const all = itemsFromEntries(generateSession(11, 1500 * 300).slice(0, 1500));
  for (const cut of [700, 1100, 1400]) collectRequests(all.slice(0, cut));
  const grown = collectRequests(all.slice());
  assert.ok(grown.length > 3, `${grown.length} requests`);
  assert.deepEqual(grown, collectRequests(structuredClone(all)));
  // The list returned is a copy: changing it does not change the next reading.
  grown.push('not a request');
  assert.deepEqual(collectRequests(all.slice()), collectRequests(structuredClone(all)));
  // An earlier message replaced by a new request: read again, the request in its place.
  const changed = all.slice();
  const at = changed.findIndex((it) => it.message.role === 'user');
  changed[at] = { ...changed[at], message: { role: 'user', content: 'Please rename the config loader to loadSettings.' } };
  const again = collectRequests(changed);
  assert.deepEqual(again, collectRequests(structuredClone(changed)));
  assert.ok(again.includes('Please rename the config loader to loadSettings.'));
});
