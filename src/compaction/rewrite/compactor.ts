/**
 * The compaction pipeline, cheapest tier first: collapse old tool results, summarize the fewest
 * oldest units that reach the target, clip a single message that still cannot fit. All tiers of one
 * run make one rewrite of the context, recorded as checkpoints.
 *
 * Failure semantics (DESIGN.md): a summarizer error, timeout, cancellation, empty reply or a result
 * that does not shrink the context leaves the context exactly as it was and records no checkpoint;
 * the result carries one clear error.
 */
import type {
  Checkpoint,
  CheckpointStrategy,
  CompactionOptions,
  ContextItem,
  Summarizer,
  SummaryRequest,
  SummaryResult,
  ToolSchema,
} from '../types';
import { SummarizerError } from '../types';
import type { Measurement, TokenMeter } from '../meter/meter';
import {
  splitRoom,
  notesFloor,
  summaryBudgets,
  thresholds,
  type RoomShares,
  type SummaryBudgets,
  type Thresholds,
} from '../plan/budget';
import {
  heldReasons,
  loneSummaryLimit,
  planCompaction,
  spanSummaryEstimate,
  type Plan,
  type Span,
} from '../plan/planner';
import type { CompactionResult, SmallSpans } from '../outcome';
import { anchoredBreakdown } from '../plan/anchored';
import { planClips } from '../plan/clip-plan';
import {
  applyPrepared,
  commitPrepared,
  coversOf,
  failed,
  keepApplied,
  notApplied,
  noteReplaced,
  type PreparedCompaction,
} from './commit';
import { scorecardInContext } from '../retention/scorecard';

import { callOf, collapseItem, describeCollapse } from './collapse';
import { collapsedOutputPointer } from '../summary/recall-pointer';
import { applyCheckpoint, newId } from '../context';
import { carriedRequests, collectRequests, removeRequestsSection } from '../summary/requests';
import { RULES_ROOM_TOKENS, standingRulesOf, standingRulesTokens } from '../summary/span-scan';
import { keptTokensOf } from '../plan/kept-tokens';
import { backfillIdentifiers, MAX_IDENTIFIER_LINES, SpanIdentifiers } from '../summary/identifiers/backfill';
import { carryIdentifiers } from '../summary/identifiers/carry-identifiers';
import { keepEarlierHoldings, SHORTER_HOLDINGS } from '../summary/earlier-holdings';
import { handLinesOf, keepHandLines } from '../summary/hand-lines';
import { actionsOf } from '../summary/ledger/actions';
import { movedPaths } from '../summary/ledger/ledger';
import { LineCounter } from '../../tokenizer/line-count';
import { finalizeSummary } from '../summary/summary-checks';
import { clipMessageToTokens } from '../clip';
import { isRecordedSummary, keepSummaryMark } from '../tool-outcomes';
import { clipSummaryMessage } from '../summary/summary-clip';
import { composeSummary, SUMMARY_FRAME_TOKENS } from '../summary/compose-summary';
import { pointerLine } from '../summary/recall-pointer';
import { summaryHeader } from '../summary/summary-header';
import { degradeToFit, summaryAcknowledgement } from './degrade';
import { systemAndToolsTokens, tokenHolders } from '../plan/holders';
import { renderRequestsSection, shortRequestsTokens, type RequestsSection } from '../summary/requests-section';
import { droppedFilesNote } from './reattach';
import { coverageNote, FirstPositions, firstPositionAt, placeCoverage, wholeCoverage } from '../summary/coverage';
import { maskSecretValues, spanSecretValues } from '../secret-values';

/** Everything one compaction needs. */
export interface CompactInput {
  items: readonly ContextItem[];
  tools?: readonly ToolSchema[];
  meter: TokenMeter;
  summarizer: Summarizer;
  options: CompactionOptions;
}

/** Default number of newest agent steps kept verbatim. */
export const DEFAULT_KEEP_RECENT_STEPS = 1;
/** Default bound on model calls per compaction (invariant 7). */
export const DEFAULT_MAX_SUMMARY_CALLS = 4;
/**
 * Characters allowed for identifiers appended to a summary (about 300 tokens at ~4 characters each);
 * more when the typed requests leave room (see {@link backfillChars}).
 */
export const IDENTIFIER_BACKFILL_CHARS = 1200;
/** Smallest budget for the typed requests of one summary, in tokens. */
export const MIN_REQUEST_TOKENS = 256;
/** Fewest tokens the requests section keeps when standing rules take its room (the first and newest, shortened). */
const MIN_RULES_REQUESTS_TOKENS = 64;
/**
 * Most share of a summary's room kept for its short requests and acknowledgements (see
 * `shortRequestsTokens`) when the room is tight: the rest stays for the rules and the notes.
 */
const SHORT_REQUESTS_SHARE = 0.6;
/** Smallest summary budget, in tokens: below this the notes say nothing useful. */
export const MIN_SUMMARY_TOKENS = 64;
/** A summary keeping more than this share of its span's tokens is not applied when other spans are. */
export const LOW_YIELD = 0.8;
/** Least share of the input budget a summary must free when the context cannot fit (see {@link minimumSaving}). */
export const MIN_SAVING_SHARE = 0.05;

/**
 * The span's secret values with `known` (`CompactionOptions.knownSecretValues`) added, longest first
 * as `maskSecretValues` needs them (a value that holds another is masked whole).
 */
function withKnownValues(values: string[], known: readonly string[] | undefined): string[] {
  if (!known?.length) return values;
  return [...new Set([...values, ...known])].sort((a, b) => b.length - a.length);
}

/**
 * Least tokens one rewrite (a summary of a span, the collapse of old tool results) must free when
 * the compaction cannot get the context under its input budget whatever it rewrites (the system
 * prompt and tool schemas alone are over it): half the room one compaction is meant to buy (trigger
 * less target, 0.8 to 0.5 of the budget by default), and never under {@link MIN_SAVING_SHARE} of the budget.
 *
 * Source: DESIGN.md, "Compaction pipeline, cheapest first": each rewrite invalidates the provider's
 * prompt cache from the first changed message on, so rewriting a little every time costs more than
 * not compacting (1.4x on a recorded 353-call session against 0.3x for compacting from 0.8 to 0.5):
 * "compact seldom and deep". A context that will not fit gains nothing from a summary of a few newer
 * messages, and loses the verbatim steps the agent works from; the outcome says instead which
 * messages keep it over the budget (`TokenHolders.oversized`). `th`: the compaction's thresholds, in tokens.
 */
