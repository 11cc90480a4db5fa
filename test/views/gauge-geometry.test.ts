/**
 * The gauge's placement (see gauge-geometry.ts): within budget the bar is the window; over budget
 * the scale widens to the context, the part over the prompt budget is its own overflow segment, and
 * the marks, the window's end and the peak keep their true places on that scale.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gaugeGeometry, windowOriginNote } from '../../src/webview/shared/gauge-geometry';
import { recordingWindow } from '../../src/models/recorded';
import { describeWindow } from '../../src/models/resolve';

const breakdown = (history: number) => ({
  system: 1_000,
  instructions: 0,
  tools: 1_000,
  history,
  summaries: 0,
  currentTask: 2_000,
});
// A 128k window with 4k reserved: 124k prompt budget, compact at 80% (99.2k) down to 50% (62k).
const base = { window: 128_000, inputBudget: 124_000, compactAt: 99_200, compactTo: 62_000 };
const num = (p: string | undefined) => Number(p?.replace('%', ''));

test('within budget: the bar is the window, no overflow, marks at their share of the window', () => {
  const g = gaugeGeometry({ ...base, used: 64_000, breakdown: breakdown(60_000) });
  assert.equal(g.scale, 128_000);
  assert.equal(g.over, false);
  assert.equal(g.overflow, undefined);
  assert.equal(g.windowEnd, undefined);
  assert.equal(g.segments.history, '46.88%');
  assert.equal(g.at, '77.50%');
  assert.equal(g.to, '48.44%');
  assert.deepEqual(g.reserved, { left: '96.88%', width: '3.13%' });
  assert.equal(g.usedPercent, 52);
});

test('over budget (292k in a 124k budget): the scale is the context, the overflow is its own segment, the marks stay at their tokens', () => {
  const g = gaugeGeometry({ ...base, used: 292_000, breakdown: breakdown(288_000), peak: undefined });
  assert.equal(g.scale, 292_000);
  assert.equal(g.over, true);
  assert.equal(g.overTokens, 168_000);
  assert.equal(g.usedPercent, 235);
  // The overflow runs from the prompt budget's end to the context's end.
  assert.equal(g.overflow?.left, '42.47%');
  assert.ok(Math.abs(num(g.overflow?.left) + num(g.overflow?.width) - 100) < 0.02);
  // The marks are at their tokens on the widened scale, not crowded inside a bar filled to the edge.
  assert.equal(g.at, '33.97%');
  assert.equal(g.to, '21.23%');
  assert.equal(g.windowEnd, '43.84%');
  assert.ok(num(g.at) < num(g.overflow?.left) && num(g.to) < num(g.at));
  // The segments add up to the whole bar.
  const total = Object.values(g.segments).reduce((s, p) => s + num(p), 0);
  assert.ok(Math.abs(total - 100) < 0.05, `segments add up to ${total}%`);
});

test('a peak beyond the window widens the scale so the peak mark stands at its place', () => {
  const g = gaugeGeometry({
    ...base,
    used: 40_000,
    breakdown: breakdown(36_000),
    peak: { tokens: 256_000, time: '2026-01-01T10:00:00Z' },
  });
  assert.equal(g.scale, 256_000);
  assert.equal(g.peak, '100.00%');
  assert.equal(g.windowEnd, '50.00%');
  assert.equal(g.over, false);
  const inside = gaugeGeometry({
    ...base,
    used: 40_000,
    breakdown: breakdown(36_000),
    peak: { tokens: 102_400, time: '2026-01-01T10:00:00Z' },
  });
  assert.equal(inside.peak, '80.00%');
  assert.equal(inside.scale, 128_000);
});

test("the window's note names where it came from, also for windows with thousands separators and recordings", () => {
  const configured = { model: 'gpt-4o-mini', window: 8_000 };
  assert.equal(windowOriginNote(recordingWindow('house-model-x', configured).label), " (configured model's)");
  assert.equal(windowOriginNote(recordingWindow(undefined, configured).label), " (configured model's)");
  assert.equal(windowOriginNote(recordingWindow('gpt-4.1', configured).label), " (recording's model)");
  assert.equal(windowOriginNote(describeWindow({ window: 32_768, source: 'server' })), ' (reported)');
  assert.equal(windowOriginNote(describeWindow({ window: 128_000, source: 'table' })), ' (model table)');
  assert.equal(windowOriginNote(describeWindow({ window: 128_000, source: 'flag' })), ' (settings)');
  // Whichever layer, also when it names the user setting it overrides.
  assert.equal(
    windowOriginNote(
      describeWindow(
        { window: 8_000, source: 'flag' },
        'from workspace settings, which override your user setting of 32,000',
      ),
    ),
    ' (settings)',
  );
  assert.equal(windowOriginNote(describeWindow({ window: 128_000, source: 'fallback' })), ' (assumed)');
  assert.equal(windowOriginNote(undefined), '');
});
