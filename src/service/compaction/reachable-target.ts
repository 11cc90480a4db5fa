/**
 * The target an automatic compaction aims at when what it may never summarise (system prompt, tool
 * schemas, latest request, newest steps, pins) already fills the configured target.
 *
 * The core shares the target among the summaries after what stays in place, so an unreachable
 * target leaves each summary its smallest budget (64 tokens): the notes keep almost none of the
 * identifiers they replace, and the planner goes on summarising every later span for a few hundred
 * tokens each, one summarizer call apiece. Aiming instead just above the never-summarised part, with
 * room for the notes, gives the summaries a real budget and stops at the first span that reaches
 * it. The aim never rises above {@link raisedTargetCap}, so the compaction still buys at least half
 * of the hysteresis band before the trigger fires again.
 */
import type { BudgetConfig } from '../../compaction/types';
import { thresholds } from '../../compaction/plan/budget';

/** Share of the hysteresis band (trigger − target) kept for the summaries' notes above the never-summarised part. */
export const NOTES_ROOM_SHARE = 0.1;

/** Highest target a raised aim may take, in tokens: halfway between the target and the trigger (as `preparedCeiling`). */
export function raisedTargetCap(budget: BudgetConfig): number {
  const th = thresholds(budget);
  return th.targetTokens + (th.triggerTokens - th.targetTokens) / 2;
}

/**
 * `budget` with `compactTo` raised, when `anchored` tokens (never summarised) plus room for notes
 * ({@link NOTES_ROOM_SHARE} of the band) exceed its target, to that sum, at most to `cap` tokens
 * (default {@link raisedTargetCap}); `budget` itself otherwise. Pure.
 */
export function raiseTarget(budget: BudgetConfig, anchored: number, cap = raisedTargetCap(budget)): BudgetConfig {
  const th = thresholds(budget);
  const wanted = anchored + NOTES_ROOM_SHARE * (th.triggerTokens - th.targetTokens);
  if (wanted <= th.targetTokens) return budget;
  const aim = Math.min(wanted, cap);
  if (aim <= th.targetTokens) return budget;
  // Fractions of the base, kept below `compactAt` (thresholds() requires it).
  const compactTo = Math.min(aim / th.base, budget.compactAt - 1e-6);
  return compactTo > budget.compactTo ? { ...budget, compactTo } : budget;
}