export function minimumSaving(th: Pick<Thresholds, 'inputBudget' | 'triggerTokens' | 'targetTokens'>): number {
  const room = Math.floor((th.triggerTokens - th.targetTokens) / 2);
  return Math.max(room, Math.ceil(th.inputBudget * MIN_SAVING_SHARE));
}

/** Tokens kept from a notes budget for back-filled identifiers: a quarter, at most {@link IDENTIFIER_BACKFILL_CHARS} / 4. */
function backfillTokens(notesBudget: number): number {
  return Math.min(Math.floor(IDENTIFIER_BACKFILL_CHARS / 4), Math.floor(notesBudget / 4));
}

/** Notes budget, in tokens, that {@link IDENTIFIER_BACKFILL_CHARS} was set for (a 32k window's default). */
export const BACKFILL_REFERENCE_TOKENS = 4000;

/**
 * Characters the back-filled identifiers of one summary may take: {@link IDENTIFIER_BACKFILL_CHARS},
 * and when every typed request of the span is kept whole (they come first inside the target) and
 * the notes' budget (`notesBudget` tokens) is larger than {@link BACKFILL_REFERENCE_TOKENS}, as much
 * more as the budget is larger: a fixed allowance kept a smaller share of a span's identifiers the
 * larger the window, and the exact identifiers are what the agent looks up again after a compaction.
 * Only what the notes leave of their budget is ever used.
 */
export function backfillChars(notesBudget: number, requestsWhole: boolean): number {
  const scaled = Math.floor((IDENTIFIER_BACKFILL_CHARS * notesBudget) / BACKFILL_REFERENCE_TOKENS);
  return requestsWhole ? Math.max(IDENTIFIER_BACKFILL_CHARS, scaled) : IDENTIFIER_BACKFILL_CHARS;
}

/**
 * Computes a compaction of `input.items` without applying it. Returns either a prepared compaction
 * or a not-applied result saying why (below trigger, already small, nothing eligible, summarizer
 * failure). Never throws for summarizer failures; rethrows other errors.
 *
 * The tiers run in order, each on what the previous left: {@link collapseTier}, {@link summaryTier},
 * {@link clipTier}, then {@link degradeTier} when the context is still over the input budget.
 */
export async function prepareCompaction(input: CompactInput): Promise<PreparedCompaction | CompactionResult> {
  const startedAt = Date.now();
  const run = startRun(input);
  if ('deeper' in run) return prepareCompaction(run.deeper);
  if ('status' in run) return run;
  collapseTier(run);
  const summaryFailure = await summaryTier(run);
  if (summaryFailure) return summaryFailure;
  clipTier(run);
  // Clips are left out of this check, as they are of the tokens above.
  if (!run.hopeless && run.workTokens > run.th.inputBudget) {
    const degradeFailure = await degradeTier(run);
    if (degradeFailure) return degradeFailure;
  }
  return finishRun(run, startedAt);
}

/**
 * The checks before any tier runs and the plan they run on: a not-applied result when the
 * compaction is not needed, has nothing eligible, or (automatic) cannot get below its trigger; the
 * input again with a lower target when it may aim deeper (`deeperCompactTo`); else the run state.
 */
function startRun(input: CompactInput): TierRun | CompactionResult | { deeper: CompactInput } {
  const { items, tools, meter, options } = input;
  const th = thresholds(options.budget);
  const m = meter.measure(items, tools);
  const before = m.total;
  const unneeded = notNeeded(input, before, th);
  if (unneeded) return unneeded;
  const keepRecentSteps = options.keepRecentSteps ?? DEFAULT_KEEP_RECENT_STEPS;
  const budgets = summaryBudgets(th.targetTokens, { user: options.userBudget, summary: options.summaryBudget });
  const summaryTokens = options.approximateSummaryTokens ?? Math.max(MIN_SUMMARY_TOKENS, budgets.summaryTokens);
  // Typed requests are kept verbatim: the plan counts them as part of each summary.
  const keptPerItem = keptTokensOf(items, meter);
  // Room kept free below the target for files the caller re-attaches after the summary.
  const planTarget = Math.max(1, th.targetTokens - Math.max(0, Math.floor(options.reserveTokens ?? 0)));
  const plan = planCompaction(items, m.perItem, before, planTarget, {
    keepRecentSteps,
    summaryTokens,
    noCollapse: options.noCollapse,
    all: options.all,
    keptPerItem,
    keptCap: budgets.userTokens,
    // Continuing a recording aims at the target like an automatic run, and a summary the user edited
    // in the recording may alone fill it: then it is summarised again, shorter (a Compact over the
    // window gets the same from the degrade tiers, which keep clipping a summary by its sections).
    resummarizeOver: options.trigger === 'continue' ? loneSummaryLimit(summaryTokens, budgets.userTokens) : undefined,
  });
  // A compaction that calls the summarizer anyway may aim deeper (see `deeperCompactTo`).
  const deeper = options.deeperCompactTo;
  if (deeper !== undefined && deeper < options.budget.compactTo && plan.spans.length > 0) {
    return {
      deeper: {
        ...input,
        options: { ...options, budget: { ...options.budget, compactTo: deeper }, deeperCompactTo: undefined },
      },
    };
  }
  // A context over the input budget cannot be sent: the degrade tiers then run whatever the plan,
  // unless the system prompt and tool schemas alone are over it (nothing else can make room then).
  const overBudget = before > th.inputBudget;
  const hopeless = overBudget && systemAndToolsTokens(items, m.perItem, meter, tools) >= th.inputBudget;
  // Even then a message far over the budget by itself (a tool's huge output) is clipped: the request
  // is as small as it can be made, and the clip frees at least what any rewrite must (`minimumSaving`).
  const clips = planClips(items, m.perItem, plan, th.inputBudget, th.targetTokens).filter(
    (c) => !hopeless || m.perItem[c.index] - c.maxTokens >= minimumSaving(th),
  );
  if (plan.collapse.length === 0 && plan.spans.length === 0 && clips.length === 0 && !overBudget) {
    return notApplied(items, before, {
      kind: 'nothing-eligible',
      heldBy: heldReasons(items, plan),
    });
  }
  // An automatic compaction that cannot get below its own trigger would fire again on the next
  // model call and rewrite the context (and the provider's prompt cache) every turn: refuse it.
  // Checked before any summarizer call with summaries counted as free (a lower bound), and again
  // on the real result.
  const keptIn = (sp: { start: number; end: number }) => {
    let sum = 0;
    for (let i = sp.start; i < sp.end; i++) sum += keptPerItem[i];
    return Math.min(budgets.userTokens, sum);
  };
  const lowerBound =
    plan.estimatedAfter - plan.spans.reduce((s, sp) => s + spanSummaryEstimate(sp, summaryTokens, keptIn(sp)), 0);
  if (options.maxEstimatedAfter !== undefined && plan.estimatedAfter > options.maxEstimatedAfter && !overBudget) {
    return notApplied(items, before, {
      kind: 'does-not-fit',
      bestTokens: Math.round(plan.estimatedAfter),
      limitTokens: Math.round(options.maxEstimatedAfter),
      anchored: anchoredBreakdown(items, meter, tools, keepRecentSteps),
    });
  }
  const auto = options.trigger === 'auto' && clips.length === 0;
  // Refused only while the context still fits: a refusal over the budget leaves nothing sendable.
  if (auto && !overBudget && lowerBound >= th.triggerTokens) return cannotReach(input, before, lowerBound);
  const now = options.now ?? (() => new Date());
  return {
    input,
    m,
    th,
    plan,
    budgets,
    summaryTokens,
    keptPerItem,
    planTarget,
    lowerBound,
    keepRecentSteps,
    overBudget,
    hopeless,
    clips,
    auto,
    checkpoints: [],
    // Cannot get under the budget whatever is rewritten: the system prompt and tool schemas alone are
    // over it. (A context that fits but stays above the trigger is left to the trigger's own rules: a
    // compaction on request applies there, an automatic one refuses.)
    minSaving: hopeless ? minimumSaving(th) : 0,
    workTokens: before,
    calls: { left: Math.max(0, Math.floor(options.maxSummaryCalls ?? DEFAULT_MAX_SUMMARY_CALLS)) },
    newCheckpoint: (strategy, id = (options.newCheckpointId ?? newId)()) => ({
      id,
      time: now().toISOString(),
      trigger: options.trigger,
      strategy,
      replacedIds: [],
      replaced: [],
      inserted: [],
      summary: '',
      tokensBefore: 0,
      tokensAfter: 0,
      focus: options.focus,
    }),
  };
}

