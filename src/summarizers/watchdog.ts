/**
 * Per-call abort control for summarizer requests: an idle timeout on streamed bodies, an overall
 * deadline, and cancellation that does not wait for an SDK back-off sleep.
 */

/** Why a {@link Watchdog} aborted the call. */
export type FiredReason = 'aborted' | 'idle' | 'deadline';

/**
 * One call's abort controller, linked to the caller's signal, with timers that abort it and remember
 * why. `race` settles as soon as it fires, even while the SDK sleeps between retries.
 */
export class Watchdog {
  private readonly controller = new AbortController();
  private reason: FiredReason | undefined;
  private readonly listeners: Array<(reason: FiredReason) => void> = [];
  private readonly onOuterAbort = (): void => this.fire('aborted');

  constructor(private readonly outer: AbortSignal | undefined) {
    outer?.addEventListener('abort', this.onOuterAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get fired(): FiredReason | undefined {
    return this.reason;
  }

  /** Starts a timer that fires `reason` after `ms`. */
  arm(ms: number, reason: FiredReason): ReturnType<typeof setTimeout> {
    return setTimeout(() => this.fire(reason), ms);
  }

  fire(reason: FiredReason): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.controller.abort();
    for (const listener of this.listeners) listener(reason);
  }

  throwIfFired(): void {
    if (this.reason !== undefined) throw new Error(`summarizer call stopped (${this.reason})`);
  }

  /** Settles with `work`, or rejects as soon as the watchdog fires. */
  race<T>(work: Promise<T>): Promise<T> {
    // The losing promise may still reject later (the SDK notices the abort after its sleep).
    work.catch(() => undefined);
    return new Promise<T>((resolve, reject) => {
      if (this.reason !== undefined) {
        reject(new Error(`summarizer call stopped (${this.reason})`));
        return;
      }
      this.listeners.push((reason) => reject(new Error(`summarizer call stopped (${reason})`)));
      work.then(resolve, reject);
    });
  }

  dispose(): void {
    this.outer?.removeEventListener('abort', this.onOuterAbort);
  }
}
