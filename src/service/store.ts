/**
 * Persistence of one session: a folder under the storage directory holding
 *
 * - `transcript.jsonl`: every raw entry, one JSON object a line, append-only. Each append is fsynced
 *   before it resolves, so an acknowledged message survives a crash. Existing bytes are never
 *   rewritten; when a crash left a torn last line, the next open starts a fresh line after it.
 * - `state.json`: the active context (raw items as references, other items whole), the pins, the
 *   checkpoints and session metadata, written atomically (temp file, fsync, rename, fsync folder).
 *   Checkpoints and the context live in one file so that a compaction commits both or neither
 *   (INV-ATOMIC). The previous version is kept as `state.prev.json` as a fallback for damage.
 *
 * Loading never fails on a damaged file: bad transcript lines are skipped and reported (file, line,
 * reason), an unreadable state falls back to the previous one and then to "every entry raw".
 * Entries appended after the last state write are not in the state; they are the raw entries
 * neither in the active context nor covered by a checkpoint (invariant 4), appended at the end.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ContextItem, Entry } from '../compaction/types';
import type { CheckpointRecord } from './api';

/** An active-context item as stored: raw items by reference, derived items whole. */
export type StoredItem = { ref: string; pinned?: boolean } | (ContextItem & { ref?: undefined });

/** A checkpoint as stored: its replaced/inserted items in {@link StoredItem} form. */
export type StoredCheckpoint = Omit<CheckpointRecord, 'replaced' | 'inserted'> & { replaced: StoredItem[]; inserted: StoredItem[] };

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

/** The in-memory form of a session's state. */
export interface SessionState {
  sessionId: string;
  model: string;
  source: string;
  createdAt: string;
  context: ContextItem[];
  pinned: string[];
  checkpoints: CheckpointRecord[];
}

/** What {@link SessionStore.open} loaded. */
export interface LoadedSession {
  entries: Entry[];
  /** Undefined for a new (empty) session folder. */
  state: SessionState | undefined;
  /** Problems found and worked around, one sentence each (file, line, what was done). */
  warnings: string[];
}

const TRANSCRIPT = 'transcript.jsonl';
const STATE = 'state.json';
const PREVIOUS_STATE = 'state.prev.json';

/** Writes `text` to `file` atomically: temp file in the same folder, fsync, rename, fsync folder. */
export function writeFileAtomic(file: string, text: string): void {
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  const fd = fs.openSync(temp, 'w');
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, file);
  fsyncFolder(path.dirname(file));
}