/** Not needed: below the trigger (unless forced), or already at the target (unless `all`). */
function notNeeded(input: CompactInput, before: number, th: Thresholds): CompactionResult | undefined {
  const { items, options } = input;
  if (!options.force && before < th.triggerTokens) {
    return notApplied(items, before, {
      kind: 'not-needed',
      why: 'below-trigger',
      tokens: before,
      limitTokens: th.triggerTokens,
    });
  }
  if (!options.all && before <= th.targetTokens) {
    return notApplied(items, before, {
      kind: 'not-needed',
      why: 'already-small',
      tokens: before,
      limitTokens: th.targetTokens,
    });
  }
  return undefined;
}

/** An automatic compaction refused: at best `after` tokens, not below its trigger. */
function cannotReach(input: CompactInput, before: number, after: number): CompactionResult {
  const { items, tools, meter, options } = input;
  const th = thresholds(options.budget);
  const keepRecentSteps = options.keepRecentSteps ?? DEFAULT_KEEP_RECENT_STEPS;
  return notApplied(items, before, {
    kind: 'does-not-fit',
    bestTokens: after,
    limitTokens: th.triggerTokens,
    anchored: anchoredBreakdown(items, meter, tools, keepRecentSteps),
  });
}

/**
 * The tiers' checkpoints as one prepared compaction, applied once on the items it was prepared on
 * (the checks of the commit: stale, no shrink, pairing), or why it is not: nothing could be
 * shortened, or an automatic compaction would stay at or above its trigger.
 */
function finishRun(run: TierRun, startedAt: number): PreparedCompaction | CompactionResult {
  const { items, tools, meter } = run.input;
  const { checkpoints, th, keepRecentSteps } = run;
  const before = run.m.total;
  if (checkpoints.length === 0) {
    return notApplied(items, before, {
      kind: 'does-not-fit',
      bestTokens: before,
      limitTokens: th.inputBudget,
      anchored: anchoredBreakdown(items, meter, tools, keepRecentSteps),
      holders: tokenHolders(items, meter, tools, keepRecentSteps, th.inputBudget),
      ...(run.smallSpans ? { smallSpans: run.smallSpans } : {}),
    });
  }
  const prepared: PreparedCompaction = {
    checkpoints,
    tokensBefore: before,
    tokensAfter: before,
    startedAt,
  };
  // Applied once here: the commit that follows on the same context uses this application.
  let trial = applyPrepared(items, prepared, meter, tools, before);
  if ('status' in trial) return trial;
  // What earlier summaries held, named beyond the budget, gives way when the result would stay at or
  // over the trigger: fitting the window comes first, so it is named in shorter forms, then left out
  // (the scorecard then names what was left out).
  while (trial.tokensAfter >= th.triggerTokens && checkpoints.map((cp) => thinnerHoldings(cp, false)).some(Boolean)) {
    trial = applyPrepared(items, prepared, meter, tools, before);
    if ('status' in trial) return trial;
  }
  // Left out only when that makes the result fit: a result over the trigger either way keeps them
  // named (a richer summary is not replaced by a thinner one for nothing).
  if (trial.tokensAfter >= th.triggerTokens) {
    const named = checkpoints.map((cp) => ({ cp, inserted: cp.inserted[0], summary: cp.summary }));
    if (checkpoints.map((cp) => thinnerHoldings(cp)).some(Boolean)) {
      const without = applyPrepared(items, prepared, meter, tools, before);
      if ('status' in without) return without;
      if (without.tokensAfter < th.triggerTokens) trial = without;
      else
        for (const n of named) {
          n.cp.inserted[0] = n.inserted;
          n.cp.summary = n.summary;
        }
    }
  }
  if (run.auto && !run.overBudget && trial.tokensAfter >= th.triggerTokens)
    return cannotReach(run.input, before, trial.tokensAfter);
  // Each checkpoint's scorecard, kept on the prepared checkpoint and on its applied copy.
  checkpoints.forEach((cp, k) => {
    // Scored with the items after the span, as its summarizer was given them (`SummaryRequest.context`).
    const card = scorecardInContext(cp, items, run.input.options.knownSecretValues);
    if (!card) return;
    const contradicted = contradictedBy.get(cp);
    // Failed commands quoted as the scorecard's other names are: masked like the summary.
    if (contradicted?.length) {
      const secrets = withKnownValues(spanSecretValues(cp.replaced), run.input.options.knownSecretValues);
      card.contradicted = contradicted.map((c) => maskSecretValues(c, secrets));
    }
    cp.retention = card;
    trial.checkpoints[k].retention = card;
  });
  prepared.tokensAfter = trial.tokensAfter;
  prepared.targetTokens = th.targetTokens;
  if (trial.tokensAfter > th.targetTokens) {
    prepared.anchored = anchoredBreakdown(trial.context, meter, tools, keepRecentSteps);
  }
  prepared.inputBudget = th.inputBudget;
  if (trial.tokensAfter > th.inputBudget)
    prepared.holders = tokenHolders(trial.context, meter, tools, keepRecentSteps, th.inputBudget);
  if (run.smallSpans) prepared.smallSpans = run.smallSpans;
  keepApplied(prepared, items, trial);
  prepared.preparedAt = Date.now();
  return prepared;
}

