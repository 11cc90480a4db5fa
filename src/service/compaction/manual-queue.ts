/**
 * Manual compaction requests made while an agent step runs wait here until the next safe point
 *; all requests waiting there share one run and one outcome.
 */
import type { ServiceCompactionStatus, CompactOutcome } from './outcome';
import type { CompactionProgress } from './worker/session-worker';
import { notApplied } from './outcome';

/** What a manual request asks for. */
export interface ManualRequest {
  focus?: string;
  /** The checkpoints' trigger: `manual` (default), or `continue` for a recording continued in a new task. */
  trigger?: 'manual' | 'continue';
  preview: boolean;
  /**
   * How the summaries are written when they need more calls than `maxSummaryCalls`: a number raises
   * the limit for this run (the user chose that many model calls); `extractive` writes every summary
   * without a model. Absent: the setting's limit, the oldest part beyond it without a model.
   */
  calls?: number | 'extractive';
  /** Progress of the run, when it runs in a worker. */
  onProgress?: (progress: CompactionProgress) => void;
}

/** A manual request waiting for the next safe point. */
interface QueuedRequest extends ManualRequest {
  signal?: AbortSignal;
  resolve: (outcome: CompactOutcome) => void;
}

/** The waiting manual requests of one compaction coordinator. */
export class ManualQueue {
  private queue: QueuedRequest[] = [];

  /** Queues a request; resolves when it has run (or was flushed). */
  add(request: ManualRequest & { signal?: AbortSignal }): Promise<CompactOutcome> {
    return new Promise((resolve) => this.queue.push({ ...request, resolve }));
  }

  /**
   * Runs the waiting requests as one run with the first live request's options, aborted only when
   * every live request is; requests already cancelled resolve as not applied.
   * @param tokens The context's size now, in tokens, for outcomes that changed nothing.
   */
  async drain(
    run: (request: ManualRequest, signal: AbortSignal | undefined) => Promise<CompactOutcome>,
    tokens: () => number,
  ): Promise<void> {
    if (this.queue.length === 0) return;
    const waiting = this.queue;
    this.queue = [];
    const live = waiting.filter((q) => !q.signal?.aborted);
    for (const q of waiting) if (q.signal?.aborted) q.resolve(notApplied({ kind: 'cancelled' }, tokens(), true));
    if (live.length === 0) return;
    const first = live[0];
    const signals = live.map((q) => q.signal).filter((s): s is AbortSignal => s !== undefined);
    const outcome = await run(
      { focus: first.focus, preview: first.preview, calls: first.calls, onProgress: first.onProgress },
      signals.length === live.length && signals.length > 0 ? AbortSignal.any(signals) : undefined,
    );
    for (const q of live) q.resolve({ ...outcome, queued: true });
  }

  /** Resolves every waiting request as not applied with `status`. */
  flush(status: ServiceCompactionStatus, tokens: number): void {
    const waiting = this.queue;
    this.queue = [];
    for (const q of waiting) q.resolve(notApplied(status, tokens, true));
  }
}
