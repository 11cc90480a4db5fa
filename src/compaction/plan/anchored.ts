/**
 * What no compaction may summarise, measured: the leading system messages, the latest request, the
 * newest steps kept verbatim, pinned items, and the tool schemas sent with every request.
 */
import type { ContextItem, ToolSchema } from '../types';
import { replyStartTokens, type TokenMeter } from '../meter/meter';
import type { AnchoredTokens } from '../outcome';
import { analyzeTable, KIND, UNIT_REASONS } from './structure';

/** The reason code of a pinned unit. */
const PINNED = UNIT_REASONS.indexOf('pinned');

/** Tokens of `items` (with `tools`) that no compaction may summarise: the leading system messages, the latest request, the newest steps, pinned items. */
export function anchoredTokens(
  items: readonly ContextItem[],
  meter: TokenMeter,
  tools: readonly ToolSchema[] | undefined,
  keepRecentSteps: number,
): number {
  return anchoredBreakdown(items, meter, tools, keepRecentSteps).total;
}

/**
 * {@link anchoredTokens} by what holds them (unit reasons of `structure.ts`; the tool schemas and the
 * tokens that prime the reply apart, each as the meter's breakdown has them, so the words match the
 * command line's `meter`).
 */
export function anchoredBreakdown(
  items: readonly ContextItem[],
  meter: TokenMeter,
  tools: readonly ToolSchema[] | undefined,
  keepRecentSteps: number,
): AnchoredTokens {
  const t = analyzeTable(items, keepRecentSteps);
  const m = meter.measure(items, tools);
  const out: AnchoredTokens = {
    total: 0,
    tools: m.breakdown.tools,
    replyStart: replyStartTokens(m),
    system: 0,
    latestRequest: 0,
    recentSteps: 0,
    pinned: 0,
  };
  // Indices into UNIT_REASONS: 1 leading system messages, 2 latest user message, 3 waiting tool calls, 4 recent step, 5 pinned.
  const bucket: Array<keyof Omit<AnchoredTokens, 'total' | 'tools'>> = [
    'recentSteps',
    'system',
    'latestRequest',
    'recentSteps',
    'recentSteps',
    'pinned',
  ];
  for (let k = 0; k < t.count; k++) {
    // Summaries are compacted again, in tiers of their own, unless pinned: then they are held as
    // surely as any pinned message.
    if (t.eligible[k] || (t.kind[k] === KIND.summary && t.reason[k] !== PINNED)) continue;
    let sum = 0;
    for (let i = t.start[k]; i < t.end[k]; i++) sum += m.perItem[i];
    out[bucket[t.reason[k]] ?? 'recentSteps'] += sum;
  }
  out.total = out.tools + out.replyStart + out.system + out.latestRequest + out.recentSteps + out.pinned;
  return out;
}
