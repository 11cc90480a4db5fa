/**
 * Runs `prepareCompaction` off the caller's thread when that is worth it: large compactions with the
 * extractive summarizer and an exact tiktoken meter go to a worker thread (./worker-main), so the
 * extension host stays responsive, reports progress and can cancel; a session's worker stays warm
 * between runs and is sent only the messages it has not seen (./session-worker). Small
 * compactions, model summarizers (their wait is the network, already asynchronous) and counters a
 * worker cannot rebuild (estimates while the table loads, test counters) run inline. Either way the
 * result is the same: the worker runs the same core on a copy of the same items, and the replaced
 * items come back as the caller's own objects (./protocol).
 */
import fs from 'node:fs';
import path from 'node:path';
import { prepareCompaction, type CompactInput } from '../../../compaction/rewrite/compactor';
import { ExtractiveSummarizer } from '../../../compaction/summary/extractive';
import { tiktokenEncodingOf, type EncodingName } from '../../../tokenizer/tokenizer';
import { CompactionWorker, type CompactionProgress } from './session-worker';
import type { PreparedCompaction } from '../../../compaction/rewrite/commit';
import type { CompactionResult } from '../../../compaction/outcome';
import { nextTurn } from '../../../lifecycle/time-slices';

/**
 * Contexts of at least this many prompt tokens are compacted in a worker. Measured by
 * `npm run bench -- --only=worker` (bench/worker.ts, two shared cores): inline, the longest block of
 * the thread was about 40 ms at 9k tokens, 46 ms at 28k, 82 ms at 51k and 1.4 s at 1M; with the
 * worker 11-35 ms whatever the size (starting it, copying the context in slices, applying and
 * saving the result). The session's first run in the worker takes 0.1-0.9 s more to the outcome
 * (start-up, table load, every message sent); later runs on the warm worker are about as fast as
 * inline. Below this size an inline run stays near 50 ms and answers sooner.
 */
export const WORKER_MIN_TOKENS = 30_000;

/** How {@link prepareOffThread} runs. */
export interface OffThreadOptions {
  /** Reports progress of a run in a worker (inline runs report nothing). */
  onProgress?: (progress: CompactionProgress) => void;
  /** `worker`/`inline` force the choice (tests, benchmarks); default `auto` (see {@link WORKER_MIN_TOKENS}). */
  mode?: 'auto' | 'worker' | 'inline';
  /** Called once with where the run went and why (for the log). */
  onRoute?: (route: 'worker' | 'inline', why: string) => void;
  /**
   * The session's long-lived worker (see ./session-worker): kept warm between runs and sent only
   * the messages it has not seen. Without it a run gets a worker of its own, stopped after it.
   */
  worker?: CompactionWorker;
  /** The worker script of a run without `worker` (tests); default {@link compactionWorkerFile}. */
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
  if (!(input.summarizer instanceof ExtractiveSummarizer))
    return { why: `the ${input.summarizer.name} summarizer runs on this thread` };
  if (input.options.onDelta || input.options.now) return { why: 'the run has callbacks' };
  if (!input.meter.exact) return { why: 'the tokenizer is still loading' };
  const encoding = tiktokenEncodingOf(input.meter.counter);
  if (!encoding) return { why: 'the meter counts with a tokenizer a worker cannot load' };
  return { encoding };
}

/**
 * `prepareCompaction(input)`, in a worker when the context is large (see the module comment).
 * Cancelling (`input.options.signal`) rejects at once with the signal's reason (the worker drops
 * the run at its next span); the caller's context is never touched by the worker either way.
 * @throws Error when the worker fails or stops before answering (the context is unchanged).
 */
export async function prepareOffThread(
  input: CompactInput,
  options: OffThreadOptions = {},
): Promise<PreparedCompaction | CompactionResult> {
  const mode = options.mode ?? 'auto';
  const file = options.worker?.file ?? options.workerFile ?? compactionWorkerFile();
  const route =
    mode === 'inline'
      ? { why: 'inline run requested' }
      : file
        ? workerEncoding(input)
        : { why: 'the worker script is missing' };
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
  return runInWorker(input, route.encoding, file, options);
}

/** One compaction on `worker`, or on a worker of its own; see {@link prepareOffThread}. */
async function runInWorker(
  input: CompactInput,
  encoding: EncodingName,
  file: string,
  options: OffThreadOptions,
): Promise<PreparedCompaction | CompactionResult> {
  const { signal, now: _now, onDelta: _onDelta, ...rest } = input.options;
  void _now;
  void _onDelta;
  const worker = options.worker ?? new CompactionWorker(file);
  try {
    const result = await worker.run({
      items: input.items,
      encoding,
      tools: input.tools ? [...input.tools] : undefined,
      options: rest,
      signal,
      onProgress: options.onProgress,
      remember: (m, tokens) => input.meter.remember(m, tokens),
      meter: input.meter,
    });
    // Taking the result over was this turn's work; the commit that follows gets a turn of its own.
    await nextTurn();
    return result;
  } finally {
    // Stopping a thread takes a few milliseconds: after the caller has its answer, in a later turn.
    if (!options.worker) setImmediate(() => worker.dispose());
  }
}
