/**
 * Chooses what one compaction replaces: the fewest oldest units that reach the target, tier by
 * tier, in time linear in the number of items (DESIGN.md, pipeline step 2).
 *
 * Tiers: 1 complete historical turns; 2 earlier historical summaries (two or more); 3 current-task
 * steps beyond `keepRecentSteps`; 4 current-task summaries (two or more). An earlier summary right
 * before a selected run is folded into it when the run is at least as large as the summary. On
 * request (`resummarizeOver`), a lone summary far larger than a new one is a unit of its tier too.
 */
import type { ContextItem } from '../types';
import { analyzeTable, KIND, REGION, UNIT_REASONS, type UnitTable } from './structure';
import { COLLAPSED_RECORD_TOKENS, collapseCandidates } from './collapse-plan';
import { describeHeld } from './held-words';

/**
 * Spans smaller than this many tokens are not summarized: the summary's label and sections alone
 * take about 60-100 tokens, so such a rewrite would not shrink the context.
 */
export const MIN_SPAN_TOKENS = 300;

/** A contiguous run of items `[start, end)` to replace with one summary. */
export interface Span {
  start: number;
  end: number;
  tier: 1 | 2 | 3 | 4;
  /** Estimated tokens of the span as it stands (collapsed sizes where collapse applies). */
  tokens: number;
}

/** What a compaction will do. */
export interface Plan {
  shape: UnitTable;
  /** Indices of tool results to collapse (none inside `spans`). */
  collapse: number[];
  spans: Span[];
  /** Estimated prompt tokens after the plan, in tokens. */
  estimatedAfter: number;
  /** Why nothing could be selected, when `collapse` and `spans` are empty. */
  reason?: string;
}

/** Planner options. */
export interface PlanOptions {
  keepRecentSteps: number;
  /** Expected size of one summary, in tokens. */
  summaryTokens: number;
  noCollapse?: boolean;
  /** Select every eligible unit (a manual "compact everything"), not just enough to reach the target. */
  all?: boolean;
  /**
   * Tokens of each item a summary keeps verbatim (typed requests), and the most a summary keeps of
   * them, in tokens: a span's summary is estimated as `summaryTokens` plus what it keeps.
   */
  keptPerItem?: readonly number[];
  keptCap?: number;
  /**
   * Tokens above which a lone summary (the only one of its region) is summarised again, shorter, by
   * itself (see {@link loneSummaryLimit}): set where the compaction must reach its target and a
   * summary larger than a new one would otherwise hold the context over it with nothing left to
   * compact. Undefined: a lone summary stays as it is (it would be rewritten into about itself).
   */
  resummarizeOver?: number;
}

/**
 * The size above which a lone summary is summarised again on request, in tokens: twice the most a
 * new summary takes (its notes, `summaryTokens`, and its verbatim requests, `userTokens`), so the
 * rewrite at least halves it.
 */
export function loneSummaryLimit(summaryTokens: number, userTokens: number): number {
  return 2 * (summaryTokens + userTokens);
}

/**
 * Plans a compaction of `items` (with per-item counts `perItem` and current total `total`) down to
 * `targetTokens`. Pure; O(items).
 */
