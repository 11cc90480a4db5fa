/**
 * Planning a compaction on 1k, 10k and 100k messages: `planCompaction` (prefix sums, linear)
 * against a baseline that recounts the remaining conversation for each candidate unit (the
 * quadratic shape of a common reference implementation). Both select the oldest eligible units
 * until the conversation fits the target; summaries only (no collapse tier) so they do the same work.
 */
import { planCompaction } from '../src/compaction/plan/planner';
import { analyze } from '../src/compaction/plan/structure';
import type { ChatMessage, ContextItem } from '../src/compaction/types';
import { rng } from '../test/support/generate';
import { growthExponent, interleave, median, nowMs, sig } from './stats';

/** A context of `n` items: a system prompt, then turns of a user request and agent steps, with token counts. */
export function syntheticContext(n: number, seed = 7): { items: ContextItem[]; perItem: number[]; total: number } {
  const r = rng(seed);
  const msgs: ChatMessage[] = [{ role: 'system', content: 'You are a coding agent.' }];
  let call = 0;
  while (msgs.length < n - 2) {
    msgs.push({ role: 'user', content: 'Fix the failing test.' });
    const steps = 1 + Math.floor(r() * 6);
    for (let s = 0; s < steps && msgs.length < n - 3; s++) {
      const id = `call_${call++}`;
      msgs.push({
        role: 'assistant',
        content: null,
        tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: '{"path":"src/a.ts"}' } }],
      });
      msgs.push({ role: 'tool', tool_call_id: id, content: 'ok' });
    }
    msgs.push({ role: 'assistant', content: 'Done.' });
  }
  msgs.push({ role: 'user', content: 'Now run the linter.' });
  while (msgs.length < n) msgs.push({ role: 'assistant', content: 'Running it.' });
  const items = msgs.map((message, i): ContextItem => ({ id: `m${i}`, kind: 'raw', message, covers: [`m${i}`] }));
  const perItem = msgs.map((m) => (m.role === 'tool' ? 50 + Math.floor(r() * 3000) : 10 + Math.floor(r() * 200)));
  return { items, perItem, total: perItem.reduce((a, b) => a + b, 3) };
}

/**
 * Baseline: for each candidate unit, oldest first, recount the tokens of everything that would
 * remain (summing cached per-item counts, so no re-tokenization) and stop once it fits. O(units × items).
 * @returns Number of units selected.
 */
export function recountingPlan(
  items: readonly ContextItem[],
  perItem: readonly number[],
  targetTokens: number,
  summaryTokens: number,
): number {
  const shape = analyze(items, 1);
  const removed = new Uint8Array(items.length);
  let selected = 0;
  for (const u of shape.units) {
    if (!u.eligible) continue;
    let remaining = 3 + (selected > 0 ? summaryTokens : 0);
    for (let i = 0; i < items.length; i++) if (!removed[i]) remaining += perItem[i];
    if (remaining <= targetTokens) break;
    removed.fill(1, u.start, u.end);
    selected++;
  }
  return selected;
}

/**
 * Control: allocates `count` small objects kept in an array, as `analyze` does for units. Its time
 * per object grows with the count because of the JavaScript engine's garbage collector, not the
 * algorithm, and shows that part of any growth exponent.
 */
function allocationControl(count: number): number {
  const kept: Array<{ start: number; end: number; kind: string; eligible: boolean }> = [];
  for (let i = 0; i < count; i++) kept.push({ start: i, end: i + 1, kind: 'turn', eligible: true });
  return kept.length;
}

/** One size. Times in milliseconds (medians). */
export interface PlannerRow {
  messages: number;
  /** Units (history turns, steps, summaries) in the context. */
  units: number;
  plannerMs: number;
  /** {@link allocationControl} for as many objects as there are units. */
  controlMs: number;
  baselineMs: number;
  /** True when the baseline time is extrapolated from the smaller sizes, not measured. */
  baselineExtrapolated: boolean;
}

/** Results of the planner benchmark. */
export interface PlannerResult {
  rows: PlannerRow[];
  /** Growth exponents between consecutive sizes (1 linear, 2 quadratic). */
  plannerExponents: number[];
  baselineExponents: number[];
  controlExponents: number[];
  /** planCompaction with the collapse tier on, at the largest size, in milliseconds. */
  plannerWithCollapseMs: number;
}

/** Runs the planner benchmark. Baseline runs longer than `maxBaselineMs` are extrapolated. */
export function benchPlanner(sizes: readonly number[], reps: number, maxBaselineMs = 4000): PlannerResult {
  const rows: PlannerRow[] = [];
  const SUMMARY = 1200;
  let withCollapse = NaN;
  for (const n of sizes) {
    const { items, perItem, total } = syntheticContext(n);
    const target = Math.floor(total / 2);
    const options = { keepRecentSteps: 1, summaryTokens: SUMMARY, noCollapse: true };
    const prev = rows.length >= 2 ? rows.slice(-2) : undefined;
    let predicted = 0;
    if (prev) {
      const k = growthExponent(prev[0].messages, prev[0].baselineMs, prev[1].messages, prev[1].baselineMs);
      predicted = prev[1].baselineMs * (n / prev[1].messages) ** k;
    }
    const extrapolate = predicted > maxBaselineMs;
    const r = n >= 100_000 ? Math.max(3, Math.ceil(reps / 3)) : reps;
    const units = analyze(items, 1).units.length;
    const contenders = [
      { name: 'planner', run: () => void planCompaction(items, perItem, total, target, options) },
      { name: 'control', run: () => void allocationControl(units) },
    ];
    if (!extrapolate && !(n >= 100_000 && predicted * r > maxBaselineMs)) {
      contenders.push({ name: 'baseline', run: () => void recountingPlan(items, perItem, target, SUMMARY) });
    }
    // Steady state: no forced collection between runs (see InterleaveOptions.gc); one warm-up run
    // except for a baseline too slow to repeat.
    const times = interleave(contenders, r, {
      gc: false,
      warmup: contenders.length > 2 && predicted * 2 > maxBaselineMs ? 0 : 1,
    });
    let baselineMs = times.has('baseline') ? median(times.get('baseline')!) : NaN;
    let extrapolated = false;
    if (Number.isNaN(baselineMs)) {
      if (!extrapolate) {
        // One measured run when repetitions would take too long.
        const t0 = nowMs();
        recountingPlan(items, perItem, target, SUMMARY);
        baselineMs = nowMs() - t0;
      } else {
        baselineMs = predicted;
        extrapolated = true;
      }
    }
    rows.push({
      messages: n,
      units,
      plannerMs: sig(median(times.get('planner')!)),
      controlMs: sig(median(times.get('control')!)),
      baselineMs: sig(baselineMs),
      baselineExtrapolated: extrapolated,
    });
    if (n === sizes[sizes.length - 1]) {
      const t = interleave(
        [
          {
            name: 'c',
            run: () =>
              void planCompaction(items, perItem, total, target, { keepRecentSteps: 1, summaryTokens: SUMMARY }),
          },
        ],
        r,
        { gc: false },
      );
      withCollapse = sig(median(t.get('c')!));
    }
  }
  const exps = (key: 'plannerMs' | 'baselineMs' | 'controlMs') =>
    rows.slice(1).map((row, k) => sig(growthExponent(rows[k].messages, rows[k][key], row.messages, row[key]), 2));
  return {
    rows,
    plannerExponents: exps('plannerMs'),
    baselineExponents: exps('baselineMs'),
    controlExponents: exps('controlMs'),
    plannerWithCollapseMs: withCollapse,
  };
}
