/**
 * A large manual compaction run by the context service as the extension runs it, with the
 * compaction on the extension host's thread (`compactionThread: 'inline'`) and in the session's
 * worker thread (`'worker'`, what `auto` picks at this size), side by side in one run. Each run is
 * two jobs on one service: the first compaction (the worker starts, loads its table and is sent the
 * whole context), then the checkpoint is restored (the same messages come back) and the context is
 * compacted again (the worker is warm: its table is built, it holds the messages and their counts,
 * and is sent only what it has not seen). For each job, the whole compaction from the request to
 * the outcome, its commit on the calling thread included (the result applied, the tally moved, the
 * state handed to the save): the longest block of the calling thread's event loop
 * (the longest wall time between two ticks of a 1 ms timer, or `perf_hooks.monitorEventLoopDelay`'s
 * longest delay if longer: the monitor alone missed an inline job's whole compaction; wall time,
 * which a loaded machine inflates),
 * the most CPU time of the calling thread between two ticks of a 1 ms timer (the same block without
 * the neighbours' share of the cores), the wall time to the outcome, and whether every run gives the
 * same result (tokens after, checkpoint summaries). Each run gets a fresh service over freshly made
 * messages (the same seed), so no run profits from what an earlier one cached per message.
 * Contenders are interleaved.
 *
 * The messages are real text (bench/real-text.ts: pieces of the recorded sessions and of real
 * source files, never a word list), sized in tokens (the service's threshold for the worker) or in
 * messages (10k, 100k and 300k: what a long session holds).
 *
 * Usage alone: `node bench/build.mjs && node --expose-gc out/bench/compaction-run.js --section=worker
 * --sizes=10000m,100000m [--reps=3]` (a size ending in `m` is in messages, else in tokens).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import OpenAI from 'openai';
import { NodeToolHost } from '../src/agent/node-host';
import { createTokenCounter } from '../src/tokenizer/tokenizer';
import { ContextService } from '../src/service/service';
import { WORKER_MIN_TOKENS } from '../src/service/compaction/worker/runner';
import { loadRealText, realisticRecording, TextCutter, type RealText } from './real-text';
import { median, sig, threadCpuMs } from './stats';
import type { ChatMessage, Entry } from '../src/compaction/types';
import { describeOutcome } from '../src/service/compaction/outcome';

type Thread = 'inline' | 'worker';
type Job = 'first' | 'second';

/** A context size: prompt tokens (about 4 characters each) or messages. */
export type WorkerSize = { tokens: number } | { messages: number };

/** One job: ms of the longest event-loop block, ms to the outcome, and the result to compare. */
interface JobRun {
  blockMs: number;
  /** Most CPU time of the calling thread between two ticks of a 1 ms timer, ms. */
  blockCpuMs: number;
  wallMs: number;
  tokensAfter: number;
  summaries: string;
  progressReports: number;
}

/** One run: both jobs on one service. */
interface Run {
  tokensBefore: number;
  messages: number;
  route: string;
  jobs: Record<Job, JobRun>;
}

/** Medians (and the largest block) of one job over the runs, per thread. */
export interface WorkerJobFigures {
  blockMs: Record<Thread, number>;
  /** Most CPU time of the calling thread between two timer ticks: median and max over the runs. */
  blockCpuMs: Record<Thread, number>;
  blockCpuMsMax: Record<Thread, number>;
  blockMsMax: Record<Thread, number>;
  wallMs: Record<Thread, number>;
}

export interface WorkerBenchRow {
  /** The size asked for. */
  size: WorkerSize;
  tokens: number;
  messages: number;
  /** The first job (the worker starts cold). */
  blockMs: Record<Thread, number>;
  blockMsMax: Record<Thread, number>;
  blockCpuMs: Record<Thread, number>;
  blockCpuMsMax: Record<Thread, number>;
  wallMs: Record<Thread, number>;
  /** The second job on the same service (the worker is warm). */
  warm: WorkerJobFigures;
  tokensAfter: number;
  /** Every run's first and second job gave the inline run's tokens and summaries of that job. */
  sameResult: boolean;
  /** Where the service said each run went (from its log). */
  routes: Record<Thread, string>;
  progressReports: number;
}

export interface WorkerBench {
  rows: WorkerBenchRow[];
  /** Where the text came from. */
  text: string;
  reps: number;
  workerMinTokens: number;
}

/**
 * Compacts now, measuring the longest block of this thread's event loop and the time to the outcome.
 * With `profile`, this thread's CPU profile of the job is written there.
 */