export function planCompaction(
  items: readonly ContextItem[],
  perItem: readonly number[],
  total: number,
  targetTokens: number,
  options: PlanOptions,
): Plan {
  const shape = analyzeTable(items, options.keepRecentSteps);
  const size = perItem.slice();
  const collapsible = options.noCollapse ? [] : collapseCandidates(items, shape, perItem);
  let afterCollapse = total;
  for (const i of collapsible) {
    afterCollapse -= perItem[i] - COLLAPSED_RECORD_TOKENS;
    size[i] = COLLAPSED_RECORD_TOKENS;
  }
  if (afterCollapse <= targetTokens && !options.all) {
    return {
      shape,
      collapse: collapsible,
      spans: [],
      estimatedAfter: afterCollapse,
      reason: collapsible.length ? undefined : 'nothing eligible',
    };
  }
  // Prefix sums over sizes: unit tokens in O(1).
  const prefix = new Float64Array(items.length + 1);
  for (let i = 0; i < items.length; i++) prefix[i + 1] = prefix[i] + size[i];
  const keptPrefix = new Float64Array(items.length + 1);
  for (let i = 0; i < items.length; i++) keptPrefix[i + 1] = keptPrefix[i] + (options.keptPerItem?.[i] ?? 0);
  const keptCap = options.keptCap ?? 0;
  const tokensOf = (k: number) => prefix[shape.end[k]] - prefix[shape.start[k]];
  const count = shape.count;
  // Units are referred to by position; selection lives in an array indexed by position (object-keyed
  // maps and sets cost several times more at 100k messages).
  const tiers: number[][] = [[], [], [], []];
  const historySummaries: number[] = [];
  const currentSummaries: number[] = [];
  for (let k = 0; k < count; k++) {
    if (!shape.eligible[k]) continue;
    const kind = shape.kind[k];
    if (kind === KIND.turn) tiers[0].push(k);
    else if (kind === KIND.step) tiers[2].push(k);
    else if (kind === KIND.summary) (shape.region[k] === REGION.history ? historySummaries : currentSummaries).push(k);
  }
  const over = options.resummarizeOver;
  const lone = (units: number[]) => (over === undefined ? [] : units.filter((k) => tokensOf(k) > over));
  tiers[1] = historySummaries.length >= 2 ? historySummaries : lone(historySummaries);
  tiers[3] = currentSummaries.length >= 2 ? currentSummaries : lone(currentSummaries);

  /** Tier (1-4) that selected each unit, by position; 0 when not selected. */
  const tierOf = new Uint8Array(count);
  const need = afterCollapse - targetTokens;
  let saved = 0;
  let spanCount = 0;
  let kept = 0;
  const isSelected = (k: number) => k >= 0 && k < count && tierOf[k] !== 0;
  outer: for (let t = 0; t < 4; t++) {
    for (const k of tiers[t]) {
      if (
        !options.all &&
        saved - spanCount * options.summaryTokens - Math.min(kept, keptCap * Math.max(1, spanCount)) >= need
      )
        break outer;
      // A unit joining an existing span adds no new summary; a lone one costs one summary.
      const joins = isSelected(k - 1) || isSelected(k + 1);
      tierOf[k] = t + 1;
      saved += tokensOf(k);
      kept += keptPrefix[shape.end[k]] - keptPrefix[shape.start[k]];
      if (!joins) spanCount++;
    }
  }
  // Fold an earlier summary that directly precedes a selected run into it when the run is at least
  // as large: one summary then stands for both instead of a growing pile. A small run is not worth
  // re-summarizing the summary (it saves little and costs summarizer input).
  for (let k = 1; k < count; k++) {
    if (tierOf[k] === 0 || tierOf[k - 1] !== 0 || !shape.eligible[k - 1] || shape.kind[k - 1] !== KIND.summary)
      continue;
    let end = k;
    while (end + 1 < count && tierOf[end + 1] !== 0 && shape.start[end + 1] === shape.end[end]) end++;
    if (prefix[shape.end[end]] - prefix[shape.start[k]] >= tokensOf(k - 1)) {
      tierOf[k - 1] = tierOf[k];
    }
  }
  const spans: Span[] = [];
  for (let k = 0; k < count; k++) {
    if (tierOf[k] === 0) continue;
    const tier = tierOf[k] as 1 | 2 | 3 | 4;
    const startItem = shape.start[k];
    while (k + 1 < count && tierOf[k + 1] !== 0 && shape.start[k + 1] === shape.end[k]) k++;
    const span = { start: startItem, end: shape.end[k], tier, tokens: 0 };
    span.tokens = prefix[span.end] - prefix[span.start];
    // A span that is only one summary would be rewritten into about itself, unless it is far larger
    // than a new summary (`resummarizeOver`); a tiny one cannot shrink.
    const loneSummary = span.end - span.start === 1 && items[span.start].kind === 'summary';
    if ((!loneSummary || (over !== undefined && span.tokens > over)) && span.tokens >= MIN_SPAN_TOKENS)
      spans.push(span);
  }
  const inSpan = new Uint8Array(items.length);
  for (const s of spans) inSpan.fill(1, s.start, s.end);
  const collapse = collapsible.filter((i) => !inSpan[i]);
  let estimatedAfter = total;
  for (const i of collapse) estimatedAfter -= perItem[i] - COLLAPSED_RECORD_TOKENS;
  for (const s of spans) {
    for (let i = s.start; i < s.end; i++) estimatedAfter -= perItem[i];
    estimatedAfter += spanSummaryEstimate(
      s,
      options.summaryTokens,
      Math.min(keptCap, keptPrefix[s.end] - keptPrefix[s.start]),
    );
  }
  const reason = collapse.length === 0 && spans.length === 0 ? nothingReason(shape) : undefined;
  return { shape, collapse, spans, estimatedAfter, reason };
}

/**
 * Estimated tokens of one span's summary: its notes (`summaryTokens`, at most half the span) plus
 * the requests it keeps verbatim (`kept`), never more than 80% of the span (a summary must shrink).
 */
export function spanSummaryEstimate(span: Span, summaryTokens: number, kept: number): number {
  return Math.min(Math.ceil(span.tokens * 0.8), Math.min(summaryTokens, Math.ceil(span.tokens / 2)) + kept);
}

