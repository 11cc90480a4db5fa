/**
 * Decides when and how the context service compacts, around the pure core in `src/compaction`:
 *
 * - single flight: concurrent requests share one run and yield one checkpoint;
 * - safe points only: the owner calls {@link Compactions.atSafePoint} before each model call, when
 *   every tool call of the last step is answered; manual requests made while a step runs
 *   are queued until then;
 * - hysteresis: automatic compaction fires at `compactAt` and aims at `compactTo`; the
 *   {@link CompactionGuard} allows one automatic run per model call, backs off after failures and
 *   pauses on thrashing;
 * - prepared ahead: when the meter passes `compactAt − margin` and the next model call may reach the
 *   threshold, the summary of the span that will be replaced is computed in the background so that
 *   at the threshold it applies without waiting; it is discarded when the context was rewritten in
 *   between (stale);
 * - reachable: an automatic run whose never-summarised part fills the target aims just above it
 *   (./reachable-target);
 * - atomic: cancel and timeout abort the run and leave the context and the store unchanged.
 */
import { estimateSummaryCalls, type CallEstimate } from '../../compaction/rewrite/compactor';
import { ExtractiveSummarizer } from '../../compaction/summary/extractive';
import type { ManualRequest } from './manual-queue';
import type { BudgetConfig, CheckpointTrigger, ContextItem } from '../../compaction/types';
import { thresholds } from '../../compaction/plan/budget';
import { prepareOffThread } from './worker/runner';
import { applyReattach, planReattach, reattachFiles } from './reattach-step';
import { PrepareAhead, preparedCeiling } from './prepare-ahead';
import { mayCompactRestored } from '../session/restored-overflow';
import { automaticAim } from './landing';
import { anchoredBreakdown, anchoredTokens } from '../../compaction/plan/anchored';
import { handSectionLines } from '../../compaction/summary/hand-lines';
import type { ContinueFacts } from './continue-facts';
import { describeFixedOverBudget, systemAndToolsTokens } from '../../compaction/plan/holders';
import { ManualQueue } from './manual-queue';
import {
  describeOutcome,
  type ServiceCompactionStatus,
  type CompactOutcomeStatus,
  type CompactOutcome,
  notApplied,
  outcomeOf,
  runFailure,
} from './outcome';
import type { CompactionStatus, CompactionResult } from '../../compaction/outcome';
import { describeCompaction } from '../../compaction/outcome-text';
import type { CompactionHost, CompactionsOptions, CompactionStats } from './compaction-host';

import { CompactionGuard, THRASH_ADVICE } from '../../compaction/rewrite/guard';
import { evictImages } from './image-eviction';
import type { ContextOverflow } from '../../models/context-errors';
import type { PreparedCompaction } from '../../compaction/rewrite/commit';
import type { CheckpointRecord, CompactionPreview } from '../records';
import { commitPrepared } from '../../compaction/rewrite/commit';
import type { CompactionProgress } from './worker/session-worker';
import { raceAbort } from './race-abort';
import { editedTokensAfter, emptyEditedSummary, previewOf, withEditedSummaries } from './preview';
import { MANUAL_PLAN_OPTIONS } from '../../compaction/plan/planner';

/**
 * The plan of a manual compaction: run whatever the level and summarise everything eligible (the
 * focus only matters to a summary), rather than stopping at the collapse tier at the target.
 */
const MANUAL_PLAN = { force: true, ...MANUAL_PLAN_OPTIONS } as const;

/**
 * The plan of the compaction that fits a recording continued in a new task: the fewest oldest units
 * that reach `compactTo`, as an automatic compaction takes them, so the new task keeps as much of
 * the recording verbatim as the target allows (summarising everything eligible, as a manual run
 * does, would land far below it). No collapse tier, as in a manual run: the summarizer calls asked
 * for before continuing are estimated for summaries alone.
 */
const CONTINUE_PLAN = { force: true, noCollapse: true } as const;

/** The plan of a compaction the user started (`manual`) or that continuing a recording needs (`continue`). */
function requestedPlan(trigger: 'manual' | 'continue'): { force: true; all?: true; noCollapse: true } {
  return trigger === 'continue' ? CONTINUE_PLAN : MANUAL_PLAN;
}

/**
 * Ids of the summary items `checkpoints` inserted with a text the user edited by hand before
 * applying (`editedByHand`), leaving out restored checkpoints (their summaries left the context).
 */
