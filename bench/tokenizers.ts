/**
 * Token counting throughput on the same texts (the transcripts' message texts), per encoding:
 * ContextKeeper's counter, js-tiktoken's whole-text `encode`, gpt-tokenizer and tiktoken (WASM).
 * Counts are compared text by text (they must agree); characters / 4 is reported with its error.
 *
 * Throughput is measured cold: every cache (ours, gpt-tokenizer's merge cache) is emptied before
 * each pass, and each pass counts every text once, as when a transcript is opened. A warm pass
 * (caches kept from the previous pass) is reported beside it for ours.
 *
 * Timing is robust to other work on a shared machine: the contenders run in alternating rounds
 * (order rotated every round), each round timing every contender on the same passes in process CPU
 * time (not wall time, so a preempted pass is not charged for the wait), and the ratio reported is the
 * median over rounds of that round's ratio, so a neighbour's burst during one round moves one sample,
 * not one side of the comparison.
 */
import { clearTokenCaches, createTokenCounter, type EncodingName } from '../src/tokenizer/tokenizer';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { classText, longPiece, TEXT_CLASSES } from '../test/support/token-corpus';
import { median, nowMs, sig } from './stats';

interface Exact {
  name: string;
  count: (text: string) => number;
  /** Empties the contender's own caches (untimed). */
  clear?: () => void;
  /** Releases native memory (tiktoken WASM). */
  free?: () => void;
}

/** Results of one encoding. */
export interface TokenizerResult {
  encoding: EncodingName;
  /** The class of text (code, prose, ...) when measured on generated texts of one class. */
  label?: string;
  texts: number;
  megabytes: number;
  /** Exact token total of all texts. */
  tokens: number;
  /** MB/s (UTF-8 megabytes of text per CPU second) per contender, cold caches: median over rounds. */
  mbPerSecond: Record<string, number>;
  /** Our counter with its cache warm from the previous pass, MB/s of CPU time. */
  oursWarmMbPerSecond: number;
  /** The other exact tokenizer with the lowest {@link ratioTo} (the fastest against ours). */
  fastestOther: string;
  /** Our speed / the fastest other's (cold caches): the median over rounds of the round's ratio. */
  ratioToFastest: number;
  /** Lowest and highest per-round ratio against {@link fastestOther}. */
  ratioRange: [number, number];
  /** Median per-round ratio of our speed to each other contender's. */
  ratioTo: Record<string, number>;
  /** Rounds, and the least CPU time each contender ran per round, in milliseconds. */
  rounds: number;
  minRoundMs: number;
  /** Texts whose count differs from ours, per contender, with the total absolute difference in tokens. */
  disagreements: Record<string, { texts: number; tokens: number; example?: string }>;
  /** characters / 4 (rounded up, per text): total relative error and median absolute per-text error. */
  charsOver4: { totalError: number; medianAbsError: number; p90AbsError: number };
}

const built = new Map<EncodingName, Exact[]>();

/** The contenders of `encoding`, built once per run (js-tiktoken's table takes seconds to build). */
function contenders(encoding: EncodingName): Exact[] {
  let cs = built.get(encoding);
  if (!cs) {
    cs = makeContenders(encoding);
    built.set(encoding, cs);
  }
  return cs;
}

/** Releases the contenders' native memory (tiktoken WASM). */
export function freeTokenizers(): void {
  for (const cs of built.values()) for (const c of cs) c.free?.();
  built.clear();
}

