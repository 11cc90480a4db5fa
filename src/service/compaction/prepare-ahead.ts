/**
 * Summaries prepared ahead: when the meter passes `compactAt − margin` and the next model call may
 * reach the threshold (the largest growth of recent calls says so), the summary of the span that
 * will be replaced is computed in the background, so that at the threshold the compaction applies
 * without waiting for the summarizer. Started earlier than that, a summary is made for a threshold
 * the session may never reach, or planned for less growth than comes. A prepared summary belongs
 * to one version of the context and is discarded when the context was rewritten in between (stale).
 */
import { prepareOffThread } from './worker/runner';
import type { CompactionGuard } from '../../compaction/rewrite/guard';
import type { CompactionHost, CompactionsOptions, CompactionStats } from './compaction-host';
import { thresholds, type Thresholds } from '../../compaction/plan/budget';
import { automaticAim } from './landing';
import { anchoredTokens } from '../../compaction/plan/anchored';
import type { PreparedCompaction } from '../../compaction/rewrite/commit';
import { raceAbort } from './race-abort';
import { describeCompaction } from '../../compaction/outcome-text';

/**
 * Most prompt tokens a summary prepared ahead may leave when it is applied at the trigger: halfway
 * between the target and the trigger. Above that the next compaction would come too soon, and a
 * fresh plan does better (see `Compactions.runAutomatic`).
 */
export function preparedCeiling(th: Pick<Thresholds, 'targetTokens' | 'triggerTokens'>): number {
  return th.targetTokens + (th.triggerTokens - th.targetTokens) / 2;
}

/** A summary prepared for the context at `version`. */
export interface Prepared {
  version: number;
  prepared: PreparedCompaction;
}

/** The background preparation of one compaction coordinator. */
export class PrepareAhead {
  /** The prepared summary waiting to be used, if any. */
  ready: Prepared | undefined;
  /** Growth of the context between safe points, to start a preparation one model call ahead. */
  private readonly growth = new GrowthWatch();
  /** The most one model call added lately, in tokens, as of the last safe point below the trigger (see {@link GrowthWatch}). */
  expectedGrowth: number | undefined;
  /** The preparation in progress, if any. */
  preparing: { version: number; controller: AbortController; promise: Promise<void> } | undefined;

  constructor(
    private readonly host: CompactionHost,
    private readonly options: CompactionsOptions,
    private readonly stats: CompactionStats,
    private readonly guard: CompactionGuard,
    /** The coordinator's lifetime signal (aborted by cancel/dispose), read at start. */
    private readonly lifetime: () => AbortSignal,
  ) {}

  /** Takes the ready summary (it is used or discarded by the caller). */
  take(): Prepared | undefined {
    const ready = this.ready;
    this.ready = undefined;
    return ready;
  }

  /** Drops the ready summary (counted as discarded); a preparation in progress goes on. */
  discardReady(): void {
    if (this.ready) this.stats.preparedDiscarded++;
    this.ready = undefined;
  }

  /** Stops the preparation in progress, if any. */
  stop(reason: string): void {
    this.preparing?.controller.abort(new Error(reason));
    this.preparing = undefined;
  }

