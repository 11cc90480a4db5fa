/**
 * Runs `prepareCompaction` off the caller's thread when that is worth it: large compactions with the
 * extractive summarizer and an exact tiktoken meter go to a worker thread (./worker-main), so the
 * extension host stays responsive, reports progress and can cancel by terminating the worker. Small
 * compactions, model summarizers (their wait is the network, already asynchronous) and counters a
 * worker cannot rebuild (estimates while the table loads, test counters) run inline. Either way the
 * result is the same: the worker runs the same core on a copy of the same items, and the replaced
 * items come back as the caller's own objects (./protocol).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { prepareCompaction, type CompactInput, type PreparedCompaction } from '../../compaction/compactor';
import { ExtractiveSummarizer } from '../../compaction/extractive';
import { tiktokenEncodingOf, type EncodingName } from '../../compaction/tokenizer';
import type { CompactionResult } from '../../compaction/types';
import { decodeResult, type FromWorker, type ToWorker } from './protocol';

/**
 * Contexts of at least this many prompt tokens are compacted in a worker. Measured by
 * `npm run bench -- --only=worker` (bench/worker.ts, two shared cores): inline, the longest block of
 * the thread was about 40 ms at 9k tokens, 46 ms at 28k, 82 ms at 51k and 1.4 s at 1M; with the
 * worker 11-35 ms whatever the size (starting it, copying the context in slices, applying and
 * saving the result), but 0.1-0.4 s more to the outcome (start-up, table load, each message read
 * afresh). Below this size an inline run stays near 50 ms and answers sooner.
 */
export const WORKER_MIN_TOKENS = 30_000;
/**
 * Characters of message content per message to the worker (about 50k tokens): each message's copy is
 * made on this thread in its own turn of the event loop, a few milliseconds each.
 */
export const CHARS_PER_MESSAGE = 200_000;

/** Progress of a compaction: `done` of `total` messages summarized so far. */
export interface CompactionProgress {
  message: string;
  done: number;
  total: number;
}

/** How {@link prepareOffThread} runs. */
export interface OffThreadOptions {
  /** Reports progress of a run in a worker (inline runs report nothing). */
  onProgress?: (progress: CompactionProgress) => void;
  /** `worker`/`inline` force the choice (tests, benchmarks); default `auto` (see {@link WORKER_MIN_TOKENS}). */
  mode?: 'auto' | 'worker' | 'inline';
  /** Called once with where the run went and why (for the log). */
  onRoute?: (route: 'worker' | 'inline', why: string) => void;
  /** The worker script (tests); default {@link compactionWorkerFile}. */
  workerFile?: string;
}

let resolvedWorkerFile: string | null | undefined;

/**
 * The worker script: `compaction-worker.js` beside this bundle (extension, CLI, benchmarks), else the
 * compiled `worker-main.js` beside this module (tests run from `tsc` output); undefined when neither exists.
 */
export function compactionWorkerFile(): string | undefined {
  if (resolvedWorkerFile === undefined) {
    const candidates = [path.join(__dirname, 'compaction-worker.js'), path.join(__dirname, 'worker-main.js')];
    resolvedWorkerFile = candidates.find((file) => fs.existsSync(file)) ?? null;
  }
  return resolvedWorkerFile ?? undefined;
}

/** The encoding a worker can rebuild the meter with, or why the run must stay inline. */
function workerEncoding(input: CompactInput): { encoding: EncodingName } | { why: string } {
  if (!(input.summarizer instanceof ExtractiveSummarizer)) return { why: `the ${input.summarizer.name} summarizer runs on this thread` };
  if (input.options.onDelta || input.options.now) return { why: 'the run has callbacks' };
  if (!input.meter.exact) return { why: 'the tokenizer is still loading' };
  const encoding = tiktokenEncodingOf(input.meter.counter);
  if (!encoding) return { why: 'the meter counts with a tokenizer a worker cannot load' };
  return { encoding };
}

/**
 * `prepareCompaction(input)`, in a worker when the context is large (see the module comment).
 * Cancelling (`input.options.signal`) terminates the worker and rejects with the signal's reason;
 * the caller's context is never touched by the worker either way.
 * @throws Error when the worker fails or stops before answering (the context is unchanged).
 */
