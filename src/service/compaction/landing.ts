/**
 * How deep an automatic compaction lands: `compactTo` (the hysteresis target, DESIGN.md "Token
 * meter"), or lower where landing there would soon cost a second compaction for little in return.
 *
 * Under the prompt cache every compaction costs a rewrite (the next request is billed whole at the
 * uncached rate) and a summary; between compactions each call pays its context at the cached rate.
 * A deeper landing lowers both the per-call price and the number of compactions: what it costs is
 * detail (more of the conversation lives in notes). Two cases where the trade is clearly worth it:
 *
 * - the summary request reuses the agent's cached prefix (the session's own model): its input is
 *   billed at the cached rate whatever the span's size, so once a compaction summarises at all,
 *   replacing more costs about nothing more than replacing less; its aim is then lowered by
 *   {@link CACHED_PREFIX_DEEPER} of the band ({@link cachedPrefixCompactTo}). A compaction the
 *   collapse tier completes alone (no summarizer call) keeps its aim;
 * - the growth of recent calls says the trigger would fire again within {@link MIN_CALLS_BOUGHT}
 *   calls of the landing: the aim is lowered so that the compaction buys at least that many.
 *
 * Never below {@link LOWEST_LANDING} of the base; what may never be summarised (anchors, pins) still
 * raises the aim afterwards (./reachable-target), so the anchors are untouched (invariant 3).
 */
import { thresholds } from '../../compaction/plan/budget';
import type { BudgetConfig } from '../../compaction/types';
import { raiseTarget } from './reachable-target';

/** Share of the hysteresis band (trigger − target) the aim goes below the target when the summary reuses the cached prefix. */
export const CACHED_PREFIX_DEEPER = 0.25;
/** Fewest model calls an automatic compaction should buy before the trigger fires again, at the growth of recent calls. */
export const MIN_CALLS_BOUGHT = 4;
/** Lowest aim, as a fraction of the threshold base. */
export const LOWEST_LANDING = 0.05;

/** What the landing depends on besides the budget. */
export interface LandingInputs {
  /** The most one model call has added lately, in tokens (`GrowthWatch`); undefined when not seen yet. */
  growth?: number;
}

/**
 * The `compactTo` fraction an automatic compaction aims at: `budget.compactTo`, lowered so that it
 * buys at least {@link MIN_CALLS_BOUGHT} calls at `inputs.growth`, at least {@link LOWEST_LANDING}. Pure.
 */
export function landingCompactTo(budget: BudgetConfig, inputs: LandingInputs): number {
  const th = thresholds(budget);
  const growth = inputs.growth ?? 0;
  if (!(growth > 0) || th.targetTokens + MIN_CALLS_BOUGHT * growth <= th.triggerTokens) return budget.compactTo;
  return Math.min(budget.compactTo, Math.max(LOWEST_LANDING, (th.triggerTokens - MIN_CALLS_BOUGHT * growth) / th.base));
}

/**
 * The deeper `compactTo` (fraction of the base) for a compaction whose summary reuses the agent's
 * cached prefix and that summarises anyway (`CompactionOptions.deeperCompactTo`): the budget's
 * target lowered by {@link CACHED_PREFIX_DEEPER} of the hysteresis band, at least {@link LOWEST_LANDING}. Pure.
 */
export function cachedPrefixCompactTo(budget: BudgetConfig): number {
  const th = thresholds(budget);
  const aim = th.targetTokens - CACHED_PREFIX_DEEPER * (th.triggerTokens - th.targetTokens);
  return Math.min(budget.compactTo, Math.max(LOWEST_LANDING, aim / th.base));
}

/** What {@link automaticAim} returns: the budget to run with and, when lower, the deeper aim for a run that summarises. */
export interface AutomaticAim {
  budget: BudgetConfig;
  /** `CompactionOptions.deeperCompactTo`; undefined when it would not be lower. */
  deeperCompactTo?: number;
}

/**
 * The aim of an automatic run: {@link landingCompactTo} (and, when the summary reuses the cached
 * prefix, {@link cachedPrefixCompactTo} as the deeper aim), each lowered by `lower` (a fraction of
 * the base: the growth a summary prepared ahead expects before it applies, kept between
 * {@link LOWEST_LANDING} and `compactAt − 0.01`), then raised above the `anchored` tokens no
 * compaction may summarise ({@link raiseTarget}, at most to `cap` tokens when given). Pure.
 */
export function automaticAim(
  budget: BudgetConfig,
  anchored: number,
  inputs: LandingInputs & { reusesPrefix?: boolean; lower?: number; cap?: number },
): AutomaticAim {
  const lower = inputs.lower ?? 0;
  const shifted = (f: number) =>
    lower > 0 ? Math.max(LOWEST_LANDING, Math.min(f - lower, budget.compactAt - 0.01)) : f;
  const aimed = raiseTarget({ ...budget, compactTo: shifted(landingCompactTo(budget, inputs)) }, anchored, inputs.cap);
  if (inputs.reusesPrefix !== true) return { budget: aimed };
  const deeper = raiseTarget(
    { ...budget, compactTo: shifted(cachedPrefixCompactTo(budget)) },
    anchored,
    inputs.cap,
  ).compactTo;
  return deeper < aimed.compactTo ? { budget: aimed, deeperCompactTo: deeper } : { budget: aimed };
}
