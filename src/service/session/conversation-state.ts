/**
 * The state of one conversation, and the only code that changes it: the raw transcript (append-only),
 * the active context, the checkpoint list and the pins. Pure: no files, no model, no timers, no events.
 *
 * Every rewrite is split in two so that the owner can persist before memory changes (an acknowledged
 * change is on disk first): `plan*()` computes the next {@link ContextState} without touching anything
 * and throws when the change is not allowed; `apply()` takes it over and bumps {@link version}. A
 * failed write between the two leaves the state exactly as it was.
 */
import type { ChatMessage, ContextItem, Entry } from '../../compaction/types';
import { itemsFromEntries, rawItem, undoCheckpoint } from '../../compaction/context';
import type { CompactionResult } from '../../compaction/outcome';
import type { CheckpointRecord, CheckpointRestored, RestoreUndo } from '../records';
import { unaccountedEntries } from './store-format';
import { runStepIds } from './run-steps';

/** The rewritable part of the state, as persisted beside the transcript. */
export interface ContextState {
  /** The active context, `pinned` set exactly on pinned raw items. */
  context: ContextItem[];
  /** Every checkpoint, oldest first; restored ones stay with `restored: true`. */
  checkpoints: CheckpointRecord[];
  /** Entry ids of pinned messages. */
  pinned: string[];
  /**
   * What undoes the latest restore, while it can still be undone (see {@link RestoreUndo}). Kept with
   * the rest of the state, so switching sessions or reloading the window does not lose the undo.
   */
  undo?: RestoreUndo;
}

/** The state of one conversation. See the module comment for the plan/apply discipline. */
export class ConversationState {
  private entryList: Entry[] = [];
  private entryIds = new Set<string>();
  private entryCounter = 0;
  private active: ContextItem[] = [];
  private checkpointList: CheckpointRecord[] = [];
  private pins = new Set<string>();
  private rewrites = 0;
  /**
   * The messages of {@link active} so far, for {@link messages}. Valid while `items` is the active
   * array: that array only grows in place ({@link append}); every other change replaces it.
   */
  private messageCache: { items: readonly ContextItem[]; messages: ChatMessage[] } | undefined;
  /**
   * The undo of the latest restore, while it can still be undone (see {@link planRedo}): set by the
   * {@link apply} of a restore and by {@link adopt} of a saved one, dropped by any other rewrite.
   */
  private redo: RestoreUndo | undefined;

  /** The raw transcript: every entry ever appended, in order. */
  get entries(): readonly Entry[] {
    return this.entryList;
  }

  /** The active context: what the next request sends. */
  get items(): readonly ContextItem[] {
    return this.active;
  }

  /**
   * The active context's messages, in order, as a new array: what a request sends. A model call
   * takes them at every step, so they are kept as the context grows and copied (pointers, not
   * messages) instead of gathered from every item again.
   */
  messages(): ChatMessage[] {
    if (this.messageCache?.items !== this.active) this.messageCache = { items: this.active, messages: [] };
    const messages = this.messageCache.messages;
    for (let i = messages.length; i < this.active.length; i++) messages.push(this.active[i].message);
    return messages.slice();
  }

  get checkpoints(): readonly CheckpointRecord[] {
    return this.checkpointList;
  }

  get pinned(): ReadonlySet<string> {
    return this.pins;
  }

  /** Bumped on every rewrite of the active context (not on appends); prepared work compares it. */
  get version(): number {
    return this.rewrites;
  }

  /** The current rewritable state (copies), for persistence; with the undo of a restore while there is one. */
  snapshot(): ContextState {
    const state: ContextState = {
      context: [...this.active],
      checkpoints: [...this.checkpointList],
      pinned: [...this.pins],
    };
    if (this.redo) state.undo = this.redo;
    return state;
  }

  /** True when an entry of the transcript has id `id`. */
  hasEntry(id: string): boolean {
    return this.entryIds.has(id);
  }