async function job(service: ContextService, profile?: string): Promise<JobRun> {
  global.gc?.();
  let progressReports = 0;
  const monitor = monitorEventLoopDelay({ resolution: 1 });
  monitor.enable();
  let blockCpuMs = 0;
  let lastCpu = threadCpuMs() ?? 0;
  // With a profile, the stretches between ticks longer than 20 ms (µs of the profile's clock), to find them in it.
  const gaps: [number, number][] = [];
  let lastTick = process.hrtime.bigint();
  const start = lastTick;
  let longestGap = 0n;
  // With CK_BENCH_BLOCKS=1, the stretches of more than 10 ms of this thread's CPU between ticks are logged (ms into the job).
  const blocks: string[] = [];
  const ticks = setInterval(() => {
    const cpu = threadCpuMs() ?? 0;
    blockCpuMs = Math.max(blockCpuMs, cpu - lastCpu);
    const now = process.hrtime.bigint();
    if (process.env.CK_BENCH_BLOCKS && cpu - lastCpu > 10)
      blocks.push(
        `${(cpu - lastCpu).toFixed(1)} ms CPU / ${(Number(now - lastTick) / 1e6).toFixed(1)} ms wall at ${(Number(lastTick - start) / 1e6).toFixed(0)} ms`,
      );
    lastCpu = cpu;
    if (now - lastTick > longestGap) longestGap = now - lastTick;
    if (profile && now - lastTick > 20_000_000n) gaps.push([Number(lastTick / 1000n), Number(now / 1000n)]);
    lastTick = now;
  }, 1);
  const session = profile ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  // A few turns first, so the monitor and the ticks have their first samples.
  await new Promise((resolve) => setTimeout(resolve, 5));
  const t0 = process.hrtime.bigint();
  const outcome = await service.compactNow({ onProgress: () => progressReports++ });
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  // One more turn, so the monitor and the ticks see the end of the last block.
  await new Promise((resolve) => setTimeout(resolve, 5));
  monitor.disable();
  clearInterval(ticks);
  if (blocks.length) process.stderr.write(`blocks of the job (${wallMs.toFixed(0)} ms): ${blocks.join('; ')}\n`);
  if (session && profile) {
    const { profile: taken } = await session.post('Profiler.stop');
    session.disconnect();
    writeFileSync(profile, JSON.stringify(taken));
    writeFileSync(`${profile}.gaps.json`, JSON.stringify(gaps));
  }
  if (outcome.status.kind !== 'applied')
    throw new Error(`bench compaction not applied: ${describeOutcome(outcome.status)}`);
  const summaries = service
    .getCheckpoints()
    .filter((c) => !c.restored)
    .map((c) => c.summary)
    .join('\n---\n')
    // A summary names its checkpoint, whose id is drawn at random: the ids are not compared.
    .replace(/ck-\d{8}/g, 'ck-#');
  return {
    blockMs: Math.max(monitor.max, Number(longestGap)) / 1e6,
    blockCpuMs,
    wallMs,
    tokensAfter: outcome.tokensAfter,
    summaries,
    progressReports,
  };
}

/** Entries of real text of `size` (the same text for the same size and seed; new objects each call). */
export function realEntries(text: RealText, size: WorkerSize, seed = 7): Entry[] {
  const cutter = new TextCutter(text, seed);
  let messages: ChatMessage[];
  if ('messages' in size) messages = realisticRecording(size.messages, cutter);
  else {
    messages = [];
    let chars = 0;
    while (chars < size.tokens * 4)
      for (const m of realisticRecording(200, cutter)) {
        messages.push(m);
        chars += JSON.stringify(m).length;
        if (chars >= size.tokens * 4) break;
      }
    // A recording ends on a complete step: a trailing tool call without its result is dropped.
    for (let last = messages.at(-1); last?.role === 'assistant' && last.tool_calls?.length; last = messages.at(-1))
      messages.pop();
  }
  return messages.map((message, i) => ({ id: `r${seed}-${i}`, message }));
}