export function editedSummaryIds(
  checkpoints: readonly Pick<CheckpointRecord, 'editedByHand' | 'restored' | 'inserted'>[],
): Set<string> {
  const ids = new Set<string>();
  for (const c of checkpoints)
    if (c.editedByHand && !c.restored) for (const item of c.inserted) if (item.kind === 'summary') ids.add(item.id);
  return ids;
}

/** The compaction coordinator of one context service. */
export class Compactions {
  readonly stats: CompactionStats = {
    automatic: 0,
    manual: 0,
    preparedUsed: 0,
    preparedDiscarded: 0,
    summarizerRuns: 0,
    failures: 0,
  };
  readonly guard = new CompactionGuard();
  private inFlight: Promise<CompactOutcome> | undefined;
  private readonly queue = new ManualQueue();
  private preview:
    { version: number; length: number; prepared: PreparedCompaction; view: CompactionPreview } | undefined;
  private stuck: string | undefined;
  /** Aborts every run in progress (service cancel/dispose). */
  private lifetime = new AbortController();
  private readonly ahead: PrepareAhead;

  constructor(
    private readonly host: CompactionHost,
    private readonly options: CompactionsOptions,
  ) {
    // Summaries prepared ahead feed automatic compaction: they see restored messages as kept out too.
    this.ahead = new PrepareAhead(
      { ...host, items: () => this.autoItems() },
      options,
      this.stats,
      this.guard,
      () => this.lifetime.signal,
    );
  }

  /**
   * The active context as automatic compaction sees it: messages a restore brought back are pinned,
   * so the next automatic compaction does not silently undo the restore. The pins are not stored
   * (the service re-applies the user's own pins on commit).
   */
  private autoItems(): readonly ContextItem[] {
    const items = this.host.items();
    const ids = this.host.restoredIds?.();
    if (!ids || ids.size === 0) return items;
    return items.map((it) => (!it.pinned && it.covers.some((id) => ids.has(id)) ? { ...it, pinned: true } : it));
  }

  /**
   * The active context as the compaction on continuing a recording sees it: the summaries the user
   * edited by hand are kept as written (pinned for this run; the edited text is what the user chose),
   * unless with what is never summarised they would fill the compaction target: the run could not
   * reach it, and the new task could start over the window (then they are summarised again, as any
   * earlier summary).
   */
  private continueItems(): readonly ContextItem[] {
    return this.continuePlan().items;
  }

  /** {@link continueItems}, and whether the edited summaries are kept as written (pinned) in it. */
  private continuePlan(): { items: readonly ContextItem[]; editedKept: boolean } {
    const items = this.host.items();
    const ids = this.host.editedSummaryIds?.();
    if (!ids || ids.size === 0) return { items, editedKept: false };
    const pinned = items.map((it) => (!it.pinned && ids.has(it.id) ? { ...it, pinned: true } : it));
    const fixed = anchoredTokens(pinned, this.host.meter, this.host.tools(), this.host.keepRecentSteps);
    const editedKept = fixed < thresholds(this.host.budget).targetTokens;
    return { items: editedKept ? pinned : items, editedKept };
  }

  /**
   * The facts of a Continue in a New Task run measured before it (see {@link ContinueFacts}); the
   * caller adds what the run did with {@link continueFactsAfter}.
   */
  private continueFactsBefore(): ContinueFacts {
    const items = this.host.items();
    const tools = this.host.tools();
    const ids = this.host.editedSummaryIds?.() ?? new Set<string>();
    const perItem = this.host.meter.measure(items, tools).perItem;
    let count = 0;
    let tokens = 0;
    items.forEach((it, i) => {
      if (!ids.has(it.id) || it.pinned) return;
      count++;
      tokens += perItem[i];
    });
    const present = items.filter((it) => ids.has(it.id)).length;
    return {
      targetTokens: thresholds(this.host.budget).targetTokens,
      tokensAfter: this.measure(),
      anchored: anchoredBreakdown(items, this.host.meter, tools, this.host.keepRecentSteps),
      edited: { count, tokens },
      editedKept: this.continuePlan().editedKept,
      resummarised: 0,
      summarisedBefore: ids.size - present,
      handLines: 0,
    };
  }

