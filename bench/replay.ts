/**
 * `replay` on generated recordings of 10k, 30k and 100k messages through the product's own path
 * (`replay()` with the exact meter and the extractive summarizer, as `context-keeper replay` runs it),
 * at a 32k window. Tool-call ids are numbered per reply (`call_0` in every step), as several
 * OpenAI-compatible servers send them. The figure is the growth exponent of CPU time between sizes
 * (1 linear, 2 quadratic); the invariant violations found are reported alongside (must be 0).
 */
import type { ChatMessage, Entry } from '../src/compaction/types';
import { TokenMeter } from '../src/compaction/meter/meter';
import { ExtractiveSummarizer } from '../src/compaction/summary/extractive';
import { replay } from '../src/replay/replay';
import { rng } from '../test/support/generate';
import { growthExponent, median, sig } from './stats';

/** User + system CPU time of this process, milliseconds: on a shared machine wall time mostly measures the neighbours. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

const WORDS =
  'the build test file src/app.ts error fixed function returns value config npm run lint passes module import path parser token meter window'.split(
    ' ',
  );

/** A recording of `n` messages: user requests, each followed by agent steps with one or two calls. */
export function syntheticRecording(n: number, seed = 11): Entry[] {
  const r = rng(seed);
  const words = (k: number) => Array.from({ length: k }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ');
  const msgs: ChatMessage[] = [{ role: 'system', content: `You are a coding agent. ${words(60)}` }];
  let file = 0;
  while (msgs.length < n) {
    msgs.push({ role: 'user', content: `${words(20)}. Keep the public API.` });
    const steps = 2 + Math.floor(r() * 30);
    for (let s = 0; s < steps && msgs.length < n - 3; s++) {
      const calls = r() < 0.2 ? 2 : 1;
      msgs.push({
        role: 'assistant',
        content: r() < 0.5 ? null : words(12),
        tool_calls: Array.from({ length: calls }, (_, k) => ({
          id: `call_${k}`,
          type: 'function' as const,
          function: {
            name: r() < 0.5 ? 'read_file' : 'run_command',
            arguments: JSON.stringify({ path: `src/f${file++}.ts` }),
          },
        })),
      });
      for (let k = 0; k < calls; k++)
        msgs.push({ role: 'tool', tool_call_id: `call_${k}`, content: words(20 + Math.floor(r() * 400)) });
    }
    msgs.push({ role: 'assistant', content: words(30) });
  }
  return msgs.slice(0, n).map((message, i) => ({ id: `e${i}`, message }));
}

/** Result of {@link benchReplay}. */
export interface ReplayBench {
  sizes: number[];
  /** Median CPU time (user + system, this process) per size, milliseconds. */
  ms: number[];
  /** Growth exponent between consecutive sizes and over the whole range. */
  exponents: number[];
  exponentOverall: number;
  violations: number;
  compactions: number[];
}

/** Times `replay()` at each size (`reps` runs each, median). */
export async function benchReplay(sizes: readonly number[], reps: number): Promise<ReplayBench> {
  const ms: number[] = [];
  const compactions: number[] = [];
  let violations = 0;
  for (const n of sizes) {
    const entries = syntheticRecording(n);
    const times: number[] = [];
    for (let k = 0; k < reps; k++) {
      // A fresh meter each run: no count cached from the previous run.
      const meter = new TokenMeter({ model: 'gpt-4o' });
      meter.countText('warm the rank table');
      const t = cpuMs();
      const report = await replay(
        entries,
        meter,
        new ExtractiveSummarizer((s) => meter.countText(s), { lineAdditive: meter.lineAdditive }),
        {
          budget: { contextWindow: 32_000, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
          keepCheckpointItems: false,
        },
      );
      times.push(cpuMs() - t);
      violations += report.violations.length;
      if (k === 0) compactions.push(report.compactions);
    }
    ms.push(median(times));
  }
  const exponents = sizes.slice(1).map((n, i) => sig(growthExponent(sizes[i], ms[i], n, ms[i + 1])));
  return {
    sizes: [...sizes],
    ms: ms.map((x) => Math.round(x)),
    exponents,
    exponentOverall: sig(growthExponent(sizes[0], ms[0], sizes[sizes.length - 1], ms[ms.length - 1])),
    violations,
    compactions,
  };
}
