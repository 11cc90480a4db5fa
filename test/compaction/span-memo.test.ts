/**
 * The span kept for the next compaction: the same span again, or one grown at its end, gives the
 * notes and actions a fresh reading gives (the budget's trims never reach the kept lists; a call
 * answered only in the grown part and an id answered twice are read as a fresh reading reads them),
 * and a span with one message replaced is read again, not answered from what was kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { itemsFromEntries } from '../../src/compaction/context';
import { GrowingSpan } from '../../src/compaction/meter/span-memo';
import { generateSession } from '../../bench/corpus';
import { actionsOf } from '../../src/compaction/summary/ledger/actions';
import { collectRequests } from '../../src/compaction/summary/requests';
import { callOf, collapseItem } from '../../src/compaction/rewrite/collapse';
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
  changed[at] = {
    ...items[at],
    message: { role: 'assistant', content: 'We decided to use SQLite because the data is small. Ran `npm test`.' },
  };
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
  const call = (id: string, command: string): ContextItem => ({
    id: `a-${id}`,
    kind: 'raw',
    covers: [`a-${id}`],
    message: {
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command }) } }],
    },
  });
  const result = (id: string, text: string, n: number): ContextItem => ({
    id: `t-${id}-${n}`,
    kind: 'raw',
    covers: [`t-${id}-${n}`],
    message: { role: 'tool', tool_call_id: id, content: text },
  });
  const first = [...base, call('late', 'npm test'), call('twice', 'npm run build')];
  const grown = [
    ...first,
    result('late', 'error TS2322: Type string is not assignable\nexit code 2', 1),
    result('twice', 'ok', 1),
  ];
  const again = [...grown, result('twice', 'npm ERR! build failed\nexit code 1', 2)];
  actionsOf(first);
  for (const span of [grown, again]) {
    const got = actionsOf(span);
    assert.deepEqual(got, freshActions(span));
    assert.ok(
      got.some((a) => a.kind === 'command' && a.command === 'npm test' && !a.ok),
      'the late answer is read',
    );
  }
  assert.ok(
    actionsOf(again).some((a) => a.kind === 'command' && a.command === 'npm run build' && !a.ok),
    'the last answer of an id wins',
  );
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
  changed[at] = {
    ...changed[at],
    message: { role: 'user', content: 'Please rename the config loader to loadSettings.' },
  };
  const again = collectRequests(changed);
  assert.deepEqual(again, collectRequests(structuredClone(changed)));
  assert.ok(again.includes('Please rename the config loader to loadSettings.'));
});

test('meter: measuring the same list, a list grown at its end, and a list with an item replaced equals a fresh meter', () => {
  const all = itemsFromEntries(generateSession(13, 900 * 300).slice(0, 900));
  const kept = new TokenMeter({ model: 'gpt-4o' });
  const fresh = (items: readonly ContextItem[]) => new TokenMeter({ model: 'gpt-4o' }).measure(items);
  for (const n of [300, 300, 600, 900])
    assert.deepEqual(kept.measure(all.slice(0, n)), fresh(all.slice(0, n)), `${n} items`);
  // The returned counts are a copy: changing them does not change the next reading.
  kept.measure(all).perItem.fill(0);
  assert.deepEqual(kept.measure(all), fresh(all));
  const changed = all.slice();
  const at = changed.findIndex((it) => it.message.role === 'assistant');
  changed[at] = { ...changed[at], kind: 'summary', message: { role: 'user', content: 'A much shorter message.' } };
  const after = kept.measure(changed);
  assert.deepEqual(after, fresh(changed));
  assert.ok(after.total < kept.measure(all).total);
  assert.ok(after.breakdown.summaries > 0, 'the replaced item counts in its new category');
  // A shorter list (a prefix) is read again, not answered from the longer one.
  assert.deepEqual(kept.measure(all.slice(0, 100)), fresh(all.slice(0, 100)));
});

test('collapse: the same tool result collapsed again gives the same message object; another call gives a new record', () => {
  const items = itemsFromEntries(generateSession(17, 300 * 300).slice(0, 300));
  const at = items.findIndex((it, i) => it.message.role === 'tool' && callOf(items, i) !== undefined);
  const call = callOf(items, at)!;
  const a = collapseItem(items[at], call, 'cp-1');
  const b = collapseItem(items[at], { ...call }, 'cp-2');
  assert.equal(a.message, b.message, 'one message object for the same result and call');
  assert.equal(b.checkpointId, 'cp-2');
  const other = collapseItem(items[at], { name: 'another_tool', arguments: call.arguments }, 'cp-3');
  assert.notEqual(other.message, a.message);
  assert.match(String(other.message.content), /another_tool/);
});

test('notes: a line many times the budget is halved to fit without counting each half on the way', () => {
  // A ledger line naming thousands of files read once each.
  const files = Array.from({ length: 6000 }, (_, i) => `src/mod${i % 50}/file${i}.ts`);
  const items: ContextItem[] = [
    {
      id: 'u',
      kind: 'raw',
      covers: ['u'],
      message: { role: 'user', content: 'Read every module and list what each exports.' },
    },
  ];
  for (const [i, path] of files.entries()) {
    items.push({
      id: `a${i}`,
      kind: 'raw',
      covers: [`a${i}`],
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: `c${i}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path }) } },
        ],
      },
    });
    items.push({
      id: `t${i}`,
      kind: 'raw',
      covers: [`t${i}`],
      message: { role: 'tool', tool_call_id: `c${i}`, content: `export const value${i} = ${i};` },
    });
  }
  const counted: number[] = [];
  const s = new ExtractiveSummarizer((t) => (counted.push(t.length), meter.countText(t)), {
    lineAdditive: meter.lineAdditive,
  });
  const budget = 400;
  const notes = s.notes(items, budget);
  assert.ok(meter.countText(notes) <= budget, `${meter.countText(notes)} tokens`);
  assert.match(notes, /file\d+\.ts/, 'the halved line still names files');
  // The whole line is counted once; its halves are not counted until one could fit (16 characters a token).
  const huge = counted.filter((n) => n > 16 * budget);
  assert.equal(huge.length, 1, `texts over ${16 * budget} characters counted: ${huge.join(', ')}`);
});
