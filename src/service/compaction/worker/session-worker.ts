/**
 * The compaction worker of one session: a worker thread (./worker-main) started on the first job,
 * kept warm between jobs (its rank table built once, the context it was sent and the counts of
 * every message kept), and stopped on {@link CompactionWorker.dispose} or after
 * {@link IDLE_STOP_MS} without a job. Jobs run one at a time, in order.
 *
 * Before each job only the items the thread does not hold yet are sent: items are immutable (the
 * service replaces an item to change it), so an item's identity is its key. A context that was
 * replaced (restore, import, undo) is made of other objects and is sent again; items no longer in the
 * context are forgotten on both sides. What the thread holds is found by walking the job's items
 * beside the last job's, in order (see {@link HeldItems}): no map of every item is built on the
 * caller's thread (a map of 300k objects costs it over 100 ms, in blocks of 30 ms as it grows).
 *
 * A thread that crashes, throws or exits fails its job with an error (the caller's context is never
 * touched by the thread) and is dropped with what it held: the next job starts a new one.
 */
import { Worker } from 'node:worker_threads';
import type { EncodingName } from '../../../tokenizer/tokenizer';
import type { ContextItem, ToolSchema } from '../../../compaction/types';
import type { TokenMeter } from '../../../compaction/meter/meter';
import {
  decodeResult,
  sizeOf,
  type FromWorker,
  type MadeBatch,
  type ToWorker,
  type WorkerCompactionOptions,
} from './protocol';
import type { PreparedCompaction } from '../../../compaction/rewrite/commit';
import type { CompactionResult } from '../../../compaction/outcome';
import { marksOf } from '../../../compaction/tool-outcomes';
import { nextTurn, TimeSlices } from '../../../lifecycle/time-slices';

/** Milliseconds without a job after which the thread is stopped (its memory freed): 3 minutes. */
export const IDLE_STOP_MS = 180_000;
/**
 * Milliseconds a cancelled job may keep the thread busy before the thread is stopped: the thread
 * drops a cancelled job at its next summarized span (planning a 1M-token context takes a few hundred
 * milliseconds); a job that takes longer costs the warm thread rather than delaying the next job.
 */
export const CANCEL_GRACE_MS = 2_000;
/**
 * Characters of message content in the first message to the thread (about 25k tokens): each
 * message's copy is made on the caller's thread in its own turn of the event loop. Later messages
 * are sized from the time the copies so far took, to about {@link SLICE_MS} each. Measured at 1M
 * tokens on two loaded shared cores, 200k characters took 17-21 ms a copy.
 */
export const CHARS_PER_MESSAGE = 100_000;
/**
 * Most characters of message content in one message to the thread, however fast the copies so far
 * went: a copy's time is not proportional to its characters (many small messages cost more per
 * character than a few large ones), so a budget grown on fast copies must not make one copy of a
 * whole session's worth.
 */
export const MAX_CHARS_PER_MESSAGE = 200_000;
/** Most items in one message to the thread: each is an object graph the copy walks, whatever its characters. */
export const MAX_ITEMS_PER_MESSAGE = 1_000;
/**
 * Milliseconds of the caller's thread one turn of preparing a job may take: keying the context's
 * items and copying them to the thread are done in slices of about this length, one per turn.
 */
export const SLICE_MS = 8;

/** Progress of a compaction: `done` of `total` messages summarized so far. */
export interface CompactionProgress {
  message: string;
  done: number;
  total: number;
}

/** One compaction for the thread. */
export interface WorkerJob {
  /** The caller's context; replaced items come back as these very objects. */
  items: readonly ContextItem[];
  encoding: EncodingName;
  tools: ToolSchema[] | undefined;
  options: WorkerCompactionOptions;
  /** Aborting rejects the job at once with the signal's reason. */
  signal?: AbortSignal;
  onProgress?: (progress: CompactionProgress) => void;
  /** Gets each inserted message with the thread's count of it (in tokens). */
  remember?: (message: ContextItem['message'], tokens: number) => void;
  /** The caller's meter (counting as the thread's does): what the thread made of the replaced items is kept for it. */
  meter?: TokenMeter;
}

