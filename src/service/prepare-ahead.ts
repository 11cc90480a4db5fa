/**
 * Summaries prepared ahead: when the meter passes `compactAt − margin`, the summary of the span that
 * will be replaced is computed in the background, so that at the threshold the compaction applies
 * without waiting for the summarizer. A prepared summary belongs to one version of the context and
 * is discarded when the context was rewritten in between (stale).
 */
import type { PreparedCompaction } from '../compaction/compactor';
import { prepareOffThread } from './compaction-worker/runner';
import type { CompactionGuard } from '../compaction/guard';
import type { CompactionHost, CompactionsOptions, CompactionStats } from './compaction-host';
import { raceAbort } from './compaction-outcomes';
import { thresholds, type Thresholds } from '../compaction/budget';

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

  /** Starts preparing the next span's summary in the background when close to the trigger (all in tokens). */
  maybeStart(used: number, base: number, triggerTokens: number): void {
    const margin = this.options.prepareAheadMargin;
    if (margin <= 0 || used < triggerTokens - margin * base) return;
    const version = this.host.version();
    if (this.ready?.version === version || this.preparing?.version === version) return;
    if (!this.guard.mayAutoCompact().allowed) return;
    this.preparing?.controller.abort(new Error('stale'));
    const controller = new AbortController();
    const budget = this.host.budget;
    // Aim lower by the distance still to go, so that after the context grows to the trigger the
    // prepared compaction lands at about `compactTo`.
    const distance = (triggerTokens - used) / base;
    const compactTo = Math.max(0.05, Math.min(budget.compactTo - distance, budget.compactAt - 0.01));
    const items = this.host.items();
    // The context grows by at least the distance to the trigger before the summary applies: a plan
    // that leaves more than the ceiling less that growth would be thrown away, so it is not run.
    const maxEstimatedAfter = preparedCeiling(thresholds(budget)) - (triggerTokens - used);
    this.stats.summarizerRuns++;
    const signal = AbortSignal.any([controller.signal, this.lifetime(), AbortSignal.timeout(this.options.timeoutMs)]);
    const promise = raceAbort(
      prepareOffThread({
        items,
        tools: this.host.tools(),
        meter: this.host.meter,
        summarizer: this.host.summarizer,
        options: { budget: { ...budget, compactTo }, trigger: 'auto', keepRecentSteps: this.host.keepRecentSteps, maxSummaryCalls: this.host.maxSummaryCalls, userBudget: this.host.userBudget, summaryBudget: this.host.summaryBudget, force: true, maxEstimatedAfter, signal },
      }, { mode: this.options.thread, worker: this.options.worker }),
      signal,
    ).then(
      (prepared) => {
        if ('applied' in prepared) {
          this.host.log('debug', `nothing prepared ahead: ${prepared.reason}`);
        } else if (this.host.version() === version && !controller.signal.aborted) {
          this.ready = { version, prepared };
          this.host.log('debug', `summary prepared ahead: ${prepared.tokensBefore} → ${prepared.tokensAfter} tokens`);
        } else {
          this.stats.preparedDiscarded++;
        }
      },
      (error: unknown) => this.host.log('debug', `preparing ahead stopped: ${(error as Error)?.message ?? String(error)}`),
    ).finally(() => {
      if (this.preparing?.controller === controller) this.preparing = undefined;
    });
    this.preparing = { version, controller, promise };
  }
}