function makeContenders(encoding: EncodingName): Exact[] {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const ours = createTokenCounter(encoding);
  const { Tiktoken } = require('js-tiktoken/lite') as {
    Tiktoken: new (r: unknown) => { encode(t: string, a: string[], d: string[]): number[] };
  };
  const ranksMod = require(`js-tiktoken/ranks/${encoding}`) as { default?: unknown };
  const jsTiktoken = new Tiktoken(ranksMod.default ?? ranksMod);
  const gpt = require(`gpt-tokenizer/cjs/encoding/${encoding}`) as {
    countTokens(t: string, o?: { disallowedSpecial?: Set<string>; allowedSpecial?: Set<string> }): number;
    clearMergeCache(): void;
  };
  // eslint-disable-next-line @typescript-eslint/unbound-method -- a free function, despite its typing
  const { get_encoding } = require('tiktoken') as {
    get_encoding(n: string): { encode_ordinary(t: string): Uint32Array; free(): void };
  };
  const wasm = get_encoding(encoding);
  /* eslint-enable @typescript-eslint/no-require-imports */
  const noSpecial = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };
  return [
    { name: 'ContextKeeper', count: (t) => ours.countText(t), clear: clearTokenCaches },
    { name: 'js-tiktoken encode', count: (t) => jsTiktoken.encode(t, [], []).length },
    { name: 'gpt-tokenizer', count: (t) => gpt.countTokens(t, noSpecial), clear: () => gpt.clearMergeCache() },
    { name: 'tiktoken (WASM)', count: (t) => wasm.encode_ordinary(t).length, free: () => wasm.free() },
  ];
}

/** Measures one encoding on `texts` with `reps` interleaved passes per contender. */
export function benchTokenizers(
  texts: readonly string[],
  encoding: EncodingName,
  reps: number,
  label?: string,
): TokenizerResult {
  const cs = contenders(encoding);
  const bytes = texts.reduce((s, t) => s + Buffer.byteLength(t, 'utf8'), 0);
  const megabytes = bytes / 1e6;

  // Correctness first (also warms up JIT and loads every rank table before timing).
  const counts = new Map<string, Int32Array>();
  for (const c of cs) {
    const a = new Int32Array(texts.length);
    for (let i = 0; i < texts.length; i++) a[i] = c.count(texts[i]);
    counts.set(c.name, a);
  }
  const exact = counts.get('ContextKeeper')!;
  const disagreements: TokenizerResult['disagreements'] = {};
  for (const c of cs.slice(1)) {
    const a = counts.get(c.name)!;
    let n = 0;
    let diff = 0;
    let example: string | undefined;
    for (let i = 0; i < texts.length; i++) {
      if (a[i] !== exact[i]) {
        n++;
        diff += Math.abs(a[i] - exact[i]);
        example ??= `text ${i} (${texts[i].length} characters): ours ${exact[i]}, ${c.name} ${a[i]}`;
      }
    }
    disagreements[c.name] = { texts: n, tokens: diff, example };
  }
  let tokens = 0;
  let est = 0;
  const errs: number[] = [];
  for (let i = 0; i < texts.length; i++) {
    tokens += exact[i];
    const e = Math.ceil(texts[i].length / 4);
    est += e;
    if (exact[i] >= 20) errs.push(Math.abs(e - exact[i]) / exact[i]);
  }
  errs.sort((a, b) => a - b);

  const pass = (c: Exact): void => {
    let n = 0;
    for (let i = 0; i < texts.length; i++) n += c.count(texts[i]);
    if (n < 0) throw new Error('unreachable');
  };
  // The correctness pass above already ran every contender once (JIT warm-up, tables loaded).
  const perPass = rounds(cs, pass, reps);
  const ours = cs[0];
  const warm = rounds([{ name: 'warm', count: ours.count }], pass, Math.max(3, reps)).get('warm')!;

  const mbPerSecond: Record<string, number> = {};
  for (const [name, ts] of perPass) mbPerSecond[name] = sig(megabytes / (median(ts) / 1000));
  const ourTimes = perPass.get(ours.name)!;
  const ratioTo: Record<string, number> = {};
  const perRound = new Map<string, number[]>();
  for (const c of cs.slice(1)) {
    const theirs = perPass.get(c.name)!;
    const rs = ourTimes.map((t, r) => theirs[r] / t);
    perRound.set(c.name, rs);
    ratioTo[c.name] = sig(median(rs));
  }
  const fastestOther = cs
    .slice(1)
    .map((c) => c.name)
    .reduce((a, b) => (ratioTo[a] <= ratioTo[b] ? a : b));
  const fastestRounds = perRound.get(fastestOther)!;
  return {
    encoding,
    label,
    texts: texts.length,
    megabytes: sig(megabytes),
    tokens,
    mbPerSecond,
    oursWarmMbPerSecond: sig(megabytes / (median(warm) / 1000)),
    fastestOther,
    ratioToFastest: ratioTo[fastestOther],
    ratioRange: [sig(Math.min(...fastestRounds)), sig(Math.max(...fastestRounds))],
    ratioTo,
    rounds: reps,
    minRoundMs: MIN_ROUND_MS,
    disagreements,
    charsOver4: {
      totalError: sig((est - tokens) / tokens),
      medianAbsError: sig(errs[Math.floor(errs.length / 2)] ?? 0),
      p90AbsError: sig(errs[Math.floor(errs.length * 0.9)] ?? 0),
    },
  };
}

