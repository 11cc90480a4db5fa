/**
 * The last span a reading over items ran on, with the reading's running state: the next compaction
 * over the same messages, or over a span that grew at its end (the product's case: messages arrived
 * since the last compaction, a prepared-ahead summary or a preview), gets the state after one
 * comparison pass and reads only the messages after it.
 *
 * A kept span is a prefix of a new one when the new one starts with the same item objects in the
 * same order. Context items are never mutated (a rewrite, a pin or a repair makes new item objects;
 * see the per-message caches of `actions.ts` and `message-facts.ts`, which rest on the same rule),
 * so the pass compares references only: at 100k messages, reading each item's message and kind
 * as well made every such pass several times slower.
 *
 * Nothing is kept while the per-message memos are off (see {@link messageMemosKept}): a process that
 * compacts once never reads a grown span, and each reading held for it (one slot or more per item
 * of the span) only raised that process's peak. Pure: no I/O.
 */
import type { ContextItem } from '../types';
import { messageMemosKept } from '../message-memo';

export class GrowingSpan<S> {
  private items: ContextItem[] = [];
  private state: S | undefined;

  /**
   * The kept state when the span it read is a prefix of `items` (or all of it), with the number of
   * items it read (`from`: the caller reads `items[from..]` into it); else undefined.
   */
  get(items: readonly ContextItem[]): { state: S; from: number } | undefined {
    const kept = this.items;
    const n = kept.length;
    if (this.state === undefined || items.length < n) return undefined;
    for (let i = 0; i < n; i++) if (items[i] !== kept[i]) return undefined;
    return { state: this.state, from: n };
  }

  /**
   * Keeps `state` as the reading of `items`, of which the first `from` were read before (as
   * {@link get} returned them; 0 for a new state). The item references are copied: the array may
   * change later. Keeps nothing (and drops what it kept) while the per-message memos are off.
   * Returns `state`.
   */
  set(items: readonly ContextItem[], state: S, from = 0): S {
    if (!messageMemosKept()) {
      this.items = [];
      this.state = undefined;
      return state;
    }
    if (from === 0 || state !== this.state) {
      this.items = items.slice();
    } else {
      this.items.length = from;
      for (let i = from; i < items.length; i++) this.items.push(items[i]);
    }
    this.state = state;
    return state;
  }
}