  /** `before` completed with what the run did: `outcome`'s tokens, the edited summaries it replaced, the hand lines it carried. */
  private continueFactsAfter(
    before: ContinueFacts,
    outcome: CompactOutcome,
    editedBefore: ReadonlySet<string>,
  ): ContinueFacts {
    if (outcome.checkpoints.length === 0) return { ...before, tokensAfter: outcome.tokensAfter };
    const now = new Set(this.host.items().map((it) => it.id));
    const resummarised = [...editedBefore].filter((id) => !now.has(id)).length;
    const hand = outcome.checkpoints
      .flatMap((c) => c.inserted)
      .filter((it) => it.kind === 'summary' && now.has(it.id))
      .flatMap((it) => handSectionLines(typeof it.message.content === 'string' ? it.message.content : ''));
    return {
      ...before,
      tokensAfter: outcome.tokensAfter,
      resummarised,
      handLines: hand.length ? this.host.meter.countText(hand.join('\n')) : 0,
    };
  }

  /** The context a run of `trigger` plans over (see {@link autoItems}, {@link continueItems}). */
  private itemsFor(trigger: CheckpointTrigger): readonly ContextItem[] {
    return trigger === 'auto' ? this.autoItems() : trigger === 'continue' ? this.continueItems() : this.host.items();
  }

  /** See {@link mayCompactRestored}. */
  private mayCompactRestored(used: number, inputBudget: number, providerRefused: boolean): Promise<boolean> {
    return mayCompactRestored(this.host, used, inputBudget, providerRefused);
  }

  /** True while a compaction run (not a background preparation) is in progress. */
  get busy(): boolean {
    return this.inFlight !== undefined;
  }

  /** The pending preview, if any. */
  get currentPreview(): CompactionPreview | undefined {
    return this.preview?.view;
  }

  /** Queues a manual request until the next safe point; resolves when it has run there. */
  enqueue(request: ManualRequest & { signal?: AbortSignal }): Promise<CompactOutcome> {
    return this.queue.add(request);
  }

  /**
   * The safe point: every tool call is answered and no reply is streaming. Runs queued manual
   * requests (all queued requests share one run), then the automatic check.
   * @param auto false at the end of a task, where only queued requests run.
   */
  async atSafePoint(signal: AbortSignal, auto = true): Promise<void> {
    await this.queue.drain(
      (request, queuedSignal) => this.manual(request, queuedSignal),
      () => this.measure(),
    );
    if (auto && !signal.aborted) {
      const th = thresholds(this.host.budget);
      this.guard.modelCallStarted();
      this.guard.meterReading(this.measure(), th.triggerTokens);
      await this.automatic(signal);
    }
  }

  /** Resolves queued requests as not applied (task ended without a safe point, or disposal). */
  flushQueue(status: ServiceCompactionStatus): void {
    this.queue.flush(status, this.measure());
  }

  /** A manual compaction now (the caller made sure this is a safe point). Single flight. */
  manual(request: ManualRequest, signal?: AbortSignal): Promise<CompactOutcome> {
    return this.singleFlight(() => this.runManual(request, signal));
  }

  /**
   * Applies the pending preview exactly as it was shown (its summaries with the user's edits, its
   * re-attached files as read for it), or nothing: a context rewritten or grown since the preview
   * was made leaves it unapplied, and the outcome says so. A summary edited to nothing (whitespace
   * only) is refused with the preview kept pending (`empty-summary`).
   */
  applyPreview(edited?: readonly (string | undefined)[]): Promise<CompactOutcome> {
    return this.singleFlight(async () => {
      const pending = this.preview;
      if (!pending) return notApplied({ kind: 'no-preview' }, this.measure());
      // Refused before anything else, the preview kept: the user can still write the summary.
      const empty = emptyEditedSummary(edited);
      if (empty !== undefined) {
        const summaries = pending.view.summaries;
        const messages = summaries[empty]?.messages ?? 0;
        return notApplied(
          { kind: 'empty-summary', summary: empty + 1, of: summaries.length, messages },
          this.measure(),
        );
      }
      this.preview = undefined;
      if (pending.version !== this.host.version() || pending.length !== this.host.items().length) {
        return notApplied({ kind: 'rewritten', during: 'preview' }, this.measure());
      }
      const prepared =
        edited === undefined ? pending.prepared : withEditedSummaries(pending.prepared, edited, this.host.items());
      const result = commitPrepared(this.host.items(), prepared, this.host.meter, this.host.tools());
      return this.finish(result, 'manual');
    });
  }

