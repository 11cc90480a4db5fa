/**
 * Timing helpers. Every figure the benchmarks report is a ratio or a growth exponent between
 * contenders measured in the same run; contenders are interleaved (round-robin, rotating the
 * order) so load from other processes affects them alike.
 */

import { readFileSync } from 'node:fs';

/** Current time in milliseconds, sub-microsecond resolution. */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * CPU time of the calling thread so far, in milliseconds (nanosecond resolution), from Linux's
 * `/proc/thread-self/schedstat` (its first field: time spent running, in nanoseconds); undefined
 * where that file is missing. Unlike `process.cpuUsage()` it leaves out V8's helper threads
 * (concurrent compilation, parallel and concurrent garbage collection), which do not hold the caller.
 */
export function threadCpuMs(): number | undefined {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return undefined;
  }
}

/** Median of `xs` (NaN when empty). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Growth exponent k of t ∝ n^k between two sizes: log(t2/t1) / log(n2/n1).
 * 1 is linear, 2 quadratic.
 */
export function growthExponent(n1: number, t1: number, n2: number, t2: number): number {
  return Math.log(t2 / t1) / Math.log(n2 / n1);
}

/** One contender of an interleaved measurement. */
export interface Contender {
  name: string;
  /** Runs once; returns the milliseconds to count (setup may be excluded), or void to time the whole call. */
  run: () => number | void;
  /** Untimed, before each run (for example clearing a cache). */
  before?: () => void;
}

/** Options of {@link interleave}. */
export interface InterleaveOptions {
  /** Untimed runs of each contender first (JIT warm-up). Default 1. */
  warmup?: number;
  /**
   * Collect garbage before each timed run (needs node --expose-gc), so no contender pays for
   * another's allocations. Default true. Off for allocation-heavy code measured in steady state:
   * a full collection also shrinks the young generation, which makes the next run slower.
   */
  gc?: boolean;
}

/**
 * Runs each contender `reps` times, round-robin with the order rotated every round, and returns
 * the milliseconds of every run per contender name.
 */
export function interleave(
  contenders: readonly Contender[],
  reps: number,
  options: InterleaveOptions = {},
): Map<string, number[]> {
  const out = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
  for (let w = 0; w < (options.warmup ?? 1); w++) {
    for (const c of contenders) {
      c.before?.();
      c.run();
    }
  }
  const gc = options.gc === false ? undefined : (globalThis as { gc?: () => void }).gc;
  for (let r = 0; r < reps; r++) {
    for (let k = 0; k < contenders.length; k++) {
      const c = contenders[(k + r) % contenders.length];
      c.before?.();
      gc?.();
      const t0 = nowMs();
      const measured = c.run();
      const ms = typeof measured === 'number' ? measured : nowMs() - t0;
      out.get(c.name)!.push(ms);
    }
  }
  return out;
}

/** Rounds to `digits` significant digits (for the report). */
export function sig(x: number, digits = 3): number {
  if (!Number.isFinite(x) || x === 0) return x;
  return Number(x.toPrecision(digits));
}