export async function prepareOffThread(input: CompactInput, options: OffThreadOptions = {}): Promise<PreparedCompaction | CompactionResult> {
  const mode = options.mode ?? 'auto';
  const file = options.workerFile ?? compactionWorkerFile();
  const route = mode === 'inline' ? { why: 'inline run requested' } : file ? workerEncoding(input) : { why: 'the worker script is missing' };
  if ('why' in route || file === undefined) {
    const why = 'why' in route ? route.why : 'the worker script is missing';
    if (mode === 'worker') throw new Error(`cannot compact in a worker: ${why}`);
    options.onRoute?.('inline', why);
    return prepareCompaction(input);
  }
  if (mode === 'auto') {
    // Counts are cached per message: this is the reading the core starts with anyway.
    const tokens = input.meter.measure(input.items, input.tools).total;
    if (tokens < WORKER_MIN_TOKENS) {
      options.onRoute?.('inline', `${tokens} tokens, below ${WORKER_MIN_TOKENS}`);
      return prepareCompaction(input);
    }
  }
  options.onRoute?.('worker', `${input.items.length} messages`);
  return runInWorker(input, route.encoding, file, options.onProgress);
}

/** One compaction in a fresh worker; see {@link prepareOffThread}. */
function runInWorker(input: CompactInput, encoding: EncodingName, file: string, onProgress?: (p: CompactionProgress) => void): Promise<PreparedCompaction | CompactionResult> {
  const { signal, now: _now, onDelta: _onDelta, ...options } = input.options;
  void _now;
  void _onDelta;
  const items = input.items;
  signal?.throwIfAborted();
  const worker = new Worker(file);
  return new Promise<PreparedCompaction | CompactionResult>((resolve, reject) => {
    let settled = false;
    const finish = (end: () => void): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      end();
      // Stopping a thread takes a few milliseconds: after the caller has its answer, in a later turn.
      setImmediate(() => void worker.terminate());
    };
    const onAbort = (): void => finish(() => reject(signal?.reason));
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (message: FromWorker) => {
      if (message.type === 'progress') onProgress?.({ message: message.message, done: message.done, total: message.total });
      else if (message.type === 'error') finish(() => reject(new Error(`the compaction worker failed: ${message.message}`)));
      else {
        finish(() => {
          try {
            resolve(decodeResult(message.result, items, (m, tokens) => input.meter.remember(m, tokens)));
          } catch (error) {
            reject(error);
          }
        });
      }
    });
    worker.on('error', (error) => finish(() => reject(new Error(`the compaction worker crashed: ${error.message}`))));
    worker.on('exit', (code) => finish(() => reject(new Error(`the compaction worker stopped (exit code ${code}) before it finished`))));
    void send(worker, items, { type: 'run', encoding, tools: input.tools ? [...input.tools] : undefined, options: options }, () => settled).catch((error: unknown) =>
      finish(() => reject(error)),
    );
  });
}

/** Posts the items in slices of about {@link CHARS_PER_MESSAGE}, one per turn of the event loop, then the run. */
async function send(worker: Worker, items: CompactInput['items'], run: ToWorker, stopped: () => boolean): Promise<void> {
  let at = 0;
  while (at < items.length) {
    // The worker's start-up work on this thread ends this turn; each slice gets one of its own.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (stopped()) return;
    let end = at;
    for (let chars = 0; end < items.length && (end === at || chars < CHARS_PER_MESSAGE); end++) chars += roughSize(items[end]);
    const message: ToWorker = { type: 'items', items: items.slice(at, end) };
    worker.postMessage(message);
    at = end;
  }
  if (!stopped()) worker.postMessage(run);
}

/** Characters of an item's message content and tool calls (images counted by their data URL), roughly. */
function roughSize(item: CompactInput['items'][number]): number {
  const m = item.message as { content?: unknown; tool_calls?: Array<{ function?: { arguments?: string } }> };
  let n = 64;
  if (typeof m.content === 'string') n += m.content.length;
  else if (Array.isArray(m.content)) {
    for (const part of m.content as Array<{ text?: string; image_url?: { url?: string } }>) n += (part.text?.length ?? 0) + (part.image_url?.url?.length ?? 0) + 32;
  }
  for (const call of m.tool_calls ?? []) n += (call.function?.arguments?.length ?? 0) + 64;
  return n;
}