/**
 * The state one {@link prepareCompaction} run hands from tier to tier: its input, the measurement
 * and plan made at the start, and what the tiers have produced so far.
 */
interface TierRun {
  input: CompactInput;
  /** The meter's measurement of `input.items` at the start. */
  m: Measurement;
  th: Thresholds;
  plan: Plan;
  budgets: SummaryBudgets;
  /** Planned length of one summary's notes, in tokens. */
  summaryTokens: number;
  /** Tokens of each item a summary keeps verbatim (typed requests). */
  keptPerItem: readonly number[];
  /** The target less the room reserved for re-attached files, in tokens. */
  planTarget: number;
  /** Tokens the plan leaves in place, summaries counted as free, in tokens. */
  lowerBound: number;
  keepRecentSteps: number;
  /** The context is over the input budget: the degrade tier runs whatever the plan. */
  overBudget: boolean;
  /** Over the budget with the system prompt and tool schemas alone: nothing can make room. */
  hopeless: boolean;
  /** Single messages to clip (tier 3). */
  clips: ReturnType<typeof planClips>;
  /** An automatic compaction without clips: refused when it cannot get below its trigger. */
  auto: boolean;
  /** Checkpoints written so far, in the order they apply. */
  checkpoints: Checkpoint[];
  /**
   * Least tokens a rewrite must free (see {@link minimumSaving}) when the context cannot get under
   * its input budget whatever is rewritten; 0 when it can.
   */
  minSaving: number;
  /** Spans left as they were under `minSaving`. */
  smallSpans?: SmallSpans;
  /**
   * The context's tokens after each rewrite: the meter's total is a sum over messages, so the counts
   * of what a checkpoint removes and inserts give it without measuring the whole context again.
   */
  workTokens: number;
  /**
   * Model calls this compaction may still make: `maxSummaryCalls` less the calls its summaries made
   * so far. The limit holds for the whole compaction, every span and the degrade tier together.
   */
  calls: { left: number };
  /** An empty checkpoint of this run, with `id` or a new one. */
  newCheckpoint(strategy: CheckpointStrategy, id?: string): Checkpoint;
}

/** Tier 1: older tool results masked to one-line records (no model call). */
function collapseTier(run: TierRun): void {
  const { plan, m } = run;
  const { items, meter } = run.input;
  if (plan.collapse.length === 0) return;
  const cp = run.newCheckpoint('collapse');
  const calls: Array<{ name: string; arguments: string } | undefined> = [];
  let freed = 0;
  const positions = new FirstPositions(items);
  for (const i of plan.collapse) {
    const it = items[i];
    const call = callOf(items, i);
    calls.push(call);
    const pointer = collapsedOutputPointer(run.input.options.recallPointer, positions.at(i));
    const collapsed = collapseItem(it, call, cp.id, pointer);
    cp.replaced.push(it);
    cp.inserted.push(collapsed);
    freed += m.perItem[i] - meter.countMessage(collapsed.message);
  }
  // A context that cannot fit anyway keeps its tool results for a small saving (see `minimumSaving`).
  if (freed < run.minSaving) {
    noteSmallSpan(run, { start: plan.collapse[0], end: plan.collapse[plan.collapse.length - 1] + 1 }, freed);
    return;
  }
  run.workTokens -= freed;
  cp.summary = describeCollapse(
    `Collapsed ${plan.collapse.length} older tool result${plan.collapse.length === 1 ? '' : 's'} to one-line records`,
    calls,
  );
  run.checkpoints.push(cp);
}

/** What the summary tier prepares for one span before asking the summarizer (see {@link spanInput}). */
interface SpanInput {
  spanItems: ContextItem[];
  /** The span without stale re-attached files: what the summarizer sees. */
  content: ContextItem[];
  droppedFiles: string;
  requests: string[];
  userRequests: string[];
  covers: string[];
  header: string;
  /** The id of the checkpoint the summary will be written in (its pointer line names it). */
  checkpointId: string;
  /** The summary's last line: where the agent can look up what it replaced (recall-pointer.ts). */
  pointer: string | undefined;
  /** Most tokens the summary message may take. */
  limit: number;
  share: RoomShares;
  countText: (text: string) => number;
  section: RequestsSection;
  /** The notes keep the standing rules in their own section (see `renderRequestsSection`). */
  rulesElsewhere: boolean;
  /** Tokens for the notes (with back-filled identifiers). */
  spanBudget: number;
  request: SummaryRequest;
}

/**
 * Tokens the summaries of a run may use together: what the target leaves after everything that stays.
 * When what stays is at the target already (a system prompt and tool schemas larger than it), no
 * summary size reaches the target: the summaries then get their planned size within half the room
 * left below the trigger, rather than being squeezed to a few lines for no gain (the agent's findings,
 * commands and files would be lost while the context stays as large).
 */
