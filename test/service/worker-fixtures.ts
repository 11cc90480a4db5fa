/**
 * Shared inputs of the compaction worker tests: an exact o200k meter with its extractive summarizer,
 * a generated coding session, and a result made comparable between two runs.
 */
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { createTokenCounter } from '../../src/tokenizer/tokenizer';
import type { Entry, ToolSchema } from '../../src/compaction/types';
import { rng } from '../support/generate';

export const meter = new TokenMeter({ counter: createTokenCounter('o200k_base') });
export const summarizer = new ExtractiveSummarizer((t) => meter.countText(t), { lineAdditive: meter.lineAdditive });
export const tools: ToolSchema[] = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Reads a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
    },
  },
];

/** A coding session of `turns` turns (requests, tool calls, long tool results), ids `m0`, `m1`, … */
export function session(seed: number, turns: number): Entry[] {
  const r = rng(seed);
  const words = [
    'parser',
    'token',
    'window',
    'fix',
    'the',
    'failing',
    'test',
    'src/app.ts',
    'refactor',
    'because',
    'error',
    'never',
    'export',
    'function',
    'value',
  ];
  const line = (n: number) => Array.from({ length: n }, () => words[Math.floor(r() * words.length)]).join(' ');
  const out: Entry['message'][] = [{ role: 'system', content: `You are a coding agent. ${line(40)}` }];
  for (let t = 0; t < turns; t++) {
    out.push({ role: 'user', content: `Please ${line(12)}. Never change the public API.` });
    const id = `call_${t}`;
    out.push({
      role: 'assistant',
      content: line(10),
      tool_calls: [
        { id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src/f${t}.ts` }) } },
      ],
    });
    out.push({ role: 'tool', tool_call_id: id, content: Array.from({ length: 30 }, () => line(14)).join('\n') });
    out.push({ role: 'assistant', content: `Done: ${line(20)}` });
  }
  return out.map((message, i) => ({ id: `m${i}`, message }));
}

/** A result as JSON with what differs between any two runs (checkpoint ids, clock) made positional. */
export function normalized(value: unknown): string {
  const ids = new Map<string, string>();
  return JSON.stringify(value, (key, v: unknown) =>
    key === 'time' || key === 'startedAt' || key === 'preparedAt' ? '<clock>' : v,
  ).replace(/ck-[0-9a-f]{8}/g, (id) => {
    if (!ids.has(id)) ids.set(id, `ck-#${ids.size}`);
    return ids.get(id)!;
  });
}

/** A budget of `contextWindow` tokens, 1,000 reserved, compacting at 0.8 down to 0.5. */
export const budget = (contextWindow: number) => ({
  contextWindow,
  reservedOutput: 1_000,
  compactAt: 0.8,
  compactTo: 0.5,
});
