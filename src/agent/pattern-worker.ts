/**
 * Runs a model-supplied regular expression over text in a worker thread, under a deadline. JavaScript's
 * engine backtracks: a pattern such as `^(a+)+$` takes exponential time on a 35-character line, and on
 * the extension host's thread that freezes every extension and leaves Cancel no chance to run. In a
 * worker, the host thread stays free, and the deadline or Cancel terminates the worker (V8 stops a
 * running match on terminate). Lines are matched on their first {@link MATCH_LINE_MAX_CHARS} characters
 * to bound the work per line as well.
 */
import { Worker } from 'node:worker_threads';

/** Characters of a line the pattern sees; longer lines are matched on their head only. */
export const MATCH_LINE_MAX_CHARS = 2_000;

/** Default wall-clock budget of one search, in milliseconds. */
export const DEFAULT_PATTERN_DEADLINE_MS = 5_000;

/** Thrown when the pattern ran past its deadline; the message tells the model what to change. */
export class PatternTimeoutError extends Error {
  constructor(readonly deadlineMs: number) {
    super(
      `The regular expression ran past the ${deadlineMs} ms limit and was stopped. Nested repetition such as (a+)+ or (.*)* ` +
        'can take exponential time; simplify the pattern or search for a literal part of it.',
    );
    this.name = 'PatternTimeoutError';
  }
}

// CommonJS source evaluated in the worker: compiles the pattern once, answers one text per message
// with the 0-based numbers of matching lines (at most `max`).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const re = new RegExp(workerData.source, workerData.flags);
parentPort.on('message', (m) => {
  const lines = m.text.split('\\n');
  const hits = [];
  for (let i = 0; i < lines.length && hits.length < m.max; i++) {
    const line = lines[i].length > m.cap ? lines[i].slice(0, m.cap) : lines[i];
    re.lastIndex = 0;
    if (re.test(line)) hits.push(i);
  }
  parentPort.postMessage({ id: m.id, hits });
});
`;

/**
 * One compiled pattern in its own worker, shared by the files of one search. Call {@link dispose}
 * when done (it terminates the worker).
 */
export class PatternMatcher {
  private readonly worker: Worker;
  /** Resolves when the worker runs; the deadline counts from then (start-up is not the pattern's time). */
  private readonly online: Promise<number>;
  private nextId = 0;
  private dead = false;

  /**
   * @param source the pattern as the model wrote it; compile errors surface from the constructor.
   * @param flags RegExp flags (`i` or none; `g`/`y` are stripped: matching is per line).
   * @param deadlineMs wall-clock budget of all {@link matchLines} calls together, from the worker's start.
   * @throws SyntaxError when the pattern does not compile (checked on this thread, which is fast).
   */
  constructor(
    source: string,
    flags: string,
    private readonly deadlineMs = DEFAULT_PATTERN_DEADLINE_MS,
  ) {
    const clean = flags.replace(/[gy]/g, '');
    new RegExp(source, clean);
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { source, flags: clean } });
    this.online = new Promise<number>((resolve, reject) => {
      this.worker.once('online', () => resolve(Date.now()));
      this.worker.once('error', reject);
      this.worker.once('exit', () => reject(new Error('the pattern worker stopped')));
    });
    this.online.catch(() => {});
  }

  /**
   * 0-based numbers of the lines of `text` (split on `\n`) the pattern matches, at most `max`.
   * @throws PatternTimeoutError past the deadline; the signal's reason when it aborts. Either ends the worker.
   */
  async matchLines(text: string, max: number, signal?: AbortSignal): Promise<number[]> {
    if (this.dead) throw new Error('the pattern matcher was disposed');
    signal?.throwIfAborted();
    const started = await this.online;
    signal?.throwIfAborted();
    return this.post(text, max, this.deadlineMs - (Date.now() - started), signal);
  }

  private post(text: string, max: number, remaining: number, signal: AbortSignal | undefined): Promise<number[]> {
    if (remaining <= 0) {
      this.dispose();
      return Promise.reject(new PatternTimeoutError(this.deadlineMs));
    }
    const id = ++this.nextId;
    return new Promise<number[]>((resolve, reject) => {
      const finish = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.worker.off('message', onMessage);
        this.worker.off('error', onError);
      };
      const onMessage = (m: { id: number; hits: number[] }): void => {
        if (m.id !== id) return;
        finish();
        resolve(m.hits);
      };
      const onError = (error: Error): void => {
        finish();
        this.dispose();
        reject(error);
      };
      const onAbort = (): void => {
        finish();
        this.dispose();
        reject(signal?.reason ?? new Error('aborted'));
      };
      const timer = setTimeout(() => {
        finish();
        this.dispose();
        reject(new PatternTimeoutError(this.deadlineMs));
      }, remaining);
      this.worker.on('message', onMessage);
      this.worker.on('error', onError);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.worker.postMessage({ id, text, max, cap: MATCH_LINE_MAX_CHARS });
    });
  }

  /** Terminates the worker (stops a running match). Safe to call more than once. */
  dispose(): void {
    if (this.dead) return;
    this.dead = true;
    void this.worker.terminate();
  }
}
