/**
 * Active-context operations: building it from raw entries, turning it into messages, applying and
 * undoing checkpoints.
 *
 * Two rewrite shapes exist. A summary replaces one contiguous run of items with one item (or a
 * user/assistant pair). Collapse and clip replace items one for one (`inserted[k]` stands where
 * `replaced[k]` stood), which may be spread over the context.
 */
import type { ChatMessage, Checkpoint, ContextItem, Entry } from './types';
import { keepToolOutcome } from './tool-outcomes';

/** One `raw` item per entry, in order; a tool result's recorded success flag stays with its message. */
export function itemsFromEntries(entries: readonly Entry[]): ContextItem[] {
  return entries.map(rawItem);
}

/** The `raw` item of `entry`; its recorded success flag (`meta.toolOk`) stays with its message. */
export function rawItem(entry: Entry): ContextItem {
  return { id: entry.id, kind: 'raw', message: keepToolOutcome(entry), covers: [entry.id] };
}

/** The messages to send, in order (item metadata never goes to the model). */
export function toMessages(items: readonly ContextItem[]): ChatMessage[] {
  return items.map((i) => i.message);
}

/** True when the checkpoint replaces items one for one (collapse, clip). */
export function isOneForOne(cp: Checkpoint): boolean {
  return cp.strategy === 'collapse' || cp.strategy === 'clip';
}

function swap(
  items: readonly ContextItem[],
  from: readonly ContextItem[],
  to: readonly ContextItem[],
  oneForOne: boolean,
  label: string,
): ContextItem[] {
  if (oneForOne) {
    const byId = new Map(from.map((f, k) => [f.id, to[k]]));
    let found = 0;
    const out = items.map((i) => {
      const r = byId.get(i.id);
      if (!r) return i;
      found++;
      return r;
    });
    if (found !== from.length)
      throw new Error(`${label}: ${from.length - found} of its items are not in the active context`);
    return out;
  }
  const start = items.findIndex((i) => i.id === from[0]?.id);
  if (start < 0) throw new Error(`${label}: item ${from[0]?.id} is not in the active context`);
  for (let k = 0; k < from.length; k++) {
    if (items[start + k]?.id !== from[k].id) throw new Error(`${label}: items are not contiguous at ${from[k].id}`);
  }
  return [...items.slice(0, start), ...to, ...items.slice(start + from.length)];
}

/** Applies a checkpoint's rewrite. Throws Error naming the checkpoint when its items are not active. */
export function applyCheckpoint(items: readonly ContextItem[], checkpoint: Checkpoint): ContextItem[] {
  return swap(items, checkpoint.replaced, checkpoint.inserted, isOneForOne(checkpoint), `checkpoint ${checkpoint.id}`);
}

/**
 * Undoes checkpoint `id`: its replaced items return where its inserted items stand. Checkpoints
 * whose own rewrite consumed one of those inserted items (a later summary of this summary) are
 * undone first. Returns the new items and the ids undone, in the order undone.
 * Throws Error when `id` is unknown or the context does not hold the checkpoint's items.
 */
export function undoCheckpoint(
  items: readonly ContextItem[],
  checkpoints: readonly Checkpoint[],
  id: string,
): { items: ContextItem[]; undone: string[] } {
  const target = checkpoints.find((c) => c.id === id);
  if (!target) throw new Error(`no checkpoint with id ${id}`);
  let current = [...items];
  const undone: string[] = [];
  const undoOne = (cp: Checkpoint): void => {
    for (const ins of cp.inserted) {
      if (current.some((i) => i.id === ins.id)) continue;
      const consumer = checkpoints.find(
        (c) => c !== cp && !undone.includes(c.id) && c.replaced.some((r) => r.id === ins.id),
      );
      if (!consumer)
        throw new Error(`checkpoint ${cp.id}: item ${ins.id} is neither active nor replaced by a later checkpoint`);
      undoOne(consumer);
    }
    current = swap(current, cp.inserted, cp.replaced, isOneForOne(cp), `checkpoint ${cp.id}`);
    undone.push(cp.id);
  };
  undoOne(target);
  return { items: current, undone };
}

/** Raw entry ids covered by the active context, in order. */
export function coveredIds(items: readonly ContextItem[]): string[] {
  // Sized first and filled by index: 300k items make one list, not a series of ever larger copies.
  let n = 0;
  for (let k = 0; k < items.length; k++) n += items[k].covers.length;
  const out = new Array<string>(n);
  let at = 0;
  for (let k = 0; k < items.length; k++) {
    const covers = items[k].covers;
    for (let j = 0; j < covers.length; j++) out[at++] = covers[j];
  }
  return out;
}

/**
 * A new checkpoint id: `ck-` and 8 random decimal digits. A summary names its checkpoint in its last
 * line, so the id is counted in the summary's budget: tiktoken's encodings split a run of digits into
 * pieces of up to three, each one token, so every id costs the same tokens and a compaction's result
 * does not depend on which id it drew (hexadecimal ids tokenize into 3 to 6 tokens).
 */
export function newId(): string {
  const n = globalThis.crypto.getRandomValues(new Uint32Array(1))[0] % 100_000_000;
  return `ck-${String(n).padStart(8, '0')}`;
}

/**
 * A source of checkpoint ids for output that must be reproducible (the command-line tool): `ck-`
 * and the ordinal of the call, 8 digits from `ck-00000001` (the same tokens as {@link newId}'s, so a
 * summary's budget does not change). Unique among the ids of one source: one source per output (a
 * whole replay shares one). Ids of different outputs may be equal; each file is read on its own.
 */
export function sequentialIds(): () => string {
  let n = 0;
  return () => `ck-${String(++n % 100_000_000).padStart(8, '0')}`;
}
