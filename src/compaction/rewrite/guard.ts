/**
 * Loop and failure guard for automatic compaction.
 *
 * Pure bookkeeping over events the service reports; no timers. Time is counted in model calls:
 * - at most one automatic compaction per model call;
 * - after a failed compaction, automatic attempts back off (1, then 2 model calls), and after
 *   `maxConsecutiveFailures` failures in a row (default 3) automatic compaction pauses until a manual
 *   compaction succeeds (circuit breaker);
 * - thrashing — a compaction that does not get below the trigger, or whose context refills past the
 *   trigger within one model call — is counted; at `thrashLimit` (default 3) it is reported with advice
 *   and automatic compaction pauses (unless `pauseOnThrash` is false).
 *
 * Manual compactions are always allowed. The pause only holds back compactions that are a choice:
 * the coordinator compacts a prompt that would not fit the window whatever the guard says, and a
 * compaction the user agreed to in a dialog ends the pause ({@link CompactionGuard.resume}).
 */

/** Options of {@link CompactionGuard}. */
export interface GuardOptions {
  /** Failed compactions in a row that pause automatic compaction. Default 3. */
  maxConsecutiveFailures?: number;
  /** Thrashing compactions that are reported (and pause automatic compaction). Default 3. */
  thrashLimit?: number;
  /** Pause automatic compaction when thrashing is reported. Default true. */
  pauseOnThrash?: boolean;
}

/** Whether an automatic compaction may run now. */
export interface GuardVerdict {
  allowed: boolean;
  /** Why not, for the log and the meter's tooltip. */
  reason?: string;
}

/** The guard's state, for the UI. */
export interface GuardStatus {
  /** Automatic compaction is paused until a manual compaction succeeds. */
  paused: boolean;
  pauseReason?: 'failures' | 'thrashing';
  consecutiveFailures: number;
  /** Thrashing compactions since the last reset. */
  thrashes: number;
  /** Model calls left before the next automatic attempt after a failure (0 when none). */
  backoffCalls: number;
  /** Advice for the user once thrashing is reported or the breaker is open. */
  advice?: string;
}

/** Advice shown when compaction keeps refilling the context. */
export const THRASH_ADVICE =
  'Compaction keeps refilling the context within one model call: what it must keep (the latest request, the newest steps, large tool outputs, the system prompt and tool schemas) is close to the window. Lower "keep recent steps" or "compact to", reduce the reserved output, start a new task, or use a model with a larger window.';

/** Advice shown when the breaker opens. */
export const FAILURE_ADVICE =
  'Automatic compaction is paused after repeated failures. Check the summarizer settings (endpoint, model, API key), then run Compact Conversation manually; a successful manual compaction resumes automatic compaction.';

/** See the module comment. One instance per session. */
export class CompactionGuard {
  private readonly maxFailures: number;
  private readonly thrashLimit: number;
  private readonly pauseOnThrash: boolean;
  private calls = 0;
  private autoInThisCall = 0;
  private failures = 0;
  private retryAtCall = 0;
  private thrashes = 0;
  private paused: 'failures' | 'thrashing' | undefined;
  /** Model call index of the last successful compaction, while it may still be judged for refill. */
  private watchCall: number | undefined;

  constructor(options: GuardOptions = {}) {
    this.maxFailures = Math.max(1, options.maxConsecutiveFailures ?? 3);
    this.thrashLimit = Math.max(1, options.thrashLimit ?? 3);
    this.pauseOnThrash = options.pauseOnThrash ?? true;
  }

  /** Reports that a model call (of the agent, not of the summarizer) is about to be sent. */
  modelCallStarted(): void {
    this.calls += 1;
    this.autoInThisCall = 0;
    // A refill is judged within one model call after the compaction; later readings are normal growth.
    if (this.watchCall !== undefined && this.calls - this.watchCall > 1) this.watchCall = undefined;
  }