/**
 * The plan options of a manual compaction (Compact Conversation): every eligible unit is summarized,
 * nothing is collapsed. The service's manual compactions and {@link compactionBlocker} share them,
 * so Compact is enabled exactly when a manual compaction would find something to do.
 */
export const MANUAL_PLAN_OPTIONS = { all: true, noCollapse: true } as const;

/**
 * Why a manual compaction of `items` could do nothing at all, whatever its target, or undefined when
 * it would replace something. The same rule as the compaction itself: the plan of a manual
 * compaction ({@link MANUAL_PLAN_OPTIONS}) with no span is refused, in the words of
 * {@link heldReasons}. O(items). For disabling Compact with its reason before it is asked for.
 * @param perItem tokens of each item, as the compaction measures them
 * @param keepRecentSteps newest agent steps of the current task kept as anchors (as the planner keeps them)
 * @param inputBudget tokens that fit the window beside the reserved output: a context over it is
 *   compacted by the last tiers whatever the plan (Infinity: never counted as over it)
 */
export function compactionBlocker(
  items: readonly ContextItem[],
  perItem: readonly number[],
  keepRecentSteps = 1,
  inputBudget = Infinity,
): string | undefined {
  if (!items.some((it) => it.kind !== 'raw' || it.message.role !== 'system')) return 'the conversation is empty';
  let total = 0;
  for (const n of perItem) total += n;
  const plan = planCompaction(items, perItem, total, 0, { keepRecentSteps, summaryTokens: 0, ...MANUAL_PLAN_OPTIONS });
  if (plan.spans.length > 0 || plan.collapse.length > 0) return undefined;
  // Over the window, the last tiers shorten what is otherwise kept (a lone summary is summarised
  // again, the latest request and the newest steps are clipped: degrade.ts), all but the leading
  // system messages and pinned messages; they fit beside it once the rest is small enough.
  if (total > inputBudget) {
    let fixed = 0;
    let other = false;
    for (let k = 0; k < plan.shape.count; k++) {
      const held = plan.shape.kind[k] === KIND.system || items[plan.shape.start[k]].pinned === true;
      for (let i = plan.shape.start[k]; i < plan.shape.end[k]; i++) if (held || items[i].pinned) fixed += perItem[i];
      other ||= !held;
    }
    if (other && fixed < inputBudget) return undefined;
  }
  return describeHeld(heldReasons(items, plan));
}

function nothingReason(shape: UnitTable): string {
  return describeHeld(anchorReasons(shape));
}

/** Counts written as words in a sentence ("two summaries"); larger ones as figures ("12 summaries"). */
const COUNT_WORDS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];

/** What holds a part that is eligible yet left out of every span (see {@link heldReasons}). */
export const LEFT_OUT_REASONS = {
  /** `count` summaries each left alone: "one summary", "two summaries", "12 summaries". */
  summaries: (count: number): string =>
    `${COUNT_WORDS[count] ?? count.toLocaleString('en-US')} ${count === 1 ? 'summary' : 'summaries'}`,
  small: `parts under ${MIN_SPAN_TOKENS} tokens, too small to shrink`,
} as const;

/**
 * What holds every unit `plan` leaves in place, in words, each once: the anchors
 * ({@link anchorReasons}), then eligible units no span took: lone summaries, counted (rewriting
 * one into itself shrinks nothing; anchors between them keep them apart), or runs under
 * {@link MIN_SPAN_TOKENS} tokens. The words of a nothing-eligible outcome and of
 * {@link compactionBlocker} alike.
 */
export function heldReasons(items: readonly ContextItem[], plan: Plan): string[] {
  const reasons = anchorReasons(plan.shape);
  const shape = plan.shape;
  const covered = new Uint8Array(items.length);
  for (const s of plan.spans) covered.fill(1, s.start, s.end);
  let summaries = 0;
  let small = false;
  for (let k = 0; k < shape.count; k++) {
    if (!shape.eligible[k] || covered[shape.start[k]]) continue;
    if (shape.kind[k] === KIND.summary) summaries++;
    else small = true;
  }
  if (summaries > 0) reasons.push(LEFT_OUT_REASONS.summaries(summaries));
  if (small) reasons.push(LEFT_OUT_REASONS.small);
  return reasons;
}

/** What keeps the units that may not be compacted, in words (`UNIT_REASONS`), each once, in first-seen order. */
export function anchorReasons(shape: UnitTable): string[] {
  const reasons = new Set<string>();
  for (let k = 0; k < shape.count; k++)
    if (!shape.eligible[k] && shape.reason[k]) reasons.add(UNIT_REASONS[shape.reason[k]]);
  return [...reasons];
}