  /**
   * Tokens after applying the pending preview with `edited` (as {@link applyPreview} takes it), counted
   * exactly; undefined without a pending preview.
   */
  previewTokensAfter(edited: readonly (string | undefined)[]): number | undefined {
    const pending = this.preview;
    if (!pending) return undefined;
    return editedTokensAfter(pending.prepared, edited, (message) => this.host.meter.countMessage(message));
  }

  /** Drops the pending preview. */
  discardPreview(): void {
    this.preview = undefined;
  }

  /** Forgets prepared summaries (the context was rewritten or replaced). */
  invalidate(): void {
    this.ahead.discardReady();
    this.ahead.stop('context rewritten');
    // A pending preview is the service's to discard (it says why); applying one left over would
    // report it stale (its version no longer matches).
  }

  /** Aborts runs and preparation in progress; queued requests resolve as not applied. */
  cancel(): void {
    this.lifetime.abort(new Error('cancelled'));
    this.lifetime = new AbortController();
    this.ahead.stop('cancelled');
    this.flushQueue({ kind: 'cancelled' });
  }

  /** Cancels everything and stops the compaction worker (service dispose). */
  dispose(): void {
    this.cancel();
    this.options.worker?.dispose();
  }

  /** Waits for background preparation to settle (tests and orderly shutdown). */
  async idle(): Promise<void> {
    await this.ahead.preparing?.promise;
    await this.inFlight?.catch(() => undefined);
  }

  private measure(): number {
    return this.host.used();
  }

  private singleFlight(run: () => Promise<CompactOutcome>): Promise<CompactOutcome> {
    if (this.inFlight) return this.inFlight;
    const promise = run().finally(() => {
      if (this.inFlight === promise) this.inFlight = undefined;
    });
    this.inFlight = promise;
    return promise;
  }

  /**
   * The automatic check before a model call. Over the trigger it compacts when the guard allows; a
   * prompt over the input budget (what fits the window beside the reserved output) is compacted
   * whatever the guard says, since sending it would overflow the window, and when it still does not
   * fit afterwards the task stops: throws an error naming the figures, and nothing is sent.
   * Messages a restore brought back are compacted only once the user agreed (see
   * {@link mayCompactRestored}); declined, throws. Agreeing ends a pause of automatic compaction.
   */
  private async automatic(signal: AbortSignal): Promise<void> {
    if (this.inFlight) {
      await this.inFlight;
      return;
    }
    evictImages(this.host, this.options.maxImages);
    const th = thresholds(this.host.budget);
    const used = this.measure();
    if (used < th.triggerTokens) {
      this.ahead.maybeStart(used, th.base, th.triggerTokens);
      return;
    }
    const restoredBefore = this.host.restoredIds?.().size ?? 0;
    if (!(await this.mayCompactRestored(used, th.inputBudget, false))) {
      throw new Error(
        `The restored messages do not fit the context window (${tokens(used)} of ${tokens(th.inputBudget)} tokens) and were not compacted again. Run Compact Conversation to compact them, restore fewer, or use a model with a larger window.`,
      );
    }
    // The user's explicit choice overrides a pause of automatic compaction.
    if (restoredBefore > 0 && (this.host.restoredIds?.().size ?? 0) === 0) this.guard.resume();
    const overBudget = used > th.inputBudget;
    const allowed = this.guard.mayAutoCompact();
    if (!allowed.allowed && !overBudget) {
      this.host.log('warn', `automatic compaction skipped: ${allowed.reason}`);
      return;
    }
    if (!allowed.allowed)
      this.host.log(
        'warn',
        `compacting although ${allowed.reason}: the next request would carry ${tokens(used)} prompt tokens; ${tokens(th.inputBudget)} fit`,
      );
    await this.singleFlight(() => this.runAutomatic(signal, th.triggerTokens));
    const after = this.measure();
    if (after > th.inputBudget) {
      // The system prompt and tool schemas alone over the budget: said as such, with the figures,
      // since no compaction can help (the rest was compacted all the same).
      const items = this.host.items();
      const tools = this.host.tools();
      const fixed = systemAndToolsTokens(items, this.host.meter.measure(items, tools).perItem, this.host.meter, tools);
      if (fixed >= th.inputBudget) {
        const said = describeFixedOverBudget(fixed, th.inputBudget, this.host.budget.contextWindow, th.reservedOutput);
        throw new Error(
          `The next request would carry ${tokens(after)} prompt tokens and was not sent: ${said[0].toUpperCase()}${said.slice(1)}.`,
        );
      }
      const why = this.stuck ? ` ${this.stuck}` : '';
      throw new Error(
        `The next request would carry ${tokens(after)} prompt tokens; ${tokens(th.inputBudget)} fit the context window (${tokens(this.host.budget.contextWindow)} tokens, ${tokens(th.reservedOutput)} reserved for the reply), and compaction could not bring it lower, so it was not sent.${why} Run Compact Conversation, start a new task, or use a model with a larger window.`,
      );
    }
  }