function summariesShare(run: TierRun): number {
  const below = run.planTarget - run.lowerBound;
  const spans = run.plan.spans.length;
  if (below >= spans * MIN_SUMMARY_TOKENS * 2) return below;
  const planned = spans * (run.summaryTokens + run.budgets.userTokens);
  return Math.max(below, Math.min(planned, Math.floor((run.th.triggerTokens - run.lowerBound) / 2)));
}

/**
 * The summary request for span `span` and the budgets its summary is written to: its share of the
 * tokens the target leaves for summaries, never more than most of the span it replaces.
 */
function spanInput(run: TierRun, span: Span): SpanInput {
  const { items, tools, meter, options } = run.input;
  const { budgets, summaryTokens, m } = run;
  const spanTotal = Math.max(
    1,
    run.plan.spans.reduce((sum, sp) => sum + sp.tokens, 0),
  );
  const summaryShare = summariesShare(run);
  const spanItems = items.slice(span.start, span.end);
  // Files re-attached by an earlier compaction are stale copies: a new summary drops them (a live
  // session re-attaches current contents) and names them, so the summarizer never sees them.
  const content = spanItems.filter((i) => !i.attachedFile);
  const droppedFiles = droppedFilesNote(spanItems);
  const requests = collectRequests(content);
  const userRequests = requests;
  // A summary of summaries covers every older message: collected by a plain loop (flatMap was
  // slow on long replays, and spreading a span of 100k+ items into concat overflows the stack).
  const covers = coversOf(spanItems);
  const header = summaryHeader(covers.length);
  // The checkpoint's id is chosen now: the summary's last line names it (recall-pointer.ts).
  const checkpointId = (options.newCheckpointId ?? newId)();
  const pointer = pointerLine(options.recallPointer, checkpointId, firstPositionAt(items, span.start), covers.length);
  // What this summary may use: its share of the target left by what stays (the rest of the
  // context after the plan), never more than most of the span it replaces (it must shrink), less
  // the summary's own framing (its header, its pointer line and the message's overhead).
  const mustShrink = Math.floor(span.tokens * 0.8);
  const limit = Math.min(mustShrink, Math.floor(summaryShare * (span.tokens / spanTotal)));
  const room = limit - meter.countText(header) - (pointer ? meter.countText(pointer) + 1 : 0) - SUMMARY_FRAME_TOKENS;
  // A small room keeps the notes' floor (see `splitRoom`) before the requests' minimum: they are cut with a marker.
  const notesShare = { ...budgets, summaryTokens };
  // Summaries are counted many times as they are put together, from mostly the same lines.
  const lineCounter = new LineCounter((t) => meter.countText(t), meter.lineAdditive, meter.encoding);
  const countText = (t: string) => lineCounter.countLines(t);
  // The standing rules come before the requests in a tight room: every later summary reads them back
  // from this one (a summary of summaries), so a rule left out here would be gone from all of them,
  // while a request left out is kept beside the summary (`carriedRequests`) for a later one to show.
  // Their tokens, and room beside them for the current work, come out of the requests' share.
  const rulesTokens = standingRulesTokens(standingRulesOf(content, requests), countText);
  const rulesFloor = rulesTokens ? rulesTokens + RULES_ROOM_TOKENS : 0;
  // The short requests and approvals keep their room (up to SHORT_REQUESTS_SHARE of it) whatever a
  // long request or the messages kept after the summary take: the long ones are shortened first.
  const shortFloor = Math.min(
    Math.floor(room * SHORT_REQUESTS_SHARE),
    mustShrink,
    shortRequestsTokens(requests, countText, rulesTokens > 0),
  );
  const minRequests = Math.max(
    shortFloor,
    Math.min(
      MIN_REQUEST_TOKENS,
      mustShrink,
      room - notesFloor(room, notesShare, Math.min(summaryTokens, Math.ceil(span.tokens / 2))),
    ),
  );
  const share = splitRoom(room, notesShare, span.tokens, minRequests);
  const requestsRoom =
    rulesTokens && share.tight
      ? Math.max(MIN_RULES_REQUESTS_TOKENS, shortFloor, Math.min(share.requests - rulesTokens, room - rulesFloor))
      : share.requests;
  const section = renderRequestsSection(
    requests,
    requestsRoom,
    countText,
    meter.lineAdditive,
    meter.encoding,
    rulesTokens > 0,
  );
  const spanBudget = Math.max(
    MIN_SUMMARY_TOKENS,
    Math.min(share.notes, room - section.tokens),
    Math.min(share.notes, rulesFloor),
  );
  const request: SummaryRequest = {
    items: content,
    userRequests,
    // A quarter of the notes' budget is left for the identifiers back-filled below; a tight room keeps
    // nothing aside: the notes' own lines (the files changed) come first, identifiers get what is left.
    approximateSummaryTokens: Math.max(MIN_SUMMARY_TOKENS, spanBudget - (share.tight ? 0 : backfillTokens(spanBudget))),
    identifierReserveTokens: share.tight ? 0 : backfillTokens(spanBudget),
    maxCalls: run.calls.left,
    // The run's call allowance is one object per run: its identity names the run.
    compactionRun: run.calls,
    focus: options.focus,
    signal: options.signal,
    onDelta: options.onDelta,
    // The context as the agent last sent it (before this run's rewrites): a summarizer on the
    // session's own model can send it unchanged and hit the provider's prompt cache.
    context: { items, tools, start: span.start, end: span.end, tokens: run.m.total, itemTokens: m.perItem },
  };
  return {
    spanItems,
    content,
    droppedFiles,
    requests,
    userRequests,
    covers,
    header,
    checkpointId,
    pointer,
    limit,
    share,
    countText,
    section,
    rulesElsewhere: rulesTokens > 0,
    spanBudget,
    request,
  };
}

/** A summarizer failure as a not-applied result of the run. */
function summarizerFailure(run: TierRun, err: unknown): CompactionResult {
  const e =
    err instanceof SummarizerError
      ? err
      : new SummarizerError(`summarizer failed: ${(err as Error)?.message ?? String(err)}`, 'invalid', {
          cause: err,
        });
  return failed(run.input.items, run.m.total, e);
}

/**
 * Tier 2: the planned spans summarised, oldest first, until the real summaries reach the target
 * (the plan's summary sizes are estimates: later spans, newer history, then stay as they are,
 * which saves summarizer calls and keeps more detail). Returns a not-applied result on a summarizer
 * failure, an empty reply or a summary that does not shrink its span; undefined otherwise.
 */
