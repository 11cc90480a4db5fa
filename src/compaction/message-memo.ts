/**
 * Per-message memos: facts derived from a message (or from an object made from one, such as a tool
 * call read from it) that never change, because messages are never mutated once appended. Each memo
 * keeps its facts beside the message in a weak table, so a later compaction of the same growing
 * conversation does not read the message again, and the facts go when the message goes.
 *
 * A process that compacts once (the command-line `compact` and `replay` of a recording) turns every
 * memo off with {@link keepMessageMemos}: nothing then reads a message twice across compactions, and
 * the kept facts only add to the peak. Measured on 100k messages of real text (`compact`, extractive
 * summarizer): 90 MB less heap after the compaction (207 → 117 MB) at the same CPU time.
 *
 * Only pure caches belong here: a memo that stores nothing must change no result. Facts a caller
 * records and cannot derive again (a tool result's success flag, see tool-outcomes.ts) stay in
 * their own maps.
 */

/**
 * What every memo keeps, in one table: per key object an array with one slot per memo. One weak
 * entry per key object instead of one per memo and object: the garbage collector visits every entry
 * of every WeakMap at each major collection (they are ephemerons), and a dozen memos over 100k
 * messages made well over a million entries. Undefined while memos are off.
 */
let table: WeakMap<object, unknown[]> | undefined = new WeakMap();
/** Slots handed out (memos are module-level: a fixed, small set). */
let slots = 0;

/** A memo of facts per key object, in a slot of the shared table; stores nothing while memos are off. */
export class MessageMemo<K extends object, V> {
  private readonly slot = slots++;

  /** The value kept for `key`; undefined when none is (or memos are off). */
  get(key: K): V | undefined {
    const kept = table?.get(key);
    return kept === undefined ? undefined : (kept[this.slot] as V | undefined);
  }

  /** Keeps `value` for `key` (nothing while memos are off); returns `value`. */
  set(key: K, value: V): V {
    if (table === undefined) return value;
    let kept = table.get(key);
    if (kept === undefined) {
      kept = new Array<unknown>(slots);
      table.set(key, kept);
    }
    kept[this.slot] = value;
    return value;
  }
}

/**
 * Whether the per-message memos keep what they compute (on by default: the extension compacts the
 * same session many times). Off drops what every memo holds at once.
 */
export function keepMessageMemos(on: boolean): void {
  table = on ? (table ?? new WeakMap()) : undefined;
}

/**
 * Whether the per-message memos are on (see {@link keepMessageMemos}). A reading of a span kept for
 * the next, grown span is kept only while they are: a process that compacts once would only hold it.
 */
export function messageMemosKept(): boolean {
  return table !== undefined;
}