/** Least CPU time per contender per round: short passes are repeated up to it, so timer and scheduler granularity stay small against it. */
const MIN_ROUND_MS = 40;

/** Process CPU time (user + system, every thread of the process) in milliseconds. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * Runs `reps` rounds; in each, every contender (order rotated per round) runs `pass` after an
 * untimed GC, repeated (with its caches cleared before each pass, untimed) until it has used at
 * least {@link MIN_ROUND_MS} of CPU time. Returns per contender its CPU milliseconds per pass in each
 * round (index = round), so rounds can be compared contender against contender.
 */
function rounds(cs: readonly Exact[], pass: (c: Exact) => void, reps: number): Map<string, number[]> {
  const out = new Map<string, number[]>(cs.map((c) => [c.name, []]));
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let r = 0; r < reps; r++) {
    for (let k = 0; k < cs.length; k++) {
      const c = cs[(k + r) % cs.length];
      gc?.();
      let spent = 0;
      let passes = 0;
      while (spent < MIN_ROUND_MS) {
        c.clear?.();
        const t0 = cpuMs();
        pass(c);
        spent += cpuMs() - t0;
        passes++;
      }
      out.get(c.name)!.push(spent / passes);
    }
  }
  return out;
}

/** Generated texts of every class (test/support/tokenCorpus), measured class by class on `encoding`. */
export function benchClasses(encoding: EncodingName, reps: number): TokenizerResult[] {
  return TEXT_CLASSES.map((cls) => {
    const texts = Array.from({ length: 60 }, (_, i) => classText(cls, 1000 + i, 1000 + ((i * 997) % 6000)));
    return benchTokenizers(texts, encoding, reps, cls);
  });
}

/** Count differences on single long pieces, against js-tiktoken (up to `jsMaxBytes` UTF-8 bytes) and tiktoken (WASM, every length). */
export interface LongPieceResult {
  encoding: EncodingName;
  pieces: number;
  /** Lengths compared, in characters. */
  lengths: number[];
  /** Pieces also compared with js-tiktoken (its merge is quadratic: only up to about 8,000 bytes). */
  jsPieces: number;
  differences: Record<string, number>;
  /** Milliseconds for ours to count all the pieces once (cold caches), and for tiktoken (WASM). */
  oursMs: number;
  wasmMs: number;
}

