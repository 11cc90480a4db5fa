/**
 * The last span a pure computation over items ran on, with its value: the next compaction over the
 * same messages (a repeated compaction, a prepared-ahead summary, a preview) gets the value for one
 * comparison pass instead of a new reading of every message.
 *
 * A span counts as the same when it holds the same item objects, with the same message objects and
 * kinds, in the same order (messages are never mutated; see the per-message caches of `actions.ts`
 * and `extractive.ts`, which rest on the same rule). Pure: no I/O.
 */
import type { ChatMessage, ContextItem } from './types';

export class SpanMemo<T> {
  private items: readonly ContextItem[] = [];
  private messages: ChatMessage[] = [];
  private kinds: string[] = [];
  private value: T | undefined;

  /** The value kept for a span equal to `items`, else undefined. */
  get(items: readonly ContextItem[]): T | undefined {
    if (this.value === undefined || items.length !== this.messages.length) return undefined;
    for (let i = 0; i < items.length; i++) {
      const it = items[i];
      if (it !== this.items[i] || it.message !== this.messages[i] || it.kind !== this.kinds[i]) return undefined;
    }
    return this.value;
  }

  /** Keeps `value` for `items` (the item references are copied; the array may change later). Returns `value`. */
  set(items: readonly ContextItem[], value: T): T {
    this.items = items.slice();
    this.messages = items.map((it) => it.message);
    this.kinds = items.map((it) => it.kind);
    this.value = value;
    return value;
  }
}
