/**
 * Tokens each item's typed request takes in a summary (its text and list framing; 0 for items with
 * none), which the planner counts as part of every summary. Kept per message and encoding, and for
 * the last span asked about as a list that a span grown at its end extends with its new items
 * (see span-memo.ts). Exact counts only are kept: an estimate is read again. Pure: no I/O.
 */
import type { ContextItem } from '../types';
import type { TokenMeter } from '../meter/meter';
import { typedRequestOf } from '../summary/requests';
import { GrowingSpan } from '../meter/span-memo';

/** Tokens `item`'s typed request takes in a summary, by `meter` (0 when it has none). */
export function keptTokens(item: ContextItem, meter: TokenMeter): number {
  const hit = keptCache.get(item.message);
  if (hit && hit.encoding === meter.encoding) return hit.tokens;
  const r = typedRequestOf(item);
  if (!r) return 0;
  // Only messages holding a request are kept (the lookup above answers the rest without counting).
  const tokens = meter.countText(r) + 2;
  if (meter.exact) keptCache.set(item.message, { encoding: meter.encoding, tokens });
  return tokens;
}
const keptCache = new WeakMap<object, { encoding: string; tokens: number }>();

/** {@link keptTokens} of every item of `items`, in order (a new array). */
export function keptTokensOf(items: readonly ContextItem[], meter: TokenMeter): number[] {
  if (!meter.exact) return items.map((it) => keptTokens(it, meter));
  const kept = lastSpan.get(items);
  const same = kept && kept.state.meter === meter && kept.state.encoding === meter.encoding;
  const from = same ? kept.from : 0;
  const state = same ? kept.state : { meter, encoding: meter.encoding, tokens: [] };
  state.tokens.length = from;
  for (let i = from; i < items.length; i++) state.tokens.push(keptTokens(items[i], meter));
  lastSpan.set(items, state, from);
  return state.tokens.slice();
}
const lastSpan = new GrowingSpan<{ meter: TokenMeter; encoding: string; tokens: number[] }>();