  private async runAutomatic(signal: AbortSignal, triggerTokens: number): Promise<CompactOutcome> {
    // A summary prepared ahead applies without waiting for the summarizer.
    const preparing = this.ahead.preparing;
    if (!this.ahead.ready && preparing?.version === this.host.version()) {
      this.host.setBusy('automatic compaction (finishing the prepared summary)');
      try {
        await raceAbort(preparing.promise, signal);
      } catch {
        // Cancelled: fall through, the fresh run below sees the aborted signal too.
      }
    }
    const ready = this.ahead.take();
    if (ready && ready.version === this.host.version()) {
      const prepared = await reattachFiles(this.host, ready.prepared, signal);
      const result = commitPrepared(this.host.items(), prepared, this.host.meter, this.host.tools());
      // The prepared span was chosen for a context that has grown since; when the growth was larger
      // than foreseen (one big tool result), applying it would land too close to the trigger and
      // compact again at once. A fresh plan then does better.
      const ceiling = preparedCeiling(thresholds(this.host.budget));
      if (result.status.kind === 'applied' && result.tokensAfter > ceiling) {
        this.stats.preparedDiscarded++;
        this.host.log(
          'info',
          `prepared summary not used: it would leave ${result.tokensAfter} tokens, above ${Math.round(ceiling)}`,
        );
      } else if (result.status.kind === 'applied') {
        this.stats.preparedUsed++;
        const outcome = this.finish(
          { ...result, status: { ...result.status, preparedAhead: true } },
          'auto',
          triggerTokens,
        );
        this.host.setBusy(undefined);
        return outcome;
      } else {
        this.stats.preparedDiscarded++;
        this.host.log('info', `prepared summary not used: ${describeCompaction(result.status)}`);
      }
    } else if (ready) {
      this.stats.preparedDiscarded++;
    }
    // The service decided from the calibrated reading; the core's own estimate must not veto it.
    return this.runFresh('auto', { force: true }, signal, triggerTokens);
  }

  /**
   * The provider refused a request because the prompt does not fit its window. Compacts at once
   * (automatic, forced; against the window the provider reported when that is smaller), records the
   * cause in the log and the checkpoint, and resolves true when the context shrank so the agent
   * retries the request once.
   */
  async afterOverflow(overflow: ContextOverflow, signal: AbortSignal): Promise<boolean> {
    const sizes = overflow.window
      ? ` (${overflow.promptTokens ? `${overflow.promptTokens} tokens sent, ` : ''}${overflow.window} allowed)`
      : '';
    const cause = `the provider refused the request as too long for its context window${sizes}`;
    this.host.log(
      'warn',
      `Context-length error from the provider${sizes}: ${overflow.message}. Compacting and retrying the request once.`,
    );
    this.ahead.discardReady();
    if (
      !(await this.mayCompactRestored(
        overflow.promptTokens ?? this.measure(),
        thresholds(this.host.budget).inputBudget,
        true,
      ))
    )
      return false;
    const budget = this.host.budget;
    const smaller =
      overflow.window && overflow.window < budget.contextWindow
        ? { ...budget, contextWindow: overflow.window }
        : undefined;
    const outcome = await this.singleFlight(() =>
      this.runFresh('auto', { force: true, budget: smaller, cause }, signal),
    );
    const applied = outcome.status.kind === 'applied';
    if (applied)
      this.host.log(
        'info',
        `Compacted after the context-length error: ${outcome.tokensBefore} -> ${outcome.tokensAfter} tokens; retrying.`,
      );
    else
      this.host.log(
        'warn',
        `Nothing could be compacted after the context-length error (${describeOutcome(outcome.status)}); the task stops with the provider's error.`,
      );
    return applied;
  }

