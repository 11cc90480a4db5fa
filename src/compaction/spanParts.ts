/**
 * Small pieces of a compaction's summary step (./compactor): the note naming dropped re-attached
 * files, the tokens a typed request keeps, and checkpoint ids.
 */
import type { ContextItem } from './types';
import type { TokenMeter } from './meter';
import { typedRequestOf } from './requests';

/** One line naming the re-attached file copies a summary drops, or '' when it drops none. */
export function droppedFilesNote(items: readonly ContextItem[]): string {
  const paths = [...new Set(items.map((i) => i.attachedFile).filter((p): p is string => p !== undefined))];
  return paths.length === 0 ? '' : `Files re-attached earlier, their copies now dropped (read them again for current contents): ${paths.join(', ')}`;
}

/** Tokens an item's typed request takes in a summary (its text and list framing), kept per message holding one and encoding (exact counts only). */
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

/** A new checkpoint id: `ck-` and 8 hexadecimal characters. */
export function newId(): string {
  return `ck-${globalThis.crypto.randomUUID().slice(0, 8)}`;
}