/** Single pieces of 2k-50k characters of every kind: exactness, and our time beside tiktoken's. */
export function benchLongPieces(encoding: EncodingName, jsMaxBytes: number): LongPieceResult {
  const cs = contenders(encoding);
  const ours = cs[0];
  const js = cs.find((c) => c.name === 'js-tiktoken encode')!;
  const wasm = cs.find((c) => c.name === 'tiktoken (WASM)')!;
  const lengths = [2049, 4100, 8000, 20_000, 50_000];
  const kinds = ['camel', 'letters', 'base64', 'cjk', 'cyrillic', 'spaces'] as const;
  const pieces = kinds.flatMap((k) => lengths.map((n) => longPiece(k, n + k.length, n)));
  const differences: Record<string, number> = { 'js-tiktoken encode': 0, 'tiktoken (WASM)': 0 };
  let oursMs = 0;
  let wasmMs = 0;
  let jsPieces = 0;
  for (const p of pieces) {
    ours.clear?.();
    let t0 = nowMs();
    const n = ours.count(p);
    oursMs += nowMs() - t0;
    t0 = nowMs();
    if (wasm.count(p) !== n) differences['tiktoken (WASM)']++;
    wasmMs += nowMs() - t0;
    if (Buffer.byteLength(p, 'utf8') <= jsMaxBytes) {
      jsPieces++;
      if (js.count(p) !== n) differences['js-tiktoken encode']++;
    }
  }
  return { encoding, pieces: pieces.length, lengths, jsPieces, differences, oursMs: sig(oursMs), wasmMs: sig(wasmMs) };
}

/** First exact count in fresh processes (bench/first-count.ts), o200k_base. Medians over `reps` runs each. */
export interface FirstCountResult {
  /** Milliseconds from loading the tokenizer to its first count, per contender. */
  ms: Record<string, number>;
  /** Longest block of the thread's event loop while loading and counting, in milliseconds. */
  blockMs: Record<string, number>;
  /** Memory the loaded tokenizer holds (heap, external and array buffers after a GC), in bytes. */
  bytes: Record<string, number>;
  /** Longest block over all runs, per contender, in milliseconds. */
  blockMsMax: Record<string, number>;
  fastestOther: string;
  /** The extension's path (a session opening) / the fastest other exact tokenizer's time to first count. */
  ratioToFastest: number;
  /** The extension's path: ms from opening a session to its first budget (a labelled estimate when the table is not loaded yet), median. */
  extensionEstimateMs: number;
  /** Runs of the extension's path whose first budget was a labelled estimate. */
  extensionEstimated: number;
  reps: number;
}

/** Runs bench/first-count.ts for every contender, interleaved, `reps` times. */
export function benchFirstCount(root: string, reps: number): FirstCountResult {
  const names = [
    'ContextKeeper',
    'ContextKeeper (preloaded)',
    'ContextKeeper (extension)',
    'js-tiktoken encode',
    'gpt-tokenizer',
    'tiktoken (WASM)',
  ];
  const runs = new Map<
    string,
    Array<{ ms: number; blockMs: number; bytes: number; estimateMs?: number; estimated?: boolean }>
  >(names.map((n) => [n, []]));
  for (let r = 0; r < reps; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + r) % names.length];
      const out = execFileSync(process.execPath, ['--expose-gc', path.join(root, 'out/bench/first-count.js'), name], {
        cwd: root,
        encoding: 'utf8',
      });
      runs.get(name)!.push(
        JSON.parse(out.trim().split('\n').pop() ?? '{}') as {
          ms: number;
          blockMs: number;
          bytes: number;
          estimateMs?: number;
          estimated?: boolean;
        },
      );
    }
  }
  const ms: Record<string, number> = {};
  const blockMs: Record<string, number> = {};
  const bytes: Record<string, number> = {};
  const blockMsMax: Record<string, number> = {};
  for (const [n, rs] of runs) {
    ms[n] = sig(median(rs.map((x) => x.ms)));
    blockMs[n] = sig(median(rs.map((x) => x.blockMs)));
    blockMsMax[n] = sig(Math.max(...rs.map((x) => x.blockMs)));
    bytes[n] = Math.round(median(rs.map((x) => x.bytes)));
  }
  const fastestOther = names.slice(3).reduce((a, b) => (ms[a] <= ms[b] ? a : b));
  const ext = runs.get('ContextKeeper (extension)')!;
  return {
    ms,
    blockMs,
    blockMsMax,
    bytes,
    fastestOther,
    ratioToFastest: sig(ms['ContextKeeper (extension)'] / ms[fastestOther]),
    extensionEstimateMs: sig(median(ext.map((x) => x.estimateMs ?? 0))),
    extensionEstimated: ext.filter((x) => x.estimated === true).length,
    reps,
  };
}