  /** A fresh entry id (`e000001`, …) not used by any entry. */
  newEntryId(): string {
    let id: string;
    do id = `e${String(++this.entryCounter).padStart(6, '0')}`;
    while (this.entryIds.has(id));
    return id;
  }

  /** Appends `entry` to the transcript and, as a raw item, to the end of the active context. */
  append(entry: Entry): void {
    this.entryList.push(entry);
    this.entryIds.add(entry.id);
    this.active.push(rawItem(entry));
  }

  /**
   * Takes over loaded or imported entries with their saved state (none for a fresh import). Entries the
   * saved context and the active checkpoints do not account for are appended raw, so none is lost.
   */
  adopt(entries: readonly Entry[], saved?: ContextState): void {
    this.entryList = [...entries];
    this.entryIds = new Set(entries.map((e) => e.id));
    this.entryCounter = entries.length;
    this.pins = new Set(saved?.pinned ?? []);
    this.checkpointList = saved?.checkpoints ?? [];
    const context = saved?.context ?? [];
    const missing = unaccountedEntries(entries, context, this.checkpointList);
    this.active = this.withPins([...context, ...itemsFromEntries(missing)], this.pins);
    this.redo = saved?.undo && this.undoStillFits(saved.undo) ? saved.undo : undefined;
    this.rewrites++;
  }

  /**
   * Whether a saved undo still matches the state it was saved with: every checkpoint it puts back in
   * force is there and restored, and the context it saw after the restore is not longer than now.
   * A state written by an older version, or repaired on load, may not match; its undo is dropped.
   */
  private undoStillFits(undo: RestoreUndo): boolean {
    if (undo.length > this.active.length || undo.event.undone.length === 0) return false;
    return undo.event.undone.every((id) => this.checkpointList.some((c) => c.id === id && c.restored));
  }

  /**
   * The state after an applied compaction, and its checkpoints stamped with `time` (ISO 8601). Fields
   * that are undefined are dropped, so a record equals its reloaded form (JSON has no undefined).
   */
  planCommit(result: CompactionResult, time: string): { next: ContextState; records: CheckpointRecord[] } {
    const records: CheckpointRecord[] = result.checkpoints.map((cp) => definedOnly({ ...cp, time }));
    const next = {
      context: this.withPins(result.context, this.pins),
      checkpoints: [...this.checkpointList, ...records],
      pinned: [...this.pins],
    };
    return { next, records };
  }

  /**
   * The state after restoring checkpoint `id` at `time` (or several at once: the steps of one
   * compaction run, as one restore that one undo takes back): their replaced messages come back, and
   * so do those of later checkpoints that consumed their summaries (they are undone first), with
   * every other step of those later checkpoints' runs (see run-steps.ts), so the context is as before
   * `id`. The event is named by the first id.
   * @throws Error when there is no such checkpoint or it was restored already.
   */
  planRestore(id: string | readonly string[], time: string): { next: ContextState; event: CheckpointRestored } {
    const ids = typeof id === 'string' ? [id] : id;
    if (ids.length === 0) throw new Error('no checkpoint to restore');
    let items: ContextItem[] = [...this.active];
    const undone: string[] = [];
    for (const one of ids) {
      const record = this.checkpointList.find((c) => c.id === one);
      if (!record) throw new Error(`no checkpoint with id ${one}`);
      if (record.restored) throw new Error(`checkpoint ${one} was already restored`);
    }
    const inForce = (c: CheckpointRecord) => !c.restored && !undone.includes(c.id);
    const queue = [...ids];
    while (queue.length > 0) {
      const one = queue.shift() as string;
      if (undone.includes(one)) continue;
      const undo = undoCheckpoint(items, this.checkpointList.filter(inForce), one);
      items = undo.items;
      for (const u of undo.undone) undone.push(u);
      // A later run built on what comes back goes whole, newest step first: a step of it that took in
      // none of it would otherwise stay in force, and the context would not be as before.
      for (const u of undo.undone) {
        if (ids.includes(u)) continue;
        const steps = runStepIds(this.checkpointList, u).reverse();
        for (const s of steps)
          if (!queue.includes(s) && this.checkpointList.some((c) => c.id === s && inForce(c))) queue.push(s);
      }
    }
    const checkpoints = this.checkpointList.map((c) =>
      undone.includes(c.id) ? { ...c, restored: true, restoredAt: time } : c,
    );
    const event = { id: ids[0], undone };
    const context = this.withPins(items, this.pins);
    // The undo goes with the state it belongs to, so it is saved (and lost) together with it.
    const undo: RestoreUndo = { context: [...this.active], event, length: context.length };
    return { next: { context, checkpoints, pinned: [...this.pins], undo }, event };
  }