  private async runManual(request: ManualRequest, signal?: AbortSignal): Promise<CompactOutcome> {
    this.ahead.discardReady();
    // The user asked for a compaction: summarize everything eligible (the focus only matters to a
    // summary), rather than stopping at the collapse tier as soon as the target is reached. A
    // recording continued in a new task is compacted to the target instead (CONTINUE_PLAN).
    const trigger = request.trigger ?? 'manual';
    const facts = trigger === 'continue' && !request.preview ? this.continueFactsBefore() : undefined;
    const ids = this.host.editedSummaryIds?.();
    const editedBefore = new Set(this.host.items().flatMap((it) => (ids?.has(it.id) && !it.pinned ? [it.id] : [])));
    const withFacts = (outcome: CompactOutcome): CompactOutcome =>
      facts ? { ...outcome, continued: this.continueFactsAfter(facts, outcome, editedBefore) } : outcome;
    const asked = {
      focus: request.focus,
      preview: request.preview,
      calls: request.calls,
      onProgress: request.onProgress,
    };
    const outcome = await this.runFresh(trigger, { ...requestedPlan(trigger), ...asked }, signal);
    // The new task must start within the input budget: when the target's plan leaves it over (a
    // large summary the planner keeps), everything eligible is summarised, as Compact does.
    const inputBudget = thresholds(this.host.budget).inputBudget;
    if (trigger !== 'continue' || request.preview || this.measure() <= inputBudget) return withFacts(outcome);
    if (outcome.status.kind !== 'applied' && outcome.status.kind !== 'nothing-eligible') return withFacts(outcome);
    // One run for the user: the deeper pass's steps are stamped with the first pass's time, so the
    // history shows one entry and its restore undoes both passes (a clip of the first one included).
    const runTime = outcome.checkpoints[0]?.time;
    const deeper = await this.runFresh(
      trigger,
      { ...MANUAL_PLAN, ...asked, items: this.host.items(), runTime },
      signal,
    );
    return withFacts({
      ...deeper,
      tokensBefore: outcome.tokensBefore,
      checkpoints: [...outcome.checkpoints, ...deeper.checkpoints],
    });
  }

  /**
   * The summarizer calls a compaction of `trigger` (`manual`, or `continue` on continuing a
   * recording) would make now (see `ContextServiceApi.estimateCompaction`).
   */
  estimateManual(trigger: 'manual' | 'continue' = 'manual'): CallEstimate | undefined {
    try {
      return estimateSummaryCalls({
        items: this.itemsFor(trigger),
        tools: this.host.tools(),
        meter: this.host.meter,
        summarizer: this.host.summarizer,
        options: {
          budget: this.host.budget,
          trigger,
          keepRecentSteps: this.host.keepRecentSteps,
          maxSummaryCalls: this.host.maxSummaryCalls,
          userBudget: this.host.userBudget,
          summaryBudget: this.host.summaryBudget,
          ...requestedPlan(trigger),
        },
      });
    } catch {
      return undefined; // a window too small for one batch: the compaction itself reports it
    }
  }

