/**
 * `compact()` on a conversation of real text (bench/real-text.ts `realisticRecording`: pieces of the
 * recorded sessions in `../shared/transcripts` and of real source files, about 75 tokens a message:
 * 100k messages hold about 7.5M tokens) at a 128k window: an automatic compaction with the
 * extractive summarizer, as the service and the CLI run it (the meter's counts taken beforehand, as
 * the service has them; one summarizer for every run, as the service keeps one). A small word list
 * would give the identifier scans, the notes and the tokenizer almost nothing to find.
 *
 * Three figures per size, CPU time of the calling thread (Linux `/proc/thread-self/schedstat`; where
 * that is missing, CPU time of the whole process): the time `compact()` holds its caller, which is
 * what the editor feels. On a shared machine wall time mostly measures the neighbours. The process's
 * CPU time (user + system) is reported beside it: it adds V8's helper threads, chiefly the
 * optimizing compiler, which after each full garbage collection compiles again the loops a
 * compaction runs once (measured: 200-300 ms of helper-thread CPU per 100k-message compaction), and
 * the parallel garbage collector. Wall time is reported too.
 * - grown span (held against the 500 ms target): the previous compaction ran on the same
 *   conversation {@link GROWTH} messages shorter, as in the product, where each compaction covers a
 *   span that grew since the last one (or since the summary prepared ahead, or a preview); the
 *   median of `reps` runs, each on a span {@link GROWTH} messages longer than the one before, the
 *   last at the size itself;
 * - first sight: messages never read before (each message's actions, identifiers and typed request
 *   are read once and kept per message object; the first compaction of a session imported whole);
 * - same span again: the previous compaction ran on exactly these messages (a repeated preview).
 */
import { loadRealText, realisticRecording, TextCutter, type RealText } from './real-text';
import { TokenMeter } from '../src/compaction/meter/meter';
import { itemsFromEntries } from '../src/compaction/context';
import { compact } from '../src/compaction/rewrite/compactor';
import { ExtractiveSummarizer } from '../src/compaction/summary/extractive';
import { growthExponent, median, nowMs, sig, threadCpuMs } from './stats';
import type { ContextItem } from '../src/compaction/types';
import { describeCompaction } from '../src/compaction/outcome-text';

/** Messages a span grows by between two compactions in the grown-span figure. */
export const GROWTH = 1000;

/** One size; times in milliseconds of CPU. */
export interface CompactRow {
  messages: number;
  tokens: number;
  /** The figure held against the target: the previous compaction ran on {@link GROWTH} fewer messages. */
  grownMs: number;
  /** Whether the times are the calling thread's (else the whole process's). */
  thread: boolean;
  /** The grown-span runs' CPU time of the whole process (helper threads included), median. */
  grownProcessMs: number;
  /** The grown-span runs' wall time, median. */
  grownWallMs: number;
  firstSightMs: number;
  /** The previous compaction ran on exactly these messages. */
  againMs: number;
  tokensAfter: number;
}

export interface CompactBench {
  rows: CompactRow[];
  /** Where the text came from. */
  text: string;
  /** Growth exponent of `grownMs`, `againMs` and `firstSightMs` between the sizes (1 linear). */
  grownExponent: number;
  againExponent: number;
  firstSightExponent: number;
}

function processCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

const BUDGET = { contextWindow: 128_000, compactAt: 0.8, compactTo: 0.5, reservedOutput: 4096 };

/**
 * The conversation of `n` messages of real text as context items, counted by `meter` (new message
 * objects each call, the same text for the same `n`).
 */
function conversation(text: RealText, n: number, meter: TokenMeter) {
  const entries = realisticRecording(n, new TextCutter(text, 5)).map((message, i) => ({ id: `r5-${i}`, message }));
  const items = itemsFromEntries(entries);
  return { items, tokens: meter.measure(items).total };
}

/**
 * Runs `compact()` at each size (messages) on real text read from `root` (the repository): first
 * sight, then `reps` grown spans and `reps` runs of the same span again (medians).
 */
export async function benchCompact(
  root: string,
  sizes: readonly number[],
  reps: number,
  log: (line: string) => void,
): Promise<CompactBench> {
  const text = await loadRealText(root);
  log(`compact: ${text.source}`);
  const rows: CompactRow[] = [];
  for (const n of sizes) {
    const meter = new TokenMeter({ model: 'gpt-4o' });
    const summarizer = new ExtractiveSummarizer((t) => meter.countText(t), { lineAdditive: meter.lineAdditive });
    const run = async (items: readonly ContextItem[]) => {
      global.gc?.();
      const thread0 = threadCpuMs();
      const process0 = processCpuMs();
      const wall0 = nowMs();
      const r = await compact({ items, meter, summarizer, options: { budget: BUDGET, trigger: 'auto' } });
      const wall = nowMs() - wall0;
      const processMs = processCpuMs() - process0;
      const thread1 = threadCpuMs();
      if (r.status.kind !== 'applied') throw new Error(`bench compaction not applied: ${describeCompaction(r.status)}`);
      const threadMs = thread0 !== undefined && thread1 !== undefined ? thread1 - thread0 : undefined;
      return { ms: threadMs ?? processMs, thread: threadMs !== undefined, processMs, wall, after: r.tokensAfter };
    };
    // First sight on one copy of the conversation; the grown spans on another (new message
    // objects: nothing read at first sight helps them), its first compaction untimed.
    const { items: unread, tokens } = conversation(text, n, meter);
    const first = await run(unread);
    const { items } = conversation(text, n, meter);
    await run(items.slice(0, n - GROWTH * reps));
    const grown: Array<Awaited<ReturnType<typeof run>>> = [];
    for (let k = reps - 1; k >= 0; k--) grown.push(await run(k === 0 ? items : items.slice(0, n - GROWTH * k)));
    const again: number[] = [];
    for (let k = 0; k < reps; k++) again.push((await run(items)).ms);
    const row: CompactRow = {
      messages: n,
      tokens,
      grownMs: Math.round(median(grown.map((g) => g.ms))),
      thread: first.thread,
      grownProcessMs: Math.round(median(grown.map((g) => g.processMs))),
      grownWallMs: Math.round(median(grown.map((g) => g.wall))),
      firstSightMs: Math.round(first.ms),
      againMs: Math.round(median(again)),
      tokensAfter: first.after,
    };
    rows.push(row);
    const clock = row.thread ? 'calling thread' : 'process';
    log(
      `compact ${n} messages (CPU of the ${clock}): grown span ${row.grownMs} ms (runs ${grown.map((g) => Math.round(g.ms)).join(', ')}; process CPU ${grown.map((g) => Math.round(g.processMs)).join(', ')}; wall ${grown.map((g) => Math.round(g.wall)).join(', ')}), first sight ${row.firstSightMs} ms, same span again ${row.againMs} ms`,
    );
  }
  const a = rows[0];
  const b = rows[rows.length - 1];
  const exp = (f: (r: CompactRow) => number) => sig(growthExponent(a.messages, f(a), b.messages, f(b)));
  return {
    rows,
    text: text.source,
    grownExponent: exp((r) => r.grownMs),
    againExponent: exp((r) => r.againMs),
    firstSightExponent: exp((r) => r.firstSightMs),
  };
}