/** Counters of one {@link CompactionWorker} (tests, benchmarks, the log). */
export interface CompactionWorkerStats {
  /** Threads started. */
  threads: number;
  /** Jobs run on a thread. */
  jobs: number;
  /** Items copied to a thread (all jobs). */
  itemsSent: number;
}

/** The job the thread is running and how it ends. */
interface Running {
  thread: Worker;
  job: number;
  message(message: FromWorker): void;
  died(error: Error): void;
}

/** A session's compaction thread; see the module comment. */
export class CompactionWorker {
  readonly stats: CompactionWorkerStats = { threads: 0, jobs: 0, itemsSent: 0 };
  private thread: Worker | undefined;
  /** The items the thread holds, in the order of the last job sent, with their keys. */
  private held: HeldList = NOTHING_HELD;
  private nextKey = 0;
  private nextJob = 0;
  /** Settles when the thread is free for the next job. */
  private tail: Promise<void> = Promise.resolve();
  private running: Running | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private disposed = false;

  private readonly idleMs: number;
  private readonly cancelGraceMs: number;

  /**
   * @param file the worker script (see `compactionWorkerFile`)
   * @param limits.idleMs milliseconds without a job before the thread stops (default {@link IDLE_STOP_MS})
   * @param limits.cancelGraceMs milliseconds a cancelled job may run on (default {@link CANCEL_GRACE_MS})
   */
  constructor(
    readonly file: string,
    limits: { idleMs?: number; cancelGraceMs?: number } = {},
  ) {
    this.idleMs = limits.idleMs ?? IDLE_STOP_MS;
    this.cancelGraceMs = limits.cancelGraceMs ?? CANCEL_GRACE_MS;
  }

  /** Whether a thread is running now (warm). */
  get warm(): boolean {
    return this.thread !== undefined;
  }

  /**
   * Runs `prepareCompaction` over `job.items` on the thread, after the jobs before it.
   * @returns what an inline run over the same items returns (replaced items are the caller's objects)
   * @throws the signal's reason when aborted; Error when the thread throws, crashes or exits first,
   *   or when this worker was disposed
   */
  run(job: WorkerJob): Promise<PreparedCompaction | CompactionResult> {
    return new Promise((resolve, reject) => {
      if (this.disposed) return reject(new Error('the compaction worker was disposed'));
      if (job.signal?.aborted) return reject(job.signal.reason);
      let waiting = true;
      const onQueuedAbort = (): void => {
        if (waiting) reject(job.signal?.reason);
      };
      job.signal?.addEventListener('abort', onQueuedAbort, { once: true });
      // Starting the thread gets a turn of its own, apart from what the caller did before (reading files to re-attach).
      const turn = this.tail.then(nextTurn).then(() => {
        waiting = false;
        job.signal?.removeEventListener('abort', onQueuedAbort);
        return this.execute(job, resolve, reject);
      });
      this.tail = turn.catch(() => undefined);
    });
  }

  /** Stops the thread at once; jobs in progress or waiting fail, later ones are refused. */
  dispose(): void {
    this.disposed = true;
    this.stop(new Error('the compaction worker was disposed'));
  }

