/**
 * `checkContext` with the raw items given by the caller (the command-line tool holds them) reports
 * exactly what it reports when it builds them itself, on contexts with and without violations.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateConversation, rng } from '../support/generate';
import { itemsFromEntries } from '../../src/compaction/context';
import { checkContext, IncrementalChecker } from '../../src/compaction/plan/invariants';
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

test('an earlier summary read back from the transcript is no latest-request anchor, in the full and the incremental check', () => {
  const raw: Entry[] = [
    { id: 'm0', message: { role: 'user', content: 'add a retry budget' } },
    { id: 'm1', message: { role: 'assistant', content: 'Added.' } },
    { id: 'm2', message: { role: 'user', content: 'now test it' } },
    {
      id: 'm3',
      message: {
        role: 'user',
        content: '[Summary of 4 earlier messages of this conversation, written by ContextKeeper.]',
      },
      meta: { importedSummary: true, summaryWriter: 'context-keeper' },
    },
    { id: 'm4', message: { role: 'assistant', content: 'Tests pass.' } },
  ];
  const summary = (ids: string[]): ContextItem => ({
    id: 's',
    kind: 'summary',
    message: { role: 'user', content: 'summary' },
    covers: ids,
  });
  const rawItems = itemsFromEntries(raw);
  // The earlier summary is summarised again beside the request's older steps: no anchor is lost.
  const resummarised = [summary(['m0', 'm1']), rawItems[2], summary(['m3']), rawItems[4]];
  // The latest request summarised: still a violation.
  const requestLost = [summary(['m0', 'm1', 'm2', 'm3']), rawItems[4]];
  const incremental = new IncrementalChecker({ keepRecentSteps: 1 });
  incremental.append(...raw);
  for (const withRaw of [undefined, rawItems]) {
    assert.deepEqual(checkContext(resummarised, raw, { keepRecentSteps: 1, rawItems: withRaw }), []);
    assert.deepEqual(
      checkContext(requestLost, raw, { keepRecentSteps: 1, rawItems: withRaw }).map((v) => v.message),
      ['anchor message m2 (user) is not in the context verbatim'],
    );
  }
  assert.deepEqual(incremental.check(resummarised), []);
  assert.deepEqual(
    incremental.check(requestLost).map((v) => v.message),
    ['anchor message m2 (user) is not in the context verbatim'],
  );
});
