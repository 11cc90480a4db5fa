/**
 * Why automatic compactions show at 73-78% of the window with the trigger at 80%: the fraction
 * applies to the prompt budget (the window less the reply reserve, `contextKeeper.maxOutputTokens`,
 * 4,096 by default), while the gauge is drawn to the whole window. The gauge's mark, its legend and
 * each automatic compaction's divider say where the trigger stands on both, with the figures.
 */
import '../support/vscode-fake/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { thresholds } from '../../src/compaction/plan/budget';
import { triggerLevel } from '../../src/webview/shared/gauge-geometry';
import { compactionHeadline } from '../../src/webview/shared/compaction-headline';
import { placeCompactions } from '../../src/views/sidebar/compaction-dividers';
import type { CheckpointRecord } from '../../src/service/records';
import type { BudgetSnapshot } from '../../src/service/meter/budget-types';

/** The trigger of a `window`-token window with the default reply reserve and compactAt 0.8. */
function trigger(window: number) {
  const th = thresholds({ contextWindow: window, reservedOutput: 4_096, compactAt: 0.8, compactTo: 0.5 });
  return { ...th, window, ofWindow: Math.round((th.triggerTokens / window) * 100) };
}

test('an 80% trigger stands at 77-78% of 128k and 200k windows: the level names the prompt budget, the reserve and the window', () => {
  const t128 = trigger(128_000);
  const t200 = trigger(200_000);
  assert.deepEqual([t128.ofWindow, t200.ofWindow], [77, 78]);
  assert.equal(
    triggerLevel(t128.triggerTokens, 0.8, t128.inputBudget, t128.window),
    '80% of the 124k prompt budget (the 128k window less 4.1k reserved for the reply), 77% of the window',
  );
  assert.equal(triggerLevel(25_600, 0.8, 32_000, 32_000), '80% of the window', 'nothing reserved: one scale');
});

test("an automatic compaction's divider says where its trigger stands against the prompt budget and the window", () => {
  const t = trigger(128_000);
  const checkpoint = {
    id: 'cp1',
    time: '2026-01-01T10:00:00.000Z',
    trigger: 'auto',
    strategy: 'extractive',
    replacedIds: ['m1'],
    replaced: [],
    inserted: [],
    summary: 's',
    tokensBefore: t.triggerTokens + 500,
    tokensAfter: 60_000,
  } as CheckpointRecord;
  const budget = {
    window: t.window,
    inputBudget: t.inputBudget,
    compactAt: { tokens: t.triggerTokens, fraction: 0.8 },
  } as BudgetSnapshot;
  const placed = placeCompactions([checkpoint], ['m1'], new Map(), new Map([['m1', 'm1']]), budget);
  const headline = compactionHeadline(placed.compactions[0]);
  assert.match(
    headline,
    /^Compacted automatically: the context passed the 99k-token trigger \(80% of the 124k prompt budget \(the 128k window less 4\.1k reserved for the reply\), 77% of the window\) and went from 100k to 60k tokens/,
  );
});
