/**
 * `checkContext` with the raw items given by the caller (the command-line tool holds them) reports
 * exactly what it reports when it builds them itself, on contexts with and without violations; a
 * summary the recording holds is no latest-request anchor for the planner nor for either check.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateConversation, rng } from '../support/generate';
import { itemsFromEntries } from '../../src/compaction/context';
import { checkContext, describeViolation, IncrementalChecker } from '../../src/compaction/plan/invariants';
import { analyze, isSummaryItem } from '../../src/compaction/plan/structure';
import { summaryHeader } from '../../src/compaction/summary/summary-header';
import { keepSummaryMark } from '../../src/compaction/tool-outcomes';
import type { ContextItem, Entry } from '../../src/compaction/types';

test('checkContext gives the same violations with the raw items passed in', () => {
  let violated = 0;
  for (let seed = 1; seed <= 60; seed++) {
    const raw = generateConversation(seed, { turns: 6, maxSteps: 6 });
    const rawItems = itemsFromEntries(raw);
    const r = rng(seed);
    // Damage a copy of the context: drop, swap, or turn an item into a summary or a system message.
    const items: ContextItem[] = rawItems.slice();
    const k = Math.floor(r() * items.length);
    const how = seed % 4;
    if (how === 1) items.splice(k, 1);
    else if (how === 2 && k + 1 < items.length) [items[k], items[k + 1]] = [items[k + 1], items[k]];
    else if (how === 3) items[k] = { ...items[k], kind: 'summary', message: { role: 'system', content: 'summary' } };
    for (const keepRecentSteps of [0, 1, 2]) {
      const built = checkContext(items, raw, { keepRecentSteps });
      assert.deepEqual(
        checkContext(items, raw, { keepRecentSteps, rawItems }),
        built,
        `seed ${seed}, keep ${keepRecentSteps}`,
      );
      if (built.length) violated++;
    }
  }
  assert.ok(violated > 60, `${violated} damaged contexts had violations`);
});

// A request, a step, the next request, then a summary an earlier compaction wrote that the recording
// holds as a plain user message (ContextKeeper's read back from a `compact --out` file, or the
// recording agent's own), then a step: the latest request the user typed is m2, not the summary.
const recorded = (summary: Entry['meta']): Entry[] => [
  { id: 'm0', message: { role: 'user', content: 'add a retry budget' } },
  { id: 'm1', message: { role: 'assistant', content: 'Added.' } },
  { id: 'm2', message: { role: 'user', content: 'now test it' } },
  {
    id: 'm3',
    message: { role: 'user', content: `${summaryHeader(4)}\n\n## Requests\n- add a retry budget` },
    meta: summary,
  },
  { id: 'm4', message: { role: 'assistant', content: 'Tests pass.' } },
];

for (const [writer, meta] of [
  ['ContextKeeper', { importedSummary: true, summaryWriter: 'context-keeper' }],
  ['the recording agent', { importedSummary: true }],
] as const) {
  test(`a summary ${writer} wrote, held by the recording, is no latest-request anchor: the planner and both checks agree`, () => {
    const raw = recorded(meta);
    const items = itemsFromEntries(raw);
    const shape = analyze(items);
    assert.equal(items[shape.lastUserIndex].id, 'm2', 'the planner anchors the request typed last');
    assert.ok(
      shape.units.some((u) => u.start === 3 && u.kind === 'summary' && u.eligible),
      'the summary may be summarised',
    );
    const summary = (ids: string[]): ContextItem => ({
      id: `s-${ids.join('')}`,
      kind: 'summary',
      message: { role: 'user', content: 'summary' },
      covers: ids,
    });
    // The earlier summary summarised again beside the request's older steps: no anchor lost.
    const resummarised = [summary(['m0', 'm1']), items[2], summary(['m3']), items[4]];
    // The request typed last summarised: a violation, named by its invariant.
    const requestLost = [summary(['m0', 'm1', 'm2', 'm3']), items[4]];
    const incremental = new IncrementalChecker({ keepRecentSteps: 1 });
    incremental.append(...raw);
    for (const rawItems of [undefined, items]) {
      assert.deepEqual(checkContext(resummarised, raw, { keepRecentSteps: 1, rawItems }), []);
      assert.deepEqual(checkContext(requestLost, raw, { keepRecentSteps: 1, rawItems }).map(describeViolation), [
        'invariant 3 (anchors): anchor message m2 (user) is not in the context verbatim',
      ]);
    }
    assert.deepEqual(incremental.check(resummarised), []);
    assert.deepEqual(
      incremental.check(requestLost).map((v) => v.message),
      ['anchor message m2 (user) is not in the context verbatim'],
    );
    // Without the recorded mark the message still opens with a summary's header, which nobody types:
    // no anchor either. A message typed in its place is the request typed last.
    const unmarked = raw.map((e) => ({ id: e.id, message: { ...e.message } }));
    assert.equal(analyze(itemsFromEntries(unmarked)).lastUserIndex, 2);
    const typed = unmarked.map((e) =>
      e.id === 'm3' ? { id: e.id, message: { role: 'user' as const, content: 'and document it' } } : e,
    );
    assert.equal(analyze(itemsFromEntries(typed)).lastUserIndex, 3);
  });
}

test('a recorded summary clipped to fit the window is still a summary, not the latest request', () => {
  const raw = recorded({ importedSummary: true });
  const items = itemsFromEntries(raw);
  const clippedMessage = { role: 'user' as const, content: `${summaryHeader(4)}\n\n[… clipped …]` };
  keepSummaryMark(items[3].message, clippedMessage);
  const clipped: ContextItem = { id: 'm3~k', kind: 'clipped', message: clippedMessage, covers: ['m3'] };
  const context = [...items.slice(0, 3), clipped, items[4]];
  assert.equal(analyze(context).lastUserIndex, 2);
  assert.ok(isSummaryItem(clipped));
  // A clipped copy of a message the user typed keeps no such mark.
  const typed = { role: 'user' as const, content: 'now test it [… clipped …]' };
  keepSummaryMark(items[2].message, typed);
  assert.ok(!isSummaryItem({ id: 'm2~k', kind: 'clipped', message: typed, covers: ['m2'] }));
});