async function summaryTier(run: TierRun): Promise<CompactionResult | undefined> {
  const { plan } = run;
  const { items, summarizer, options } = run.input;
  // Built when first needed: spans left after the target is reached are never read.
  const inputs: SpanInput[] = [];
  const inputOf = (k: number) => (inputs[k] ??= spanInput(run, plan.spans[k]));
  // Several spans go to the summarizer as one request where it can (one call, a part per span).
  const asked =
    summarizer.summarizeSpans && plan.spans.length > 1
      ? plan.spans
          .map((_, k) => inputOf(k))
          .filter((i) => i.content.length > 0)
          .map((i) => i.request)
      : [];
  const together =
    asked.length > 1 && summarizer.summarizeSpans && run.calls.left > 0 ? summarizer.summarizeSpans(asked) : undefined;
  together?.catch(() => undefined); // awaited in the loop below, where a failure is reported
  // Calls kept for the newer spans, which the plan expects to summarise too: when the limit cannot
  // cover every span, the oldest messages go without a model, not the newest.
  let kept: number[] | undefined;
  const keptAfter = (k: number): number =>
    summarizer.callsNeeded && k < plan.spans.length - 1
      ? (kept ??= callsKeptForLater(
          summarizer,
          plan.spans.map((_, j) => inputOf(j)),
        ))[k]
      : 0;
  for (const [k, span] of plan.spans.entries()) {
    if (k > 0 && !options.all && run.workTokens <= run.planTarget) break;
    if (options.signal?.aborted)
      return failed(items, run.m.total, new SummarizerError('compaction cancelled', 'aborted'));
    // Not even a summary of no tokens would free the minimum: the summarizer is not asked.
    if (span.tokens < run.minSaving) {
      noteSmallSpan(run, span, span.tokens);
      continue;
    }
    const input = inputOf(k);
    let result: SummaryResult;
    try {
      const all = input.content.length === 0 ? undefined : await together;
      result =
        input.content.length === 0
          ? {
              text: input.droppedFiles,
              model: summarizer.name,
              usage: { calls: 0, promptTokens: 0, completionTokens: 0 },
            }
          : all
            ? all[asked.indexOf(input.request)]
            : // The calls the earlier spans left: the limit holds for the whole compaction.
              await summarizer.summarize({ ...input.request, maxCalls: Math.max(0, run.calls.left - keptAfter(k)) });
    } catch (err) {
      return summarizerFailure(run, err);
    }
    run.calls.left = Math.max(0, run.calls.left - result.usage.calls);
    if (!result.text || !result.text.trim()) {
      const e = new SummarizerError('the summarizer returned an empty summary', 'empty');
      return failed(items, run.m.total, e);
    }
    const cp = summaryCheckpoint(run, span, input, result);
    // The meter's counts of the span, as read at the start (the same messages).
    let spanTokens = 0;
    for (let i = span.start; i < span.end; i++) spanTokens += run.m.perItem[i];
    let insertedTokens = cp.inserted.reduce((s, i) => s + run.input.meter.countMessage(i.message), 0);
    // What the earlier summaries held is named only where the summary still shortens its span: in
    // shorter forms first, then not at all.
    while (insertedTokens >= spanTokens && thinnerHoldings(cp))
      insertedTokens = cp.inserted.reduce((s, i) => s + run.input.meter.countMessage(i.message), 0);
    if (insertedTokens >= spanTokens) {
      const e = new SummarizerError(
        `the summary (${insertedTokens} tokens) is not shorter than what it replaces (${spanTokens} tokens)`,
        'no-shrink',
      );
      return failed(items, run.m.total, e);
    }
    // A span that shrinks by less than a fifth (already-collapsed records, an earlier summary) is left
    // as it is: rewriting it would break the provider's prompt cache for almost nothing.
    if (insertedTokens > spanTokens * LOW_YIELD && plan.spans.length > 1) continue;
    // A context that cannot fit anyway is not rewritten for a small saving (see `minimumSaving`).
    if (spanTokens - insertedTokens < run.minSaving) {
      noteSmallSpan(run, span, spanTokens - insertedTokens);
      continue;
    }
    noteReplaced(cp, run.input.meter, spanTokens, input.covers);
    run.checkpoints.push(cp);
    run.workTokens += insertedTokens - spanTokens;
  }
  return undefined;
}

/** Records `span` as left as it was, its summary freeing `freed` tokens (at most), under `run.minSaving`. */
function noteSmallSpan(run: TierRun, span: Pick<Span, 'start' | 'end'>, freed: number): void {
  const { items } = run.input;
  const first = firstPositionAt(items, span.start);
  const last = firstPositionAt(items, span.end) - 1;
  const s = run.smallSpans;
  run.smallSpans = s
    ? {
        ...s,
        spans: s.spans + 1,
        first: Math.min(s.first, first),
        last: Math.max(s.last, last),
        tokens: s.tokens + freed,
      }
    : { spans: 1, first, last, tokens: freed, minTokens: run.minSaving };
}

/**
 * For each span, the model calls the spans after it need (0 for the last, and for summarizers that
 * make no model call), from the summarizer's own estimate before any call. A span whose estimate
 * fails counts 0: its summary reports the failure when it runs.
 */
function callsKeptForLater(summarizer: Summarizer, inputs: readonly SpanInput[]): number[] {
  const needs = inputs.map((input) => {
    if (!summarizer.callsNeeded || input.content.length === 0) return 0;
    try {
      return summarizer.callsNeeded(input.request)?.needed ?? 0;
    } catch {
      return 0;
    }
  });
  const kept = needs.map(() => 0);
  for (let k = needs.length - 2; k >= 0; k--) kept[k] = kept[k + 1] + needs[k + 1];
  return kept;
}

/**
 * Checkpoints whose summary names what the earlier summaries of its span held beyond its budget,
 * with the summary texts that name it in shorter forms, shortest last, then without that part.
 */
const heldEarlier = new WeakMap<Checkpoint, Array<{ summary: string; content: string }>>();

/**
 * Puts back `cp`'s summary with what its span's earlier summaries held beyond its budget in the
 * next shorter form (see `keepEarlierHoldings`), the last time without it (the compaction would not
 * fit otherwise); false when it named nothing beyond. Its scorecard then names what was left out.
 */
