/**
 * Time to the first exact count and the memory it leaves, in a fresh process per run: loading a
 * tokenizer (its code and o200k_base rank table) and counting one text, for ContextKeeper's counter
 * (reading its prebuilt table, as the extension does), js-tiktoken, gpt-tokenizer and tiktoken (WASM).
 * Run by bench/tokenizers.ts as `node --expose-gc out/bench/firstCount.js <contender>`; prints one
 * JSON line `{ ms, blockMs, bytes, tokens }`. The other contenders load synchronously, so their block
 * is their whole time; `ContextKeeper (preloaded)` is the extension's path (the table read in the
 * background when the meter is created, then the count), its block measured by the event loop's
 * delay monitor.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createTokenCounter, preloadEncoding } from '../src/compaction/tokenizer';

const TEXT = 'export function firstCount(text: string): number { return text.length; } // exact, not estimated';

/** Heap plus memory outside it (array buffers, WASM memory, external strings), after a GC. */
function memory(): number {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.external + m.arrayBuffers;
}

const loaders: Record<string, () => (t: string) => number> = {
  ContextKeeper: () => {
    const c = createTokenCounter('o200k_base');
    return (t) => c.countText(t);
  },
  'js-tiktoken encode': () => {
    const { Tiktoken } = require('js-tiktoken/lite') as { Tiktoken: new (r: unknown) => { encode(t: string, a: string[], d: string[]): number[] } };
    const ranks = require('js-tiktoken/ranks/o200k_base') as { default?: unknown };
    const enc = new Tiktoken(ranks.default ?? ranks);
    return (t) => enc.encode(t, [], []).length;
  },
  'gpt-tokenizer': () => {
    const gpt = require('gpt-tokenizer/cjs/encoding/o200k_base') as { countTokens(t: string): number };
    return (t) => gpt.countTokens(t);
  },
  'tiktoken (WASM)': () => {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- a free function, despite its typing
    const { get_encoding } = require('tiktoken') as { get_encoding(n: string): { encode_ordinary(t: string): Uint32Array } };
    const enc = get_encoding('o200k_base');
    return (t) => enc.encode_ordinary(t).length;
  },
};

const name = process.argv[2] ?? 'ContextKeeper';
if (name === 'ContextKeeper (preloaded)') {
  const m0 = memory();
  const monitor = monitorEventLoopDelay({ resolution: 1 });
  monitor.enable();
  const t0 = process.hrtime.bigint();
  void preloadEncoding('o200k_base').then(() => {
    const tokens = createTokenCounter('o200k_base').countText(TEXT);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    // Let the monitor see the last turn.
    setTimeout(() => {
      monitor.disable();
      const blockMs = monitor.max / 1e6;
      process.stdout.write(`${JSON.stringify({ ms, blockMs, bytes: memory() - m0, tokens })}\n`);
    }, 5);
  });
} else run();

function run(): void {
const load = loaders[name];
if (!load) throw new Error(`firstCount: unknown contender "${name}" (one of ${Object.keys(loaders).join(', ')})`);
const m0 = memory();
const t0 = process.hrtime.bigint();
const count = load();
const tokens = count(TEXT);
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
const bytes = memory() - m0;
// `count` is still referenced here, so the table is not collected before memory() reads it.
process.stdout.write(`${JSON.stringify({ ms, blockMs: ms, bytes, tokens: tokens + count('') })}\n`);
}
