/**
 * A large manual compaction run by the context service as the extension runs it, with the
 * compaction on the extension host's thread (`compactionThread: 'inline'`) and in the worker thread
 * (`'worker'`, what `auto` picks at this size), side by side in one run: the longest block of the
 * calling thread's event loop while the compaction runs (`perf_hooks.monitorEventLoopDelay`, 1 ms
 * resolution), the wall time to the outcome, and whether both give the same result (tokens after,
 * checkpoint summaries). Each run gets a fresh service over freshly generated messages (the same
 * seed), so no run profits from what an earlier one cached per message. Contenders are interleaved.
 *
 * Also the smallest sizes: the wall time of a compaction inline and in a worker at a few context
 * sizes, behind `WORKER_MIN_TOKENS` (the size from which `auto` uses the worker).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import OpenAI from 'openai';
import { NodeToolHost } from '../src/agent/nodeHost';
import { createTokenCounter } from '../src/compaction/tokenizer';
import { ContextService } from '../src/service/service';
import { WORKER_MIN_TOKENS } from '../src/service/compaction-worker/runner';
import { generateSession } from './corpus';
import { median, sig } from './stats';

type Thread = 'inline' | 'worker';

/** One run: ms of the longest event-loop block, ms to the outcome, and the result to compare. */
interface Run {
  blockMs: number;
  wallMs: number;
  tokensBefore: number;
  tokensAfter: number;
  summaries: string;
  route: string;
  progressReports: number;
}

export interface WorkerBenchRow {
  tokens: number;
  messages: number;
  /** Medians over the runs, per thread. */
  blockMs: Record<Thread, number>;
  blockMsMax: Record<Thread, number>;
  wallMs: Record<Thread, number>;
  tokensAfter: number;
  /** Every worker run gave the inline run's tokens and summaries. */
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
        if (message.startsWith('compaction runs')) route = message;
      },
    });
    try {
      await service.importTranscript({ source: 'bench: generated session', entries: generateSession(7, tokens) });
      const before = service.getBudget().used;
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
      if (!outcome.applied) throw new Error(`bench compaction not applied: ${outcome.reason}`);
      const summaries = service.getCheckpoints().map((c) => c.summary).join('\n---\n');
      return { blockMs: monitor.max / 1e6, wallMs, tokensBefore: before, tokensAfter: outcome.tokensAfter, summaries, route, progressReports };
    } finally {
      service.dispose();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs both threads at each size (tokens of generated session), `reps` times each, interleaved. */
export async function benchWorker(sizes: readonly number[], reps: number, log: (line: string) => void): Promise<WorkerBench> {
  const rows: WorkerBenchRow[] = [];
  for (const tokens of sizes) {
    const runs: Record<Thread, Run[]> = { inline: [], worker: [] };
    for (let k = 0; k < reps; k++) {
      const order: Thread[] = k % 2 === 0 ? ['inline', 'worker'] : ['worker', 'inline'];
      for (const thread of order) runs[thread].push(await once(thread, tokens));
    }
    const ref = runs.inline[0];
    const sameResult = [...runs.inline, ...runs.worker].every((r) => r.tokensAfter === ref.tokensAfter && r.summaries === ref.summaries);
    const pick = (f: (r: Run) => number) => ({ inline: sig(median(runs.inline.map(f))), worker: sig(median(runs.worker.map(f))) });
    const row: WorkerBenchRow = {
      tokens: ref.tokensBefore,
      messages: generateSession(7, tokens).length,
      blockMs: pick((r) => r.blockMs),
      blockMsMax: { inline: sig(Math.max(...runs.inline.map((r) => r.blockMs))), worker: sig(Math.max(...runs.worker.map((r) => r.blockMs))) },
      wallMs: pick((r) => r.wallMs),
      tokensAfter: ref.tokensAfter,
      sameResult,
      routes: { inline: runs.inline[0].route, worker: runs.worker[0].route },
      progressReports: runs.worker[0].progressReports,
    };
    rows.push(row);
    log(`worker ${row.tokens} tokens: block inline ${row.blockMs.inline} ms, worker ${row.blockMs.worker} ms; wall ${row.wallMs.inline} / ${row.wallMs.worker} ms; same result ${sameResult}`);
  }
  return { rows, reps, workerMinTokens: WORKER_MIN_TOKENS };
}
