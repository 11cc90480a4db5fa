/**
 * A large manual compaction run by the context service as the extension runs it, with the
 * compaction on the extension host's thread (`compactionThread: 'inline'`) and in the session's
 * worker thread (`'worker'`, what `auto` picks at this size), side by side in one run. Each run is
 * two jobs on one service: the first compaction (the worker starts, loads its table and is sent the
 * whole context), then the checkpoint is restored (the same messages come back) and the context is
 * compacted again (the worker is warm: its table is built, it holds the messages and their counts,
 * and is sent only what it has not seen). For each job: the longest block of the calling thread's
 * event loop (`perf_hooks.monitorEventLoopDelay`, 1 ms resolution), the wall time to the outcome,
 * and whether every run gives the same result (tokens after, checkpoint summaries). Each run gets a
 * fresh service over freshly generated messages (the same seed), so no run profits from what an
 * earlier one cached per message. Contenders are interleaved.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import OpenAI from 'openai';
import { NodeToolHost } from '../src/agent/node-host';
import { createTokenCounter } from '../src/tokenizer/tokenizer';
import { ContextService } from '../src/service/service';
import { WORKER_MIN_TOKENS } from '../src/service/compaction/worker/runner';
import { generateSession } from './corpus';
import { median, sig } from './stats';
import { describeOutcome } from '../src/service/compaction/outcome';

type Thread = 'inline' | 'worker';
type Job = 'first' | 'second';

/** One job: ms of the longest event-loop block, ms to the outcome, and the result to compare. */
interface JobRun {
  blockMs: number;
  wallMs: number;
  tokensAfter: number;
  summaries: string;
  progressReports: number;
}

/** One run: both jobs on one service. */
interface Run {
  tokensBefore: number;
  route: string;
  jobs: Record<Job, JobRun>;
}

/** Medians (and the largest block) of one job over the runs, per thread. */
export interface WorkerJobFigures {
  blockMs: Record<Thread, number>;
  blockMsMax: Record<Thread, number>;
  wallMs: Record<Thread, number>;
}

export interface WorkerBenchRow {
  tokens: number;
  messages: number;
  /** The first job (the worker starts cold). */
  blockMs: Record<Thread, number>;
  blockMsMax: Record<Thread, number>;
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
  reps: number;
  workerMinTokens: number;
}

/** Compacts now, measuring the longest block of this thread's event loop and the time to the outcome. */
async function job(service: ContextService): Promise<JobRun> {
  global.gc?.();
  let progressReports = 0;
  const monitor = monitorEventLoopDelay({ resolution: 1 });
  monitor.enable();
  const t0 = process.hrtime.bigint();
  const outcome = await service.compactNow({ onProgress: () => progressReports++ });
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  // One more turn, so the monitor sees the end of the last block.
  await new Promise((resolve) => setTimeout(resolve, 5));
  monitor.disable();
  if (outcome.status.kind !== 'applied')
    throw new Error(`bench compaction not applied: ${describeOutcome(outcome.status)}`);
  const summaries = service
    .getCheckpoints()
    .filter((c) => !c.restored)
    .map((c) => c.summary)
    .join('\n---\n');
  return { blockMs: monitor.max / 1e6, wallMs, tokensAfter: outcome.tokensAfter, summaries, progressReports };
}

async function once(thread: Thread, tokens: number): Promise<Run> {
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
      log: (_level, message) => {
        if (message.startsWith('compaction runs') && !route) route = message;
      },
    });
    try {
      await service.importTranscript({ source: 'bench: generated session', entries: generateSession(7, tokens) });
      const tokensBefore = service.getBudget().used;
      const first = await job(service);
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
      const second = await job(service);
      return { tokensBefore, route, jobs: { first, second } };
    } finally {
      service.dispose();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs both threads at each size (tokens of generated session), `reps` times each, interleaved. */
export async function benchWorker(
  sizes: readonly number[],
  reps: number,
  log: (line: string) => void,
): Promise<WorkerBench> {
  const rows: WorkerBenchRow[] = [];
  for (const tokens of sizes) {
    const runs: Record<Thread, Run[]> = { inline: [], worker: [] };
    for (let k = 0; k < reps; k++) {
      const order: Thread[] = k % 2 === 0 ? ['inline', 'worker'] : ['worker', 'inline'];
      for (const thread of order) runs[thread].push(await once(thread, tokens));
    }
    const ref = runs.inline[0].jobs.first;
    const both = [...runs.inline, ...runs.worker];
    const sameResult = (['first', 'second'] as const).every((j) =>
      both.every(
        (r) =>
          r.jobs[j].tokensAfter === runs.inline[0].jobs[j].tokensAfter &&
          r.jobs[j].summaries === runs.inline[0].jobs[j].summaries,
      ),
    );
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
        wallMs: pick((r) => r.wallMs, median),
      };
    };
    const row: WorkerBenchRow = {
      tokens: runs.inline[0].tokensBefore,
      messages: generateSession(7, tokens).length,
      ...figures('first'),
      warm: figures('second'),
      tokensAfter: ref.tokensAfter,
      sameResult,
      routes: { inline: runs.inline[0].route, worker: runs.worker[0].route },
      progressReports: runs.worker[0].jobs.first.progressReports,
    };
    rows.push(row);
    log(
      `worker ${row.tokens} tokens: block inline ${row.blockMs.inline} ms, worker ${row.blockMs.worker} / warm ${row.warm.blockMs.worker} ms; wall inline ${row.wallMs.inline} / ${row.warm.wallMs.inline}, worker ${row.wallMs.worker} / warm ${row.warm.wallMs.worker} ms; same result ${sameResult}`,
    );
  }
  return { rows, reps, workerMinTokens: WORKER_MIN_TOKENS };
}