  /** Prepares and commits in one go, under a timeout; preview mode stops after preparing. */
  private async runFresh(
    trigger: CheckpointTrigger,
    options: {
      force: boolean;
      all?: boolean;
      noCollapse?: boolean;
      focus?: string;
      preview?: boolean;
      budget?: BudgetConfig;
      cause?: string;
      calls?: number | 'extractive';
      onProgress?: (p: CompactionProgress) => void;
      /** The context to plan over, when not the one of `trigger` (see {@link itemsFor}). */
      items?: readonly ContextItem[];
      /** The time of an earlier commit of the same run (see `CompactionHost.commit`). */
      runTime?: string;
    },
    external: AbortSignal | undefined,
    triggerTokens?: number,
  ): Promise<CompactOutcome> {
    const signals = [this.lifetime.signal, AbortSignal.timeout(this.options.timeoutMs)];
    if (external) signals.push(external);
    const signal = AbortSignal.any(signals);
    const items = options.items ?? this.itemsFor(trigger);
    const version = this.host.version();
    this.host.setBusy(
      trigger === 'auto' ? 'automatic compaction' : options.preview ? 'preparing a summary preview' : 'compacting',
    );
    this.stats.summarizerRuns++;
    try {
      const configured = options.budget ?? this.host.budget;
      // An automatic run lands deeper where that saves a compaction (./landing), and above what it
      // may never summarise, so its summaries get real room.
      const aim =
        trigger === 'auto'
          ? automaticAim(
              configured,
              anchoredTokens(items, this.host.meter, this.host.tools(), this.host.keepRecentSteps),
              { growth: this.ahead.expectedGrowth, reusesPrefix: this.host.summarizer.reusesPrefix },
            )
          : { budget: configured };
      const budget = aim.budget;
      // Files to re-attach are read first, so the plan keeps room for them below the target; a
      // preview shows them, and Apply writes them as read here.
      const reattach = await raceAbort(
        planReattach(this.host.reattach, items, budget, this.host.meter, (m) => this.host.log('warn', m), signal),
        signal,
      );
      // Read before the run: a transcript just loaded or imported is read in slices of the host's time.
      const knownSecretValues = await raceAbort(
        this.host.knownSecretValues?.(signal) ?? Promise.resolve(undefined),
        signal,
      );
      // Large extractive compactions run in a worker thread; cancel terminates it (./compaction-worker).
      const planned = await raceAbort(
        prepareOffThread(
          {
            items,
            tools: this.host.tools(),
            meter: this.host.meter,
            summarizer:
              options.calls === 'extractive'
                ? new ExtractiveSummarizer((t) => this.host.meter.countText(t), {
                    lineAdditive: this.host.meter.lineAdditive,
                  })
                : this.host.summarizer,
            options: {
              budget,
              trigger,
              keepRecentSteps: this.host.keepRecentSteps,
              maxSummaryCalls: typeof options.calls === 'number' ? options.calls : this.host.maxSummaryCalls,
              userBudget: this.host.userBudget,
              summaryBudget: this.host.summaryBudget,
              force: options.force,
              all: options.all,
              noCollapse: options.noCollapse,
              focus: options.focus,
              reserveTokens: reattach?.reserve,
              deeperCompactTo: aim.deeperCompactTo,
              knownSecretValues,
              signal,
            },
          },
          {
            mode: this.options.thread,
            worker: this.options.worker,
            onProgress: options.onProgress,
            onRoute: (route, why) =>
              this.host.log('debug', `compaction runs ${route === 'worker' ? 'in a worker' : 'inline'}: ${why}`),
          },
        ),
        signal,
      );
      const prepared =
        'status' in planned ? planned : applyReattach(planned, items, reattach, this.host.meter, this.host.tools());
      if ('status' in prepared) {
        if (prepared.status.kind === 'summarizer-failed') this.noteFailure(trigger, prepared.status);
        else if (trigger === 'auto') this.noteStuck(prepared.status);
        return outcomeOf(prepared, []);
      }
      if (this.host.version() !== version) return notApplied({ kind: 'rewritten', during: 'run' }, this.measure());
      if (options.preview) {
        const view = previewOf(prepared, options.focus, this.host.summarizer.name);
        this.preview = { version, length: items.length, prepared, view };
        return {
          status: { kind: 'proposed' },
          tokensBefore: prepared.tokensBefore,
          tokensAfter: prepared.tokensAfter,
          checkpoints: [],
          preview: view,
        };
      }
      // Items appended while the summarizer ran (a user message sent meanwhile) stay after the span.
      const result = commitPrepared(this.host.items(), prepared, this.host.meter, this.host.tools());
      if (options.cause && result.status.kind === 'applied')
        for (const c of result.checkpoints) c.cause = options.cause;
      return this.finish(result, trigger, triggerTokens, options.runTime);
    } catch (error) {
      const status = runFailure(signal, error, this.options.timeoutMs);
      const outcome = notApplied(status, this.measure());
      if (status.kind !== 'cancelled') this.noteFailure(trigger, status);
      return outcome;
    } finally {
      this.host.setBusy(undefined);
    }
  }

  /**
   * Over the trigger with nothing to compact (everything left is anchored, pinned or too small): the
   * user is told once per distinct reason, and the gauge carries it until a compaction applies.
   */
  private noteStuck(status: CompactionStatus): void {
    const note = stuckNote(status);
    // Logged once per kind of reason: the token figures in it change on every model call.
    if (!sameKind(note, this.stuck)) this.host.log('warn', note);
    this.stuck = note;
  }

