/**
 * The stored forms of a session folder's files and their parsing (see store.ts for the folder's
 * layout): transcript lines, the state file, and the rebuilding of the in-memory state from them.
 */
import type { ContextItem, Entry } from '../../compaction/types';
import type { CheckpointRecord } from '../records';
import { rawItem } from '../../compaction/context';

/** An active-context item as stored: raw items by reference, derived items whole. */
export type StoredItem = { ref: string; pinned?: boolean } | (ContextItem & { ref?: undefined });

/** A checkpoint as stored: its replaced/inserted items in {@link StoredItem} form. */
export type StoredCheckpoint = Omit<CheckpointRecord, 'replaced' | 'inserted'> & {
  replaced: StoredItem[];
  inserted: StoredItem[];
};

/** Contents of `state.json`. */
export interface StoredState {
  format: 'context-keeper/session-state';
  version: 1;
  sessionId: string;
  model: string;
  /** Where the conversation came from ("Agent session", "Imported: …"). */
  source: string;
  createdAt: string;
  updatedAt: string;
  context: StoredItem[];
  pinned: string[];
  checkpoints: StoredCheckpoint[];
}

/** What a session folder saved, in memory: `state.json` resolved against the transcript's entries. */
export interface SavedSessionState {
  sessionId: string;
  model: string;
  source: string;
  createdAt: string;
  context: ContextItem[];
  pinned: string[];
  checkpoints: CheckpointRecord[];
}

/** The stored form of an active-context item: raw items by reference. */
export function toStored(item: ContextItem): StoredItem {
  if (item.kind === 'raw') return item.pinned ? { ref: item.id, pinned: true } : { ref: item.id };
  return item;
}

/** Parses the transcript text; bad lines are skipped and reported. */
export function parseTranscript(text: string, file: string): { entries: Entry[]; warnings: string[] } {
  const entries: Entry[] = [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `${file}:${index + 1}`;
    const torn = index === lines.length - 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      warnings.push(`${where}: ${torn ? 'incomplete last line (interrupted write)' : 'not valid JSON'}; skipped`);
      return;
    }
    const entry = value as Partial<Entry>;
    if (
      typeof entry?.id !== 'string' ||
      typeof entry.message !== 'object' ||
      entry.message === null ||
      typeof (entry.message as { role?: unknown }).role !== 'string'
    ) {
      warnings.push(`${where}: field "id" or "message.role" missing; skipped`);
      return;
    }
    if (seen.has(entry.id)) {
      warnings.push(`${where}: duplicate entry id ${entry.id}; skipped`);
      return;
    }
    seen.add(entry.id);
    entries.push(entry as Entry);
  });
  return { entries, warnings };
}

/**
 * Rebuilds the in-memory state from a stored one. Throws Error naming the field when the shape is
 * wrong, or when a reference points at a missing entry and no `lost` list is given (the caller then
 * tries the fallback). With `lost`, references to missing entries are dropped and their ids pushed
 * there (an entry whose transcript line was damaged), so the rest of the state survives.
 */
export function resolveState(stored: StoredState, entries: readonly Entry[], lost?: string[]): SavedSessionState {
  if (
    stored?.format !== 'context-keeper/session-state' ||
    !Array.isArray(stored.context) ||
    !Array.isArray(stored.checkpoints)
  ) {
    throw new Error('field "format", "context" or "checkpoints" is missing or wrong');
  }
  const byId = new Map(entries.map((e) => [e.id, e]));
  const resolve = (item: StoredItem, field: string): ContextItem | undefined => {
    if (typeof item.ref === 'string') {
      const entry = byId.get(item.ref);
      if (!entry) {
        // With `lost`, an entry whose line was damaged is left out instead of failing the whole state.
        if (!lost) throw new Error(`${field}: entry ${item.ref} is not in the transcript`);
        lost.push(item.ref);
        return undefined;
      }
      return { ...rawItem(entry), ...(item.pinned ? { pinned: true } : {}) };
    }
    const full = item as ContextItem;
    if (typeof full.id !== 'string' || typeof full.message !== 'object' || !Array.isArray(full.covers))
      throw new Error(`${field}: malformed item`);
    if (lost && full.covers.some((id) => !byId.has(id))) {
      for (const id of full.covers) if (!byId.has(id)) lost.push(id);
      return { ...full, covers: full.covers.filter((id) => byId.has(id)) };
    }
    return full;
  };
  // Resolve each raw reference to one shared object per id, so identical items compare equal by
  // reference across the context and the checkpoints (and the meter's cache hits).
  const shared = new Map<string, ContextItem>();
  const resolveShared = (item: StoredItem, field: string): ContextItem | undefined => {
    const key = typeof item.ref === 'string' ? `${item.ref}|${item.pinned ? 1 : 0}` : undefined;
    if (key === undefined) return resolve(item, field);
    let hit = shared.get(key);
    if (!hit) {
      hit = resolve(item, field);
      if (hit) shared.set(key, hit);
    }
    return hit;
  };
  const present = (x: ContextItem | undefined): x is ContextItem => x !== undefined;
  const context = stored.context.map((item, i) => resolveShared(item, `context[${i}]`)).filter(present);
  const checkpoints: CheckpointRecord[] = stored.checkpoints.map((cp, i) => ({
    ...cp,
    replacedIds: lost ? cp.replacedIds.filter((id) => byId.has(id)) : cp.replacedIds,
    replaced: cp.replaced.map((item, k) => resolveShared(item, `checkpoints[${i}].replaced[${k}]`)).filter(present),
    inserted: cp.inserted.map((item, k) => resolveShared(item, `checkpoints[${i}].inserted[${k}]`)).filter(present),
  }));
  return {
    sessionId: stored.sessionId,
    model: stored.model,
    source: stored.source,
    createdAt: stored.createdAt,
    context,
    pinned: Array.isArray(stored.pinned) ? stored.pinned.filter((p) => typeof p === 'string') : [],
    checkpoints,
  };
}

/**
 * Raw entries neither in `context` nor covered by an active (not restored) checkpoint: the ones
 * appended after the state was last written. Returned in transcript order.
 */
export function unaccountedEntries(
  entries: readonly Entry[],
  context: readonly ContextItem[],
  checkpoints: readonly CheckpointRecord[],
): Entry[] {
  const covered = new Set<string>();
  for (const item of context) for (const id of item.covers) covered.add(id);
  for (const cp of checkpoints) {
    if (cp.restored) continue;
    for (const id of cp.replacedIds) covered.add(id);
  }
  return entries.filter((e) => !covered.has(e.id));
}
