/**
 * Token counting throughput on the same texts (the transcripts' message texts), per encoding:
 * ContextKeeper's counter, js-tiktoken's whole-text `encode`, gpt-tokenizer and tiktoken (WASM).
 * Counts are compared text by text (they must agree); characters / 4 is reported with its error.
 *
 * Throughput is measured cold: every cache (ours, gpt-tokenizer's merge cache) is emptied before
 * each pass, and each pass counts every text once, as when a transcript is opened. A warm pass
 * (caches kept from the previous pass) is reported beside it for ours.
 */
import { clearTokenCaches, createTokenCounter, type EncodingName } from '../src/compaction/tokenizer';
import { interleave, median, sig } from './stats';

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
  texts: number;
  megabytes: number;
  /** Exact token total of all texts. */
  tokens: number;
  /** Median MB/s (UTF-8 megabytes of text per second) per contender, cold caches. */
  mbPerSecond: Record<string, number>;
  /** Our counter with its cache warm from the previous pass, MB/s. */
  oursWarmMbPerSecond: number;
  fastestOther: string;
  /** Ours (cold) / fastest other exact tokenizer (cold). */
  ratioToFastest: number;
  /** Texts whose count differs from ours, per contender, with the total absolute difference in tokens. */
  disagreements: Record<string, { texts: number; tokens: number; example?: string }>;
  /** characters / 4 (rounded up, per text): total relative error and median absolute per-text error. */
  charsOver4: { totalError: number; medianAbsError: number; p90AbsError: number };
  reps: number;
}

function contenders(encoding: EncodingName): Exact[] {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const ours = createTokenCounter(encoding);
  const { Tiktoken } = require('js-tiktoken/lite') as { Tiktoken: new (r: unknown) => { encode(t: string, a: string[], d: string[]): number[] } };
  const ranksMod = require(`js-tiktoken/ranks/${encoding}`) as { default?: unknown };
  const jsTiktoken = new Tiktoken(ranksMod.default ?? ranksMod);
  const gpt = require(`gpt-tokenizer/cjs/encoding/${encoding}`) as {
    countTokens(t: string, o?: { disallowedSpecial?: Set<string>; allowedSpecial?: Set<string> }): number;
    clearMergeCache(): void;
  };
  // eslint-disable-next-line @typescript-eslint/unbound-method -- a free function, despite its typing
  const { get_encoding } = require('tiktoken') as { get_encoding(n: string): { encode_ordinary(t: string): Uint32Array; free(): void } };
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
export function benchTokenizers(texts: readonly string[], encoding: EncodingName, reps: number): TokenizerResult {
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

  const pass = (c: Exact) => () => {
    let n = 0;
    for (let i = 0; i < texts.length; i++) n += c.count(texts[i]);
    if (n < 0) throw new Error('unreachable');
  };
  const times = interleave(
    cs.map((c) => ({ name: c.name, run: pass(c), before: c.clear })),
    reps,
    // The correctness pass above already ran every contender once.
    { warmup: 0 },
  );
  const ours = cs[0];
  const warm = interleave([{ name: 'warm', run: pass(ours) }], Math.max(3, reps), { warmup: 0 });
  for (const c of cs) c.free?.();

  const mbPerSecond: Record<string, number> = {};
  for (const [name, ts] of times) mbPerSecond[name] = sig(megabytes / (median(ts) / 1000));
  const others = cs.slice(1).map((c) => c.name);
  const fastestOther = others.reduce((a, b) => (mbPerSecond[a] >= mbPerSecond[b] ? a : b));
  return {
    encoding,
    texts: texts.length,
    megabytes: sig(megabytes),
    tokens,
    mbPerSecond,
    oursWarmMbPerSecond: sig(megabytes / (median(warm.get('warm')!) / 1000)),
    fastestOther,
    ratioToFastest: sig(mbPerSecond.ContextKeeper / mbPerSecond[fastestOther]),
    disagreements,
    charsOver4: {
      totalError: sig((est - tokens) / tokens),
      medianAbsError: sig(errs[Math.floor(errs.length / 2)] ?? 0),
      p90AbsError: sig(errs[Math.floor(errs.length * 0.9)] ?? 0),
    },
    reps,
  };
}