function thinnerHoldings(cp: Checkpoint, toNone = true): boolean {
  const forms = heldEarlier.get(cp);
  // The last form names nothing beyond the budget: taken only when asked for (`toNone`).
  if (!toNone && forms?.length === 1) return false;
  const next = forms?.shift();
  if (next === undefined) return false;
  if (forms!.length === 0) heldEarlier.delete(cp);
  cp.inserted[0] = { ...cp.inserted[0], message: { role: 'user', content: next.content } };
  cp.summary = next.summary;
  return true;
}

/**
 * Open failures a model's summary contradicted by saying the work is done (`finalizeSummary`), per
 * checkpoint: its scorecard flags them.
 */
const contradictedBy = new WeakMap<Checkpoint, string[]>();

/**
 * Tokens the summary of `input` has beside its notes (`notesTokens`) and every request of its span
 * whole (counted by `meter`'s encoding), within its limit (its header, pointer line and framing counted): what identifier lists may
 * take when the requests section had to shorten or leave out requests. The typed requests, the
 * latest one included, come before lists of names (README, "What a summary keeps"): a name left out
 * is counted and can be looked up again, a request cut short loses the person's words. 0 when there
 * is no such room.
 */
function roomBesideWholeRequests(input: SpanInput, notesTokens: number, meter: TokenMeter): number {
  const { requests, header, pointer, limit, countText } = input;
  const whole = renderRequestsSection(
    requests,
    Number.MAX_SAFE_INTEGER,
    countText,
    meter.lineAdditive,
    meter.encoding,
    input.rulesElsewhere,
  ).tokens;
  const frame = countText(header) + SUMMARY_FRAME_TOKENS + (pointer ? countText(pointer) + 1 : 0);
  return Math.max(0, limit - frame - notesTokens - whole - 4);
}

/**
 * The checkpoint of one span's summary: the summarizer's notes checked (a model's), identifiers
 * back-filled within the notes' budget, composed with the verbatim requests under its header.
 */
function summaryCheckpoint(run: TierRun, span: Span, input: SpanInput, result: SummaryResult): Checkpoint {
  const { items, summarizer, meter, options } = run.input;
  const { spanItems, content, droppedFiles, requests, userRequests, covers, header, limit, share, countText } = input;
  const { spanBudget } = input;
  // A model's notes get the checks the extractive notes do not need: invented user quotes removed,
  // per-call outcomes, latest task list and verification result appended (they win over claims).
  // Its requests section is replaced by the product's verbatim one: requests the model left out or
  // reworded are carried forward all the same.
  // A fallback to the extractive summarizer, or a span the call limit left no call for, had no model.
  const isModel = summarizer.name !== 'extractive' && !result.coverage?.parts.every((p) => p.writer === 'extractive');
  const missingFromModel = isModel ? requests.filter((r) => !result.text.includes(r)).length : undefined;
  const finalized = isModel
    ? finalizeSummary(result.text.trim(), content, { userRequests, maxAppendixChars: spanBudget * 2 })
    : undefined;
  const checked = finalized ? removeRequestsSection(finalized.text) : result.text.trim();
  // Identifiers appended get what the notes left of their budget (about 4 characters a token),
  // each under a heading that says where it came from.
  const moved = movedPaths(actionsOf(content));
  const checkedTokens = countText(checked);
  const requestsWhole = input.section.shortened === 0 && input.section.omitted === 0;
  let allowChars = Math.min(
    backfillChars(spanBudget, requestsWhole),
    Math.max(0, spanBudget - checkedTokens) * 4,
    requestsWhole ? Infinity : roomBesideWholeRequests(input, checkedTokens, meter) * 4,
  );
  const sources = new SpanIdentifiers(content);
  // Lists shrunk for the requests say how many identifiers they left out.
  const backfillOf = (chars: number) =>
    backfillIdentifiers(checked, content, chars, moved, sources, MAX_IDENTIFIER_LINES, !requestsWhole);
  let backfill = backfillOf(allowChars);
  // Paths and ids run denser than 4 characters a token: scale the characters down to the tokens left.
  for (
    let k = 0, t = countText(backfill.text);
    k < 3 && t > Math.max(spanBudget, checkedTokens) && allowChars > 0;
    k++, t = countText(backfill.text)
  ) {
    allowChars = Math.floor((allowChars * Math.max(0, spanBudget - checkedTokens)) / (t - checkedTokens));
    backfill = backfillOf(allowChars);
  }
  let backfilled = backfill.text;
  // What the allowance leaves goes to the identifiers an earlier summary in the span kept.
  const carried = carryIdentifiers(
    backfilled,
    content,
    allowChars - (backfilled.length - checked.length),
    MAX_IDENTIFIER_LINES - backfill.added.length,
  );
  if (carried !== backfilled && countText(carried) <= Math.max(spanBudget, checkedTokens)) backfilled = carried;
  const withFiles = droppedFiles && content.length > 0 ? `${backfilled}\n\n${droppedFiles}` : backfilled;
  // Every replaced message is covered (invariant 7); the summary says which part had no model.
  // Placed where the span starts in the conversation, so the summaries' ranges never overlap.
  const coverage = placeCoverage(
    result.coverage ??
      wholeCoverage(covers.length, result.model === 'extractive' ? 'extractive' : 'model', result.usage.calls),
    firstPositionAt(items, span.start),
    options.maxSummaryCalls ?? DEFAULT_MAX_SUMMARY_CALLS,
  );
  const note = coverageNote(coverage);
  const notes = note ? `${note}\n\n${withFiles}` : withFiles;
  const composed = composeSummary({
    header,
    notes,
    requests,
    section: input.section,
    limit,
    minRequests: share.min,
    countText,
    lineAdditive: meter.lineAdditive,
    encoding: meter.encoding,
    rulesElsewhere: input.rulesElsewhere,
    footer: input.pointer,
    secretValues: withKnownValues(spanSecretValues(spanItems), options.knownSecretValues),
  });
  const { section } = composed;
  // Lines the user added by hand to an earlier summary of the span are kept whole, whatever the
  // budget: no summarizer can write them again from the messages.
  const base = keepHandLines(composed.text, spanItems);
  const handLines = handLinesOf(spanItems);
  // An earlier summary's files, commits and root causes stay named beyond the budget, as long as the
  // compaction still fits (see finishRun): a richer summary is not replaced by a thinner one.
  const text = keepEarlierHoldings(base, spanItems);
  const cp = run.newCheckpoint(isModel ? 'summary' : 'extractive', input.checkpointId);
  if (text !== base) {
    // The shorter forms, then none: tried in turn when the compaction would not fit (`thinnerHoldings`).
    const forms = Array.from({ length: SHORTER_HOLDINGS }, (_, k) =>
      keepEarlierHoldings(base, spanItems, k + 1),
    ).filter((t, k, all) => t !== text && t !== base && t !== all[k - 1]);
    heldEarlier.set(
      cp,
      [...forms, base].map((summary) => ({ summary, content: `${header}\n\n${summary}` })),
    );
  }
  if (finalized?.contradicted.length) contradictedBy.set(cp, finalized.contradicted);
  const keptBeside = carriedRequests(requests, section);
  const summaryItem: ContextItem = {
    id: `${cp.id}~s`,
    kind: 'summary',
    message: { role: 'user', content: `${header}\n\n${text}` },
    covers,
    checkpointId: cp.id,
    ...(keptBeside ? { requests: keptBeside } : {}),
    ...(handLines.length ? { handLines } : {}),
  };
  cp.replaced = spanItems;
  cp.inserted = [summaryItem];
  const next = items[span.end];
  if (options.summaryAsPair && next && next.message.role !== 'assistant')
    cp.inserted.push(summaryAcknowledgement(cp.id));
  cp.summary = text;
  cp.requests = {
    whole: section.whole,
    shortened: section.shortened,
    omitted: section.omitted,
    ...(missingFromModel !== undefined ? { missingFromModel } : {}),
  };
  cp.summarizerModel = result.model;
  cp.usage = result.usage;
  cp.coverage = coverage;
  return cp;
}