  /**
   * The restore that can be undone now, if any: the latest restore, while nothing rewrote the context
   * after it (messages appended since are fine; a compaction, a pin or another restore ends it). It
   * survives a reload of the state (see {@link ContextState.undo}).
   */
  get redoable(): CheckpointRestored | undefined {
    return this.redo?.event;
  }

  /**
   * The state that undoes the latest restore: the context it replaced comes back (the restored
   * checkpoints are in force again), followed by the messages appended since the restore.
   * @throws Error when no restore can be undone (none yet, or the context was rewritten since).
   */
  planRedo(): { next: ContextState; event: CheckpointRestored } {
    const redo = this.redo;
    if (!redo)
      throw new Error(
        'no restore to undo: the context changed since the last restore (a compaction, a pin or another restore)',
      );
    const appended = this.active.slice(redo.length);
    const undone = new Set(redo.event.undone);
    const checkpoints = this.checkpointList.map((c) => {
      if (!undone.has(c.id)) return c;
      const { restored: _r, restoredAt: _at, ...rest } = c;
      return rest;
    });
    return {
      next: {
        context: this.withPins([...redo.context, ...appended], this.pins),
        checkpoints,
        pinned: [...this.pins],
      },
      event: redo.event,
    };
  }

  /**
   * The state after pinning (or unpinning) the raw message `entryId`; pinned messages are never
   * summarized or collapsed.
   * @throws Error when the message is not raw in the active context (summarized: restore it first).
   */
  planPin(entryId: string, pinned: boolean): ContextState {
    if (!this.active.some((i) => i.kind === 'raw' && i.id === entryId)) {
      const holder = this.checkpointList.find((c) => !c.restored && c.replacedIds.includes(entryId));
      throw new Error(
        holder
          ? `message ${entryId} is summarized by checkpoint ${holder.id}; restore it first`
          : `no message ${entryId} in the active context`,
      );
    }
    const pins = new Set(this.pins);
    if (pinned) pins.add(entryId);
    else pins.delete(entryId);
    return { context: this.withPins(this.active, pins), checkpoints: [...this.checkpointList], pinned: [...pins] };
  }

  /**
   * Takes over a planned state (after it was persisted) and counts a rewrite. The undo of a restore
   * is kept only when `next` carries it (a restore); any other rewrite ends it.
   */
  apply(next: ContextState): void {
    this.active = next.context;
    this.checkpointList = next.checkpoints;
    this.pins = new Set(next.pinned);
    this.redo = next.undo;
    this.rewrites++;
  }

  /** Number of raw entries that existed when `sent` was the active context (its newest covered entry). */
  entryCountAt(sent: readonly ContextItem[]): number {
    const last = sent[sent.length - 1]?.covers.at(-1);
    const index = last === undefined ? -1 : this.entryList.findIndex((e) => e.id === last);
    return index + 1;
  }

  /** Items with `pinned` set exactly for raw items whose id is in `pins` (new objects where it changes). */
  private withPins(items: readonly ContextItem[], pins: ReadonlySet<string>): ContextItem[] {
    return items.map((item) => {
      const want = item.kind === 'raw' && pins.has(item.id);
      if (Boolean(item.pinned) === want) return item;
      const { pinned: _drop, ...rest } = item;
      return want ? { ...rest, pinned: true } : rest;
    });
  }
}

/** A shallow copy of `value` without the keys whose value is undefined. */
function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