function fsyncFolder(folder: string): void {
  // Makes the rename itself durable; not supported on every platform (Windows), hence best effort.
  try {
    const fd = fs.openSync(folder, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Ignored: the data file itself was fsynced.
  }
}

function toStored(item: ContextItem): StoredItem {
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
    if (typeof entry?.id !== 'string' || typeof entry.message !== 'object' || entry.message === null || typeof (entry.message as { role?: unknown }).role !== 'string') {
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
 * wrong or a reference points at a missing entry (the caller then tries the fallback).
 */
export function resolveState(stored: StoredState, entries: readonly Entry[]): SessionState {
  if (stored?.format !== 'context-keeper/session-state' || !Array.isArray(stored.context) || !Array.isArray(stored.checkpoints)) {
    throw new Error('field "format", "context" or "checkpoints" is missing or wrong');
  }
  const byId = new Map(entries.map((e) => [e.id, e]));
  const resolve = (item: StoredItem, field: string): ContextItem => {
    if (typeof item.ref === 'string') {
      const entry = byId.get(item.ref);
      if (!entry) throw new Error(`${field}: entry ${item.ref} is not in the transcript`);
      return { id: entry.id, kind: 'raw', message: entry.message, covers: [entry.id], ...(item.pinned ? { pinned: true } : {}) };
    }
    const full = item as ContextItem;
    if (typeof full.id !== 'string' || typeof full.message !== 'object' || !Array.isArray(full.covers)) throw new Error(`${field}: malformed item`);
    return full;
  };
  // Resolve each raw reference to one shared object per id, so identical items compare equal by
  // reference across the context and the checkpoints (and the meter's cache hits).
  const shared = new Map<string, ContextItem>();
  const resolveShared = (item: StoredItem, field: string): ContextItem => {
    const key = typeof item.ref === 'string' ? `${item.ref}|${item.pinned ? 1 : 0}` : undefined;
    if (key === undefined) return resolve(item, field);
    let hit = shared.get(key);
    if (!hit) shared.set(key, (hit = resolve(item, field)));
    return hit;
  };
  const context = stored.context.map((item, i) => resolveShared(item, `context[${i}]`));
  const checkpoints: CheckpointRecord[] = stored.checkpoints.map((cp, i) => ({
    ...cp,
    replaced: cp.replaced.map((item, k) => resolveShared(item, `checkpoints[${i}].replaced[${k}]`)),
    inserted: cp.inserted.map((item, k) => resolveShared(item, `checkpoints[${i}].inserted[${k}]`)),
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
export function unaccountedEntries(entries: readonly Entry[], context: readonly ContextItem[], checkpoints: readonly CheckpointRecord[]): Entry[] {
  const covered = new Set<string>();
  for (const item of context) for (const id of item.covers) covered.add(id);
  for (const cp of checkpoints) {
    if (cp.restored) continue;
    for (const id of cp.replacedIds) covered.add(id);
  }
  return entries.filter((e) => !covered.has(e.id));
}

/** The files of one session folder. Synchronous I/O: every write must be durable before returning. */
export class SessionStore {
  private transcriptFd: number | undefined;

  private constructor(readonly folder: string) {}

  /** Session folder path for an id. Ids are restricted to `[A-Za-z0-9._-]` (no path tricks). */
  static folderFor(storageDir: string, sessionId: string): string {
    if (!/^[A-Za-z0-9._-]{1,128}$/.test(sessionId) || sessionId.startsWith('.')) throw new Error(`invalid session id: ${sessionId}`);
    return path.join(storageDir, sessionId);
  }

  /**
   * Opens (creating when missing) the session folder and loads what it holds. Never throws for
   * damaged content (see the module comment); throws only for I/O errors such as permissions.
   */
  static open(storageDir: string, sessionId: string): { store: SessionStore; loaded: LoadedSession } {
    const folder = SessionStore.folderFor(storageDir, sessionId);
    fs.mkdirSync(folder, { recursive: true });
    const store = new SessionStore(folder);
    const loaded = store.load();
    store.openTranscript();
    return { store, loaded };
  }

  /** Path of the transcript file. */
  get transcriptPath(): string {
    return path.join(this.folder, TRANSCRIPT);
  }

  /** Path of the state file. */
  get statePath(): string {
    return path.join(this.folder, STATE);
  }

  private load(): LoadedSession {
    const warnings: string[] = [];
    let entries: Entry[] = [];
    if (fs.existsSync(this.transcriptPath)) {
      const parsed = parseTranscript(fs.readFileSync(this.transcriptPath, 'utf8'), this.transcriptPath);
      entries = parsed.entries;
      warnings.push(...parsed.warnings);
    }
    let state: SessionState | undefined;
    for (const name of [STATE, PREVIOUS_STATE]) {
      const file = path.join(this.folder, name);
      if (!fs.existsSync(file)) continue;
      try {
        state = resolveState(JSON.parse(fs.readFileSync(file, 'utf8')) as StoredState, entries);
        if (name === PREVIOUS_STATE) warnings.push(`${this.statePath}: unreadable; loaded the previous state ${file} instead`);
        break;
      } catch (error) {
        warnings.push(`${file}: ${(error as Error).message}; ignored`);
      }
    }
    if (!state && entries.length > 0 && warnings.some((w) => w.includes(STATE))) {
      warnings.push(`${this.folder}: no usable state; every transcript entry is taken as active (checkpoints lost)`);
    }
    return { entries, state, warnings };
  }

  private openTranscript(): void {
    const file = this.transcriptPath;
    const fd = fs.openSync(file, 'a+');
    const size = fs.fstatSync(fd).size;
    if (size > 0) {
      // A torn last line (crash mid-append) must not swallow the next entry: start a new line.
      const last = Buffer.alloc(1);
      fs.readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) {
        fs.writeSync(fd, '\n');
        fs.fsyncSync(fd);
      }
    }
    this.transcriptFd = fd;
  }

  /** Appends entries as JSON lines and fsyncs; returns once they are durable. */
  append(...entries: Entry[]): void {
    if (this.transcriptFd === undefined) throw new Error('session store is closed');
    if (entries.length === 0) return;
    fs.writeSync(this.transcriptFd, entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
    fs.fsyncSync(this.transcriptFd);
  }

  /** Writes the state atomically, keeping the previous version as a fallback. */
  writeState(state: SessionState): void {
    const stored: StoredState = {
      format: 'context-keeper/session-state',
      version: 1,
      sessionId: state.sessionId,
      model: state.model,
      source: state.source,
      createdAt: state.createdAt,
      updatedAt: new Date().toISOString(),
      context: state.context.map(toStored),
      pinned: state.pinned,
      checkpoints: state.checkpoints.map((cp) => ({ ...cp, replaced: cp.replaced.map(toStored), inserted: cp.inserted.map(toStored) })),
    };
    if (fs.existsSync(this.statePath)) fs.copyFileSync(this.statePath, path.join(this.folder, PREVIOUS_STATE));
    writeFileAtomic(this.statePath, `${JSON.stringify(stored)}\n`);
  }

  /** Closes the transcript file. Further appends throw. */
  close(): void {
    if (this.transcriptFd !== undefined) fs.closeSync(this.transcriptFd);
    this.transcriptFd = undefined;
  }
}