/** Tier 3: the middle of each single message too large for the context window clipped, with a marker. */
function clipTier(run: TierRun): void {
  const { items, meter } = run.input;
  const { clips } = run;
  if (clips.length === 0) return;
  const cp = run.newCheckpoint('clip');
  for (const { index, maxTokens } of clips) {
    const it = items[index];
    // A summary (this product's, one read back from a file, an agent's own) keeps its headings and
    // its typed requests: it is clipped by sections, never in its middle as a whole.
    const summary =
      it.kind === 'summary' || isRecordedSummary(it.message)
        ? clipSummaryMessage(
            it.message,
            maxTokens,
            (m) => meter.countMessage(m),
            (t) => meter.countText(t),
          )
        : undefined;
    const message =
      summary ??
      clipMessageToTokens(
        it.message,
        maxTokens,
        (m) => meter.countMessage(m),
        (t) => meter.countText(t),
      );
    if (message === it.message) continue;
    keepSummaryMark(it.message, message);
    cp.replaced.push(it);
    cp.inserted.push({ id: `${it.id}~k`, kind: 'clipped', message, covers: [...it.covers], checkpointId: cp.id });
  }
  cp.summary = `Clipped the middle of ${cp.replaced.length} message${cp.replaced.length === 1 ? '' : 's'} too large for the context window.`;
  if (cp.replaced.length > 0) run.checkpoints.push(cp);
}

/**
 * Tier 4, only while the context is still over the input budget: what is normally kept is
 * shortened (see degrade.ts), down to just below the trigger so the next model call does not
 * compact again at once. Returns a not-applied result on a summarizer failure.
 */
async function degradeTier(run: TierRun): Promise<CompactionResult | undefined> {
  const { items, tools, meter, summarizer, options } = run.input;
  const work = run.checkpoints.reduce((acc, cp) => applyCheckpoint(acc, cp), [...items]);
  const degraded = await degradeToFit({
    items: work,
    tools,
    meter,
    summarizer,
    options,
    keepRecentSteps: run.keepRecentSteps,
    goal: run.th.triggerTokens - 1,
    userTokens: run.budgets.userTokens,
    newCheckpoint: (strategy) => run.newCheckpoint(strategy),
    header: summaryHeader,
    calls: run.calls,
  });
  if (degraded.error) return failed(items, run.m.total, degraded.error);
  for (const cp of degraded.checkpoints) run.checkpoints.push(cp);
  return undefined;
}

/** What a compaction would cost in summarizer calls, before any call (see {@link estimateSummaryCalls}). */
export interface CallEstimate {
  /** Spans the plan summarises. */
  spans: number;
  /** Model calls the summaries need without the limit, all spans together. */
  needed: number;
  /** The call limit of the whole compaction (`maxSummaryCalls`). */
  limit: number;
  /** Calls needed beyond the limit (0 within it): that many batches, the oldest, would be written without a model. */
  overLimit: number;
}

/**
 * The summarizer calls the compaction of `input` would make, from the same checks and plan as
 * {@link prepareCompaction}, without calling the summarizer: every planned span summarised, each
 * as its own request (several spans that fit one request take fewer). Undefined when no summary
 * would be written or the summarizer makes no model call (no `callsNeeded`), so nothing is costly.
 *
 * @throws SummarizerError (`overflow`) when the summarizer's window cannot hold one batch.
 */
export function estimateSummaryCalls(input: CompactInput): CallEstimate | undefined {
  const estimateOf = input.summarizer.callsNeeded?.bind(input.summarizer);
  if (!estimateOf) return undefined;
  let run = startRun(input);
  while ('deeper' in run) run = startRun(run.deeper);
  if ('status' in run || run.plan.spans.length === 0) return undefined;
  const limit = run.calls.left;
  const estimate: CallEstimate = { spans: 0, needed: 0, limit, overLimit: 0 };
  for (const span of run.plan.spans) {
    const { request, content } = spanInput(run, span);
    if (content.length === 0) continue;
    const calls = estimateOf(request);
    if (!calls) return undefined;
    estimate.spans++;
    estimate.needed += calls.needed;
  }
  estimate.overLimit = Math.max(0, estimate.needed - limit);
  return estimate.spans > 0 ? estimate : undefined;
}

/** Runs a whole compaction (prepare, then commit on the same items). See {@link prepareCompaction}. */
export async function compact(input: CompactInput): Promise<CompactionResult> {
  const prepared = await prepareCompaction(input);
  if ('status' in prepared) return prepared;
  return commitPrepared(input.items, prepared, input.meter, input.tools);
}