  /** Why automatic compaction cannot help right now, while that holds. */
  get stuckReason(): string | undefined {
    return this.stuck;
  }

  /**
   * Why automatic compaction is paused, as a clause ("paused after 3 failed compactions in a row"),
   * or undefined while it is not (see {@link CompactionGuard}). For the status bar.
   */
  pauseReason(): string | undefined {
    const status = this.guard.status();
    if (status.pauseReason === 'failures')
      return `paused after ${status.consecutiveFailures} failed compactions in a row`;
    if (status.pauseReason === 'thrashing')
      return `paused: it refilled past the trigger ${status.thrashes} times within one model call`;
    return undefined;
  }

  /**
   * What the user should know about automatic compaction now, for the gauge: that it is paused and
   * why, that messages a restore brought back are kept out of it (and until when), and why it cannot
   * help (see {@link stuckReason}). Empty when nothing holds.
   */
  notes(): string[] {
    const status = this.guard.status();
    const restored = this.host.restoredIds?.().size ?? 0;
    const out: string[] = [];
    // Told once it matters: over the trigger, or while it holds automatic compaction back.
    if (restored > 0 && (status.paused || this.measure() >= thresholds(this.host.budget).triggerTokens))
      out.push(
        `${restored} message${restored === 1 ? '' : 's'} a checkpoint restore brought back ${restored === 1 ? 'is' : 'are'} kept out of automatic compaction while the context fits the window; if it no longer fits, you are asked before they are compacted again. Compact Conversation compacts them now.`,
      );
    if (status.pauseReason === 'thrashing')
      out.push(
        `Automatic compaction is paused: it refilled past the trigger ${status.thrashes} times within one model call. A request that would not fit the window is still compacted first; Compact Conversation resumes automatic compaction. ${
          restored > 0
            ? 'The restored messages leave it little to compact: compact them, or restore fewer.'
            : THRASH_ADVICE
        }`,
      );
    else if (status.advice) out.push(status.advice);
    if (this.stuck) out.push(this.stuck);
    return out;
  }

  private noteFailure(trigger: CheckpointTrigger, status: CompactOutcomeStatus): void {
    this.stats.failures++;
    this.guard.compactionFailed(trigger);
    this.host.log('warn', describeOutcome(status));
  }

  private finish(
    result: CompactionResult,
    trigger: CheckpointTrigger,
    triggerTokens?: number,
    runTime?: string,
  ): CompactOutcome {
    if (result.status.kind !== 'applied') {
      if (result.status.kind === 'summarizer-failed') this.noteFailure(trigger, result.status);
      return outcomeOf(result, []);
    }
    let records: CheckpointRecord[];
    this.stuck = undefined;
    try {
      records = this.host.commit(result, runTime);
    } catch (error) {
      const status = { kind: 'save-failed', message: (error as Error).message } as const;
      this.noteFailure(trigger, status);
      return notApplied(status, result.tokensBefore);
    }
    if (trigger === 'auto') this.stats.automatic++;
    else this.stats.manual++;
    // A compaction the user asked for ends the protection of restored messages.
    if (trigger === 'manual') this.host.releaseRestored?.();
    this.guard.compactionSucceeded(
      trigger,
      result.tokensAfter,
      triggerTokens ?? thresholds(this.host.budget).triggerTokens,
    );
    return outcomeOf(result, records);
  }
}

/** A token figure as the dialogs show it (thousands separated). */
function tokens(n: number): string {
  return n.toLocaleString('en-US');
}

/** The note shown while the meter is over the trigger and automatic compaction cannot help. */
export function stuckNote(status: CompactionStatus): string {
  const advice =
    status.kind === 'nothing-eligible'
      ? '; the system prompt, tool schemas, pinned messages and the newest step leave too little room: unpin messages, start a new task, lower the reserved output, or use a larger window'
      : '';
  return `Over the compaction trigger and automatic compaction cannot help: ${describeCompaction(status)}${advice}.`;
}

/** True when two notes differ only in their figures (token counts change on every model call). */
export function sameKind(a: string | undefined, b: string | undefined): boolean {
  const kind = (text: string | undefined): string | undefined => text?.replace(/\d+/g, '#');
  return kind(a) === kind(b);
}