  /** Runs one job; resolves when the thread is free again (which may be after the caller's answer). */
  private async execute(
    job: WorkerJob,
    resolve: (r: PreparedCompaction | CompactionResult) => void,
    reject: (e: unknown) => void,
  ): Promise<void> {
    if (this.disposed) return reject(new Error('the compaction worker was disposed'));
    if (job.signal?.aborted) return reject(job.signal.reason);
    clearTimeout(this.idleTimer);
    const thread = this.start();
    thread.ref();
    const id = ++this.nextJob;
    this.stats.jobs++;
    const cancel = new Int32Array(new SharedArrayBuffer(4));
    let answered = false;
    let grace: NodeJS.Timeout | undefined;
    const answer = (end: () => void): void => {
      if (answered) return;
      answered = true;
      job.signal?.removeEventListener('abort', onAbort);
      end();
    };
    const onAbort = (): void => {
      Atomics.store(cancel, 0, 1);
      answer(() => reject(job.signal?.reason));
      grace = setTimeout(
        () => this.stop(new Error('the cancelled compaction did not stop in time')),
        this.cancelGraceMs,
      );
    };
    job.signal?.addEventListener('abort', onAbort, { once: true });
    // The items the run made, as they arrive (each batch in its own turn), before its result.
    const made: MadeBatch[] = [];
    try {
      await new Promise<void>((free) => {
        this.running = {
          thread,
          job: id,
          message: (message) => {
            if (message.job !== id) return;
            if (message.type === 'progress') {
              if (!answered) job.onProgress?.({ message: message.message, done: message.done, total: message.total });
              return;
            }
            if (message.type === 'result-items') {
              made.push({ items: message.items, covers: message.covers, coverIds: message.coverIds });
              return;
            }
            if (message.type === 'error') {
              answer(() => reject(new Error(`the compaction worker failed: ${message.message}`)));
              // What the thread holds may no longer match what this side believes: start afresh.
              this.stop(new Error('the compaction worker failed'));
            } else {
              // Taken over in slices (see decodeResult); the thread is free for the next job meanwhile.
              answer(() => {
                decodeResult(message.result, job.items, made, job.remember, job.meter).then(resolve, reject);
              });
            }
            free();
          },
          died: (error) => {
            answer(() => reject(error));
            free();
          },
        };
        this.sync(thread, job, id, cancel, () => answered).then(
          (sent) => {
            if (!sent) free();
          },
          (error: unknown) => {
            answer(() => reject(error));
            this.stop(new Error('the compaction worker could not be sent the context'));
            free();
          },
        );
      });
    } finally {
      clearTimeout(grace);
      this.running = undefined;
      this.idleSoon();
    }
  }

  /** The running thread, or a new one (its failures end the job it runs). */
  private start(): Worker {
    if (this.thread) return this.thread;
    const thread = new Worker(this.file);
    this.thread = thread;
    this.held = NOTHING_HELD;
    this.stats.threads++;
    thread.on('message', (message: FromWorker) => {
      if (this.running?.thread === thread) this.running.message(message);
    });
    const died = (error: Error): void => {
      if (this.thread === thread) this.forget();
      if (this.running?.thread === thread) this.running.died(error);
    };
    thread.on('error', (error) => died(new Error(`the compaction worker crashed: ${error.message}`)));
    thread.on('exit', (code) =>
      died(new Error(`the compaction worker stopped (exit code ${code}) before it finished`)),
    );
    return thread;
  }

  /** Drops the thread and what it held, without stopping it (it is stopped or gone). */
  private forget(): void {
    this.thread = undefined;
    this.held = NOTHING_HELD;
  }

  /** Stops the thread; the job it runs, if any, fails with `reason`. */
  private stop(reason: Error): void {
    clearTimeout(this.idleTimer);
    const thread = this.thread;
    if (!thread) return;
    this.forget();
    if (this.running?.thread === thread) this.running.died(reason);
    void thread.terminate();
  }