  /** May an automatic compaction run now? */
  mayAutoCompact(): GuardVerdict {
    if (this.paused === 'failures')
      return {
        allowed: false,
        reason: `automatic compaction paused after ${this.failures} failed compactions in a row`,
      };
    if (this.paused === 'thrashing')
      return {
        allowed: false,
        reason: `automatic compaction paused: it refilled past the trigger ${this.thrashes} times`,
      };
    if (this.autoInThisCall > 0)
      return { allowed: false, reason: 'already compacted automatically before this model call' };
    if (this.calls < this.retryAtCall) {
      return {
        allowed: false,
        reason: `waiting ${this.retryAtCall - this.calls} more model call(s) after a failed compaction`,
      };
    }
    return { allowed: true };
  }

  /**
   * Reports a compaction that was applied.
   * @param tokensAfter Prompt tokens after it (the meter's reading).
   * @param triggerTokens The automatic trigger, in tokens.
   */
  compactionSucceeded(
    trigger: 'auto' | 'manual' | 'import' | 'continue',
    tokensAfter: number,
    triggerTokens: number,
  ): void {
    if (trigger === 'auto') this.autoInThisCall += 1;
    this.failures = 0;
    this.retryAtCall = 0;
    if (trigger === 'manual' || trigger === 'continue') {
      // A manual success closes the breaker and clears the thrash history (the user intervened).
      this.paused = undefined;
      this.thrashes = 0;
    }
    if (tokensAfter >= triggerTokens) {
      this.thrash();
      this.watchCall = undefined;
    } else {
      this.watchCall = this.calls;
    }
  }

  /** Reports a compaction that was attempted and not applied because of an error (not "nothing to do"). */
  compactionFailed(trigger: 'auto' | 'manual' | 'import' | 'continue'): void {
    if (trigger === 'auto') this.autoInThisCall += 1;
    this.failures += 1;
    // Back off 1, 2, 4… model calls before the next automatic attempt.
    this.retryAtCall = this.calls + 2 ** (this.failures - 1) + 1;
    if (this.failures >= this.maxFailures) this.paused = 'failures';
  }

  /**
   * Reports a meter reading (after a model reply or a tool round). A reading at or past the trigger
   * within one model call of the last compaction counts as thrashing, once per compaction.
   */
  meterReading(tokens: number, triggerTokens: number): void {
    if (this.watchCall === undefined) return;
    if (this.calls - this.watchCall > 1) {
      this.watchCall = undefined;
      return;
    }
    if (tokens >= triggerTokens) {
      this.watchCall = undefined;
      this.thrash();
    }
  }

  /**
   * The user chose to compact (agreed in a dialog): ends the pause and the thrash history, as a
   * successful manual compaction does, without waiting for the run to succeed.
   */
  resume(): void {
    this.paused = undefined;
    this.thrashes = 0;
    this.retryAtCall = 0;
  }

  /** Clears all state (a new task or a new session). */
  reset(): void {
    this.autoInThisCall = 0;
    this.failures = 0;
    this.retryAtCall = 0;
    this.thrashes = 0;
    this.paused = undefined;
    this.watchCall = undefined;
  }

  /** Current state, for the UI. */
  status(): GuardStatus {
    const status: GuardStatus = {
      paused: this.paused !== undefined,
      consecutiveFailures: this.failures,
      thrashes: this.thrashes,
      backoffCalls: Math.max(0, this.retryAtCall - this.calls),
    };
    if (this.paused !== undefined) status.pauseReason = this.paused;
    if (this.paused === 'failures') status.advice = FAILURE_ADVICE;
    else if (this.thrashes >= this.thrashLimit) status.advice = THRASH_ADVICE;
    return status;
  }

  /** True once thrashing has been counted `thrashLimit` times. */
  get thrashing(): boolean {
    return this.thrashes >= this.thrashLimit;
  }

  private thrash(): void {
    this.thrashes += 1;
    if (this.thrashes >= this.thrashLimit && this.pauseOnThrash && this.paused === undefined) this.paused = 'thrashing';
  }
}