async function once(thread: Thread, size: WorkerSize, text: RealText): Promise<Run> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ck-bench-worker-'));
  let route = '';
  try {
    const client = new OpenAI({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'unused', maxRetries: 0 });
    const service = await ContextService.open({
      client,
      model: 'gpt-4o',
      budget: { contextWindow: 200_000, reservedOutput: 4_096, compactAt: 0.8, compactTo: 0.5 },
      host: new NodeToolHost(dir),
      storageDir: path.join(dir, 'sessions'),
      tokenCounter: createTokenCounter('o200k_base'),
      compactionThread: thread,
      // A loaded machine (a 300k-message inline run takes minutes of wall time there) must not time it out.
      compactionTimeoutMs: 900_000,
      log: (_level, message) => {
        if (message.startsWith('compaction runs') && !route) route = message;
      },
    });
    try {
      const entries = realEntries(text, size);
      const messages = entries.length;
      await service.importTranscript({ source: 'bench: real text', entries });
      const tokensBefore = service.getBudget().used;
      // With CK_BENCH_PROFILE=PREFIX, each job's profile of this thread goes to PREFIX-<thread>-<messages>-<job>.cpuprofile.
      const profile = (name: string) =>
        process.env.CK_BENCH_PROFILE
          ? `${process.env.CK_BENCH_PROFILE}-${thread}-${messages}-${name}.cpuprofile`
          : undefined;
      const first = await job(service, profile('first'));
      // The same messages back (the user restores the checkpoint), then the same compaction again.
      for (
        let cp = service.getCheckpoints().find((c) => !c.restored);
        cp;
        cp = service.getCheckpoints().find((c) => !c.restored)
      )
        await service.restoreCheckpoint(cp.id);
      // The restore's own bookkeeping (saving, recounting) settles before the second job is timed.
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (service.getBudget().used !== tokensBefore)
        throw new Error(
          `the restore did not bring the context back (${service.getBudget().used} tokens, not ${tokensBefore})`,
        );
      const second = await job(service, profile('warm'));
      return { tokensBefore, messages, route, jobs: { first, second } };
    } finally {
      service.dispose();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs both threads at each size on real text read from `root` (the repository), `reps` times each, interleaved. */
export async function benchWorker(
  root: string,
  sizes: readonly WorkerSize[],
  reps: number,
  log: (line: string) => void,
): Promise<WorkerBench> {
  const text = await loadRealText(root);
  log(`worker: ${text.source}`);
  const rows: WorkerBenchRow[] = [];
  for (const size of sizes) {
    const runs: Record<Thread, Run[]> = { inline: [], worker: [] };
    for (let k = 0; k < reps; k++) {
      // CK_BENCH_WORKER_ONLY=1 (diagnosis, profiles) leaves the inline runs out.
      const order: Thread[] = process.env.CK_BENCH_WORKER_ONLY
        ? ['worker']
        : k % 2 === 0
          ? ['inline', 'worker']
          : ['worker', 'inline'];
      for (const thread of order) runs[thread].push(await once(thread, size, text));
    }
    const refRuns = runs.inline.length ? runs.inline : runs.worker;
    const ref = refRuns[0].jobs.first;
    const both = [...runs.inline, ...runs.worker];
    const sameResult = (['first', 'second'] as const).every((j) =>
      both.every(
        (r) =>
          r.jobs[j].tokensAfter === refRuns[0].jobs[j].tokensAfter &&
          r.jobs[j].summaries === refRuns[0].jobs[j].summaries,
      ),
    );
    if (!sameResult)
      for (const j of ['first', 'second'] as const)
        for (const r of both) {
          const a = refRuns[0].jobs[j];
          const b = r.jobs[j];
          if (a.tokensAfter === b.tokensAfter && a.summaries === b.summaries) continue;
          let at = 0;
          while (at < a.summaries.length && a.summaries[at] === b.summaries[at]) at++;
          log(
            `${j} job differs: tokens after ${a.tokensAfter} vs ${b.tokensAfter}; summaries from character ${at}: ${JSON.stringify(a.summaries.slice(at, at + 120))} vs ${JSON.stringify(b.summaries.slice(at, at + 120))}`,
          );
        }
    const figures = (j: Job): WorkerJobFigures => {
      const pick = (f: (r: JobRun) => number, over: (xs: number[]) => number) => ({
        inline: sig(over(runs.inline.map((r) => f(r.jobs[j])))),
        worker: sig(over(runs.worker.map((r) => f(r.jobs[j])))),
      });
      return {
        blockMs: pick((r) => r.blockMs, median),
        blockMsMax: pick(
          (r) => r.blockMs,
          (xs) => Math.max(...xs),
        ),
        blockCpuMs: pick((r) => r.blockCpuMs, median),
        blockCpuMsMax: pick(
          (r) => r.blockCpuMs,
          (xs) => Math.max(...xs),
        ),
        wallMs: pick((r) => r.wallMs, median),
      };
    };
    const row: WorkerBenchRow = {
      size,
      tokens: refRuns[0].tokensBefore,
      messages: refRuns[0].messages,
      ...figures('first'),
      warm: figures('second'),
      tokensAfter: ref.tokensAfter,
      sameResult,
      routes: { inline: runs.inline[0]?.route ?? '', worker: runs.worker[0].route },
      progressReports: runs.worker[0].jobs.first.progressReports,
    };
    rows.push(row);
    log(
      `worker ${row.messages} messages, ${row.tokens} tokens: block inline ${row.blockMs.inline} ms, worker ${row.blockMs.worker} (max ${row.blockMsMax.worker}) / warm ${row.warm.blockMs.worker} (max ${row.warm.blockMsMax.worker}) ms; thread CPU between ticks, worker ${row.blockCpuMs.worker} (max ${row.blockCpuMsMax.worker}) / warm ${row.warm.blockCpuMs.worker} (max ${row.warm.blockCpuMsMax.worker}) ms; wall inline ${row.wallMs.inline} / ${row.warm.wallMs.inline}, worker ${row.wallMs.worker} / warm ${row.warm.wallMs.worker} ms; same result ${sameResult}`,
    );
  }
  return { rows, text: text.source, reps, workerMinTokens: WORKER_MIN_TOKENS };
}
