/**
 * `checkContext` with the raw items given by the caller (the command-line tool holds them) reports
 * exactly what it reports when it builds them itself, on contexts with and without violations.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateConversation, rng } from '../support/generate';
import { itemsFromEntries } from '../../src/compaction/context';
import { checkContext } from '../../src/compaction/plan/invariants';
import type { ContextItem } from '../../src/compaction/types';

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