  /** Lets the process exit while the thread waits, and stops it after {@link IDLE_STOP_MS}. */
  private idleSoon(): void {
    if (!this.thread || this.disposed) return;
    this.thread.unref();
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.stop(new Error('idle')), this.idleMs);
    this.idleTimer.unref();
  }

  /**
   * Sends the items the thread does not hold, in slices of about {@link CHARS_PER_MESSAGE}, one per
   * turn of the event loop, then the run. Resolves false when the job was answered (cancelled)
   * before the run was sent.
   */
  private async sync(
    thread: Worker,
    job: WorkerJob,
    id: number,
    cancel: Int32Array,
    stopped: () => boolean,
  ): Promise<boolean> {
    // The job's items as they are now (the caller's list may grow meanwhile: appends are pushed).
    const items = job.items.slice();
    const order = new Uint32Array(items.length);
    // Positions of the items to send, the first `count` of them.
    const fresh = new Uint32Array(items.length);
    let count = 0;
    const held = new HeldItems(this.held, items.length);
    // Starting the thread (and what the caller did before) was this turn's work: the slices start in
    // a turn of their own.
    const slices = new TimeSlices(SLICE_MS);
    await slices.turn();
    if (stopped() || this.thread !== thread) return false;
    // Keyed in slices bounded by time: a 300k-message context takes a few of them.
    for (let k = 0; k < items.length; k++) {
      if ((k & 1023) === 1023 && slices.due()) {
        await slices.turn();
        if (stopped() || this.thread !== thread) return false;
      }
      let key = held.keyOf(items[k]);
      if (key === undefined) {
        key = this.nextKey++;
        fresh[count++] = k;
      }
      order[k] = key;
    }
    let at = 0;
    let budget = CHARS_PER_MESSAGE;
    while (at < count) {
      // Each copy gets a turn of its own.
      await slices.turn();
      if (stopped() || this.thread !== thread) return false;
      const started = performance.now();
      let end = at;
      let chars = 0;
      const last = Math.min(count, at + MAX_ITEMS_PER_MESSAGE);
      for (; end < last && (end === at || chars < budget); end++) chars += sizeOf(items[fresh[end]]);
      const slice = fresh.subarray(at, end);
      const message: ToWorker = {
        type: 'items',
        keys: Array.from(slice, (k) => order[k]),
        items: Array.from(slice, (k) => items[k]),
        marks: Array.from(slice, (k) => marksOf(items[k].message)),
      };
      thread.postMessage(message);
      this.stats.itemsSent += slice.length;
      // The next copy sized from this one's time per character, to about SLICE_MS; it grows at most
      // twofold a time (a copy that went fast once, before the collector ran, is no rule).
      const took = performance.now() - started;
      if (took > 0.5) budget = Math.max(1_000, Math.min(2 * budget, Math.round((chars * SLICE_MS) / took)));
      else budget *= 2;
      budget = Math.min(budget, MAX_CHARS_PER_MESSAGE);
      at = end;
    }
    const run: ToWorker = {
      type: 'run',
      job: id,
      order,
      encoding: job.encoding,
      tools: job.tools,
      options: job.options,
      cancel,
    };
    // The thread keeps exactly the job's items (it is handed a copy of their keys); so does this side.
    this.held = { items, keys: order.slice() };
    thread.postMessage(run, [order.buffer]);
    return true;
  }
}

/** Items a thread holds, in order, and their keys (`keys[k]` names `items[k]`). */
interface HeldList {
  items: readonly ContextItem[];
  keys: ArrayLike<number>;
}

const NOTHING_HELD: HeldList = { items: [], keys: [] };

/**
 * The keys of a job's items that the thread holds, asked for in the job's order: the items the
 * last job sent are walked beside them, so a context that grew at its end, or kept a run of them
 * after a summary, finds each at the next place or by one scan ahead. A held item found only
 * behind the place reached (the context reordered) is sent again, as is any item once the scans
 * ahead have read about four times the items of both lists: the cost on the caller's thread stays
 * linear whatever the order, with no map of every item (an item sent again is a copy the thread
 * counts again, and the same result).
 */
export class HeldItems {
  private at = 0;
  private budget: number;

  /** @param length the number of items the job holds */
  constructor(
    private readonly held: HeldList,
    length: number,
  ) {
    this.budget = 4 * (held.items.length + length) + 4096;
  }

  /** The key the thread holds `item` under, or undefined (it is to be sent). */
  keyOf(item: ContextItem): number | undefined {
    const { items, keys } = this.held;
    if (this.at < items.length && items[this.at] === item) return keys[this.at++];
    if (this.budget <= 0) return undefined;
    const stop = Math.min(items.length, this.at + this.budget);
    let found = this.at + 1;
    while (found < stop && items[found] !== item) found++;
    this.budget -= found - this.at;
    if (found >= stop) return undefined;
    this.at = found + 1;
    return keys[found];
  }
}
