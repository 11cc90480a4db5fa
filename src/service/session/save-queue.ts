/**
 * Ordered saves of one file whose newest content is all that matters (the session state): a save
 * request marks the file out of date; one write runs at a time, each after the previous one ended;
 * requests made while a write runs are coalesced into one next write, which takes the content as it
 * is when that write starts (the newest state wins, older pending ones are never written).
 *
 * The writes run off the caller's thread (see {@link writeFileAtomicAsync}); what stays on it is
 * serializing the content when a write starts (in slices of bounded time when the target can,
 * see {@link SaveTarget.serializeSliced}) and the rename at its end. {@link flushSync} writes
 * synchronously what is not on disk yet, for closing (an editor window shutting down cannot wait),
 * and makes a write still in flight leave the file alone. A failed write is reported to `onError`,
 * and the content stays out of date: the next request, {@link flush} or {@link flushSync} writes it
 * again, so nothing is lost while the process lives.
 */

import type { TextPiece } from './atomic-file';

/** How the queue reaches its file. */
export interface SaveTarget {
  /** The content to write now, as file text (called on the caller's thread when a write starts). */
  serialize(): string;
  /**
   * When given, used instead of {@link serialize} by the writes that run off the caller's thread:
   * takes the content as it is now (before it returns) and resolves its file text in pieces, made
   * over several turns of the event loop so that no turn is long.
   */
  serializeSliced?(): Promise<readonly TextPiece[]>;
  /**
   * Writes `text` (whole or in pieces, in order) durably off the caller's thread; `stillWanted` is
   * asked right before the file is replaced. Resolves whether it was replaced; rejects with the I/O
   * error (the file untouched).
   */
  write(text: string | readonly TextPiece[], stillWanted: () => boolean): Promise<boolean>;
  /** Writes `text` durably before returning; throws the I/O error (the file untouched). */
  writeSync(text: string): void;
}

/** The save queue of one file. */
export class SaveQueue {
  /** Content changed since the last write started. */
  private outOfDate = false;
  private running: Promise<void> | undefined;
  /** Bumped by {@link flushSync} and {@link close}: a write started before never replaces the file. */
  private generation = 0;
  private failure: Error | undefined;
  private closed = false;

  constructor(
    private readonly target: SaveTarget,
    /** Told about every failed write (the content stays out of date). */
    private readonly onError: (error: Error) => void,
  ) {}

  /** True while some requested content is not on disk yet (out of date, or being written). */
  get pending(): boolean {
    return this.outOfDate || this.running !== undefined;
  }

  /** The error of the latest write when it failed and nothing was written since; undefined otherwise. */
  get lastError(): Error | undefined {
    return this.failure;
  }

  /** Marks the content out of date; a write starts now, or after the one running. O(1) here. */
  request(): void {
    if (this.closed) throw new Error('the save queue is closed');
    this.outOfDate = true;
    if (!this.running) this.start();
  }

  /**
   * Resolves once every content requested so far is on disk (content a failed write left out of date
   * is written again when the flush starts); rejects with the error when a write fails.
   */
  async flush(): Promise<void> {
    while (this.pending) {
      if (!this.running) this.start();
      await this.running;
      if (this.failure) throw this.failure;
    }
  }

  /**
   * Writes what is not on disk yet before returning (nothing when everything is); a write in flight
   * is overtaken (it will not replace the file). Throws the write's error (the content stays out of
   * date).
   */
  flushSync(): void {
    if (!this.pending) return;
    this.generation++;
    this.outOfDate = false;
    try {
      this.target.writeSync(this.target.serialize());
      this.failure = undefined;
    } catch (error) {
      this.outOfDate = true;
      this.failure = asError(error);
      throw this.failure;
    }
  }

  /** {@link flushSync}, then refuses further requests (a write in flight is left to end on its own). */
  close(): void {
    try {
      this.flushSync();
    } finally {
      this.closed = true;
      this.generation++;
      this.outOfDate = false;
    }
  }

  /**
   * Resolves when no write is in flight (at once when none is); never rejects. After {@link close},
   * the one write left to end on its own ends when this resolves (its temp file removed).
   */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private start(): void {
    this.outOfDate = false;
    const generation = this.generation;
    const current = () => generation === this.generation;
    let write: Promise<boolean>;
    try {
      const target = this.target;
      write = target.serializeSliced
        ? // A write overtaken while its text is made (flushSync, close) is not started at all.
          target.serializeSliced().then((text) => (current() ? target.write(text, current) : false))
        : target.write(target.serialize(), current);
    } catch (error) {
      write = Promise.reject(asError(error));
    }
    this.running = write
      .then(
        () => {
          if (current()) this.failure = undefined;
        },
        (error: unknown) => {
          if (!current()) return;
          this.outOfDate = true;
          this.failure = asError(error);
          this.onError(this.failure);
        },
      )
      .finally(() => {
        this.running = undefined;
        // Coalesced requests made meanwhile: one more write, of the content as it is now. After a
        // failure the next request or flush tries again (no loop against a full disk).
        if (this.outOfDate && !this.failure && !this.closed) this.start();
      });
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
