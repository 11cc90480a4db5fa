/**
 * Time to the first exact count and the memory it leaves, in a fresh process per run: loading a
 * tokenizer (its code and o200k_base rank table) and counting one text, for ContextKeeper's counter
 * (reading its prebuilt table, as the extension does), js-tiktoken, gpt-tokenizer and tiktoken (WASM).
 * Run by bench/tokenizers.ts as `node --expose-gc out/bench/first-count.js <contender>`; prints one
 * JSON line `{ ms, blockMs, bytes, tokens }`. The other contenders load synchronously, so their block
 * is their whole time; `ContextKeeper (preloaded)` is the table read in the background when the
 * meter is created, then the count; `ContextKeeper (extension)` is what the extension runs when a
 * session opens (the service factory's deferred counter, `ContextService.open`, the gauge's budget:
 * a labelled estimate at once, the exact count when the table is loaded), timed to the first budget
 * with an exact count. Blocks are measured by the event loop's delay monitor.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import OpenAI from 'openai';
import { createTokenCounter, deferredCounterForModel, preloadEncoding } from '../src/tokenizer/tokenizer';
import { ContextService } from '../src/service/service';
import { NodeToolHost } from '../src/agent/node-host';

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
    const { Tiktoken } = require('js-tiktoken/lite') as {
      Tiktoken: new (r: unknown) => { encode(t: string, a: string[], d: string[]): number[] };
    };
    const ranks = require('js-tiktoken/ranks/o200k_base') as { default?: unknown };
    const enc = new Tiktoken(ranks.default ?? ranks);
    return (t) => enc.encode(t, [], []).length;
  },
  'gpt-tokenizer': () => {
    const gpt = require('gpt-tokenizer/cjs/encoding/o200k_base') as { countTokens(t: string): number };
    return (t) => gpt.countTokens(t);
  },
  'tiktoken (WASM)': () => {
    const tiktoken = require('tiktoken') as {
      get_encoding(this: void, n: string): { encode_ordinary(t: string): Uint32Array };
    };
    const enc = tiktoken.get_encoding('o200k_base');
    return (t) => enc.encode_ordinary(t).length;
  },
};

const name = process.argv[2] ?? 'ContextKeeper';
if (name === 'ContextKeeper (extension)') void extensionPath();
else if (name === 'ContextKeeper (preloaded)') {
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

/** A session opened as the extension's service factory opens one, until the gauge's count is exact. */
async function extensionPath(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ck-first-count-'));
  const m0 = memory();
  const monitor = monitorEventLoopDelay({ resolution: 1 });
  monitor.enable();
  const t0 = process.hrtime.bigint();
  const counter = deferredCounterForModel('gpt-4o');
  // No model call happens while a session opens; the client only has to exist.
  const client = new OpenAI({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'unused', maxRetries: 0 });
  const service = await ContextService.open({
    client,
    model: 'gpt-4o',
    budget: { contextWindow: 128_000, reservedOutput: 4_000, compactAt: 0.8, compactTo: 0.5 },
    host: new NodeToolHost(dir),
    storageDir: path.join(dir, 'sessions'),
    tokenCounter: counter,
    systemPrompt: TEXT,
  });
  const first = service.getBudget();
  const estimateMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const exact = first.counting
    ? await new Promise<number>((resolve) => {
        const sub = service.onDidChangeBudget((b) => {
          if (b.counting) return;
          sub.dispose();
          resolve(b.used);
        });
      })
    : first.used;
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  setTimeout(() => {
    monitor.disable();
    const bytes = memory() - m0;
    service.dispose();
    rmSync(dir, { recursive: true, force: true });
    process.stdout.write(
      `${JSON.stringify({ ms, blockMs: monitor.max / 1e6, bytes, tokens: exact, estimateMs, estimated: first.counting === true, estimate: first.used })}\n`,
    );
  }, 5);
}

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