  /**
   * Starts preparing the next span's summary in the background when close to the trigger (all in
   * tokens): within the margin, and, once growth has been seen, when the next model call may reach
   * the trigger (see {@link GrowthWatch}). Called at every safe point below the trigger.
   */
  maybeStart(used: number, base: number, triggerTokens: number): void {
    const margin = this.options.prepareAheadMargin;
    const version = this.host.version();
    const nextCall = this.growth.next(used, version);
    this.expectedGrowth = nextCall;
    if (margin <= 0 || used < triggerTokens - margin * base) return;
    // A summary made calls before it is needed is thrown away when the session stops short of the
    // trigger, or made too early when a large step overshoots what it planned for (then re-made).
    if (nextCall !== undefined && used + nextCall < triggerTokens) return;
    if (this.ready?.version === version || this.preparing?.version === version) return;
    if (!this.guard.mayAutoCompact().allowed) return;
    this.preparing?.controller.abort(new Error('stale'));
    const controller = new AbortController();
    const budget = this.host.budget;
    // Aim lower by the growth expected before the summary applies (the distance still to go, or
    // more when recent calls grew by more), so that it lands at about `compactTo` then.
    const ahead = Math.max(triggerTokens - used, nextCall ?? 0);
    const distance = ahead / base;
    const items = this.host.items();
    // The context grows by at least that before the summary applies: a plan that leaves more than
    // the ceiling less that growth would be thrown away, so it is not run.
    const maxEstimatedAfter = preparedCeiling(thresholds(budget)) - ahead;
    // As the run at the trigger would aim (./landing), lower by that growth, and above what may
    // never be summarised (./reachable-target).
    const anchored = anchoredTokens(items, this.host.meter, this.host.tools(), this.host.keepRecentSteps);
    const aim = automaticAim(budget, anchored, {
      growth: nextCall,
      reusesPrefix: this.host.summarizer.reusesPrefix,
      lower: Math.max(distance, 1e-9),
      cap: maxEstimatedAfter,
    });
    const aimed = aim.budget;
    this.stats.summarizerRuns++;
    const signal = AbortSignal.any([controller.signal, this.lifetime(), AbortSignal.timeout(this.options.timeoutMs)]);
    // The transcript's secret values first: one just loaded or imported is read in slices of the host's time.
    const known = this.host.knownSecretValues?.(signal) ?? Promise.resolve(undefined);
    const tools = this.host.tools();
    const summarizer = this.host.summarizer;
    const promise = raceAbort(
      known.then((knownSecretValues) =>
        prepareOffThread(
          {
            items,
            tools,
            meter: this.host.meter,
            summarizer,
            options: {
              budget: aimed,
              trigger: 'auto',
              keepRecentSteps: this.host.keepRecentSteps,
              maxSummaryCalls: this.host.maxSummaryCalls,
              userBudget: this.host.userBudget,
              summaryBudget: this.host.summaryBudget,
              force: true,
              maxEstimatedAfter,
              deeperCompactTo: aim.deeperCompactTo,
              knownSecretValues,
              signal,
            },
          },
          { mode: this.options.thread, worker: this.options.worker },
        ),
      ),
      signal,
    )
      .then(
        (prepared) => {
          if ('status' in prepared) {
            this.host.log('debug', `nothing prepared ahead: ${describeCompaction(prepared.status)}`);
          } else if (this.host.version() === version && !controller.signal.aborted) {
            this.ready = { version, prepared };
            this.host.log('debug', `summary prepared ahead: ${prepared.tokensBefore} → ${prepared.tokensAfter} tokens`);
          } else {
            this.stats.preparedDiscarded++;
          }
        },
        (error: unknown) =>
          this.host.log('debug', `preparing ahead stopped: ${(error as Error)?.message ?? String(error)}`),
      )
      .finally(() => {
        if (this.preparing?.controller === controller) this.preparing = undefined;
      });
    this.preparing = { version, controller, promise };
  }
}

/** Model calls whose growth {@link GrowthWatch} remembers. */
export const GROWTH_WINDOW = 4;

/**
 * Growth of the context between consecutive safe points of one context version (a rewrite starts
 * afresh), in tokens. {@link GrowthWatch.next} records a reading and says how much the next model
 * call may add: the largest growth of the last {@link GROWTH_WINDOW} calls (a step that reads a large
 * file or runs a long command comes in one call), undefined until one growth has been seen.
 */
export class GrowthWatch {
  private last: { used: number; version: number } | undefined;
  private readonly recent: number[] = [];

  next(used: number, version: number): number | undefined {
    if (this.last?.version === version) {
      this.recent.push(Math.max(0, used - this.last.used));
      if (this.recent.length > GROWTH_WINDOW) this.recent.shift();
    } else {
      this.recent.length = 0;
    }
    this.last = { used, version };
    return this.recent.length === 0 ? undefined : this.recent.reduce((a, b) => Math.max(a, b));
  }
}
