/**
 * Persistence of one session: a folder under the storage directory holding
 *
 * - `transcript.jsonl`: every raw entry, one JSON object a line, append-only. Each append is fsynced
 *   before it resolves, so an acknowledged message survives a crash. Complete lines are never
 *   rewritten; a torn last line (never acknowledged) is cut off when the folder is next opened.
 * - `state.json`: the active context (raw items as references, other items whole), the pins, the
 *   checkpoints and session metadata, written atomically (temp file, fsync, rename, fsync folder).
 *   Checkpoints and the context live in one file so that a compaction commits both or neither
 *   (INV-ATOMIC). The previous version is kept as `state.prev.json` as a fallback for damage.
 *
 * - `session.json`: the folder's format marker `{format, version}`. Folders written before the marker
 *   existed are version 1 and open as they are; a folder of a newer version opens read-only.
 * - `lock`: the process holding the folder for writing, taken atomically with a heartbeat that a
 *   reused process id cannot fake (session-lock.ts). A second window on the same session, or a second
 *   store of it in the same window, opens it read-only (its writes throw), so two writers never
 *   produce the same entry ids.
 *
 * Loading never fails on a damaged file: bad transcript lines (not JSON, or not of the stored shape:
 * `STORED_ENTRY` in store-format.ts) are skipped and reported (file, line, field), tool results left
 * without their call by a skipped line are left out (named the same way), state references to entries that were lost with a damaged line are dropped (the rest of
 * the context and the checkpoints stay), an unreadable state falls back to the previous one and then
 * to "every entry raw". Tool calls a stop left unanswered get an "interrupted" result (appended to
 * the transcript, placed after their step). Entries appended after the last state write are not in
 * the state; they are the raw entries neither in the active context nor covered by a checkpoint
 * (invariant 4), appended at the end.
 *
 * Writes are checked: a short or failed append is cut back to the last complete line and throws, so a
 * message is acknowledged only once it is whole on disk, and a torn tail left by a crash is cut off
 * before the next append.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Entry } from '../../compaction/types';
import { parseTranscript, resolveState, type SavedSessionState, type StoredState } from './store-format';
import { asString, jsonListPieces, storedCheckpointPieces, storedItemPiece, type StoredText } from './stored-text';
import { removeStaleTempFiles, writeFileAtomic, writeFileAtomicAsync, type TextPiece } from './atomic-file';
import { SessionLock } from './session-lock';
import { TimeSlices } from '../../lifecycle/time-slices';
import { dropUnpairedResults, insertRepairs, repairInterruptedCalls } from './store-repair';
import { parseJsonObject } from '../../format/json';

/** What {@link SessionStore.open} loaded. */
export interface LoadedSession {
  entries: Entry[];
  /** Undefined for a new (empty) session folder. */
  state: SavedSessionState | undefined;
  /** Problems found and worked around, one sentence each (file, line, what was done). */
  warnings: string[];
  /** Set when the folder is opened read-only (held by another window, or a newer format): why. */
  readOnly?: string;
  /** Temp files an interrupted save left, removed on open (housekeeping: nothing of the session was lost). */
  removedTemps?: string[];
}

/** Format marker of a session folder (`session.json`). */
export interface SessionFolderFormat {
  format: 'context-keeper/session';
  version: number;
}

/** Version of the session folder layout this release writes and reads. */
export const SESSION_FOLDER_VERSION = 2;

const TRANSCRIPT = 'transcript.jsonl';
const STATE = 'state.json';
const PREVIOUS_STATE = 'state.prev.json';
const MARKER = 'session.json';
const LOCK = 'lock';
/** The files that say what a folder holds, for reading it without opening it (./saved-sessions). */
export const SESSION_FILE_NAMES = { transcript: TRANSCRIPT, state: STATE, previousState: PREVIOUS_STATE } as const;
/** Characters of JSON lines gathered into one write by {@link SessionStore.append}. */
const APPEND_CHUNK_CHARS = 1 << 20;
/** Most milliseconds of this thread {@link SessionStore.stateTextSliced} works before it yields a turn. */
export const STATE_SLICE_MS = 8;
/** The saved calibration's file, written atomically by session-files.ts (named here for the temp-file sweep). */
export const CALIBRATION_FILE = 'calibration.json';

/** The files of one session folder. Synchronous I/O: every write must be durable before returning. */
export class SessionStore {
  private transcriptFd: number | undefined;
  /** Bytes of the transcript known to end on a complete line. */
  private transcriptSize = 0;
  /** Why writes are refused (another window holds the folder, a newer format), or undefined. */
  private readOnlyReason: string | undefined;
  private lock: SessionLock | undefined;

  private constructor(readonly folder: string) {}

  /** Session folder path for an id. Ids are restricted to `[A-Za-z0-9._-]` (no path tricks). */
  static folderFor(storageDir: string, sessionId: string): string {
    if (!/^[A-Za-z0-9._-]{1,128}$/.test(sessionId) || sessionId.startsWith('.'))
      throw new Error(`invalid session id: ${sessionId}`);
    return path.join(storageDir, sessionId);
  }

  /**
   * Opens (creating when missing) the session folder and loads what it holds. Takes the folder's lock;
   * when another live process holds it, or the folder was written by a newer release, the store opens
   * read-only (`loaded.readOnly` says why; writes then throw). Never throws for damaged content (see
   * the module comment); throws only for I/O errors such as permissions.
   */
  static open(storageDir: string, sessionId: string): { store: SessionStore; loaded: LoadedSession } {
    const folder = SessionStore.folderFor(storageDir, sessionId);
    fs.mkdirSync(folder, { recursive: true });
    const store = new SessionStore(folder);
    store.readOnlyReason = store.checkFormat() ?? store.takeLock();
    const { loaded, repairs } = store.load();
    if (store.readOnlyReason) {
      loaded.readOnly = store.readOnlyReason;
      loaded.warnings.push(`${folder}: opened read-only: ${store.readOnlyReason}`);
      return { store, loaded };
    }
    // With the lock held no other process writes here: temp files of an interrupted save are stale
    // (those this process writes now, for a service of this session still closing, are kept).
    const stale = removeStaleTempFiles(folder, [STATE, CALIBRATION_FILE, MARKER]);
    if (stale.length) loaded.removedTemps = stale;
    store.openTranscript(loaded.warnings);
    store.writeMarker();
    // Interrupted results go to disk now, so the repair survives whatever happens next.
    if (repairs.length) store.append(repairs);
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

  /** Why the store refuses writes, or undefined when it may write. */
  get readOnly(): string | undefined {
    return this.readOnlyReason;
  }

  /** A reason to open read-only when the folder's marker names a newer version (undefined otherwise). */
  private checkFormat(): string | undefined {
    const file = path.join(this.folder, MARKER);
    if (!fs.existsSync(file)) return undefined;
    try {
      const marker = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<SessionFolderFormat>;
      if (typeof marker.version === 'number' && marker.version > SESSION_FOLDER_VERSION) {
        return `the folder was written by a newer release (format version ${marker.version}; this release writes ${SESSION_FOLDER_VERSION})`;
      }
    } catch {
      // A damaged marker is rewritten on open; the data files decide what loads.
    }
    return undefined;
  }

  private writeMarker(): void {
    const marker: SessionFolderFormat = { format: 'context-keeper/session', version: SESSION_FOLDER_VERSION };
    const file = path.join(this.folder, MARKER);
    try {
      if (fs.readFileSync(file, 'utf8') === `${JSON.stringify(marker)}\n`) return;
    } catch {
      // Missing: written below.
    }
    writeFileAtomic(file, `${JSON.stringify(marker)}\n`);
  }

  /** Takes the folder lock; returns why not when a live holder keeps it. A stale lock is taken over. */
  private takeLock(): string | undefined {
    const outcome = SessionLock.acquire(path.join(this.folder, LOCK));
    if (outcome.heldBy !== undefined) return outcome.heldBy;
    this.lock = outcome.lock;
    return undefined;
  }

  private load(): { loaded: LoadedSession; repairs: Entry[] } {
    const warnings: string[] = [];
    let entries: Entry[] = [];
    let lineOf: Map<string, number> | undefined;
    if (fs.existsSync(this.transcriptPath)) {
      const parsed = parseTranscript(fs.readFileSync(this.transcriptPath, 'utf8'), this.transcriptPath);
      entries = parsed.entries;
      lineOf = parsed.lineOf;
      for (const w of parsed.warnings) warnings.push(w);
    }
    const repaired = repairInterruptedCalls(entries, this.transcriptPath, lineOf);
    entries = repaired.entries;
    for (const w of repaired.warnings) warnings.push(w);
    let state: SavedSessionState | undefined;
    for (const name of [STATE, PREVIOUS_STATE]) {
      const file = path.join(this.folder, name);
      if (!fs.existsSync(file)) continue;
      try {
        const lost: string[] = [];
        state = resolveState(JSON.parse(fs.readFileSync(file, 'utf8')) as StoredState, entries, lost);
        if (lost.length)
          warnings.push(
            `${file}: ${new Set(lost).size} entr${new Set(lost).size === 1 ? 'y' : 'ies'} it names (${[...new Set(lost)].slice(0, 5).join(', ')}) were lost with damaged transcript lines; left out, the rest of the context and the checkpoints kept`,
          );
        if (name === PREVIOUS_STATE)
          warnings.push(`${this.statePath}: unreadable; loaded the previous state ${file} instead`);
        break;
      } catch (error) {
        warnings.push(`${file}: ${(error as Error).message}; ignored`);
      }
    }
    if (!state && entries.length > 0 && warnings.some((w) => w.includes(STATE))) {
      warnings.push(`${this.folder}: no usable state; every transcript entry is taken as active (checkpoints lost)`);
    }
    if (state) {
      const paired = dropUnpairedResults(insertRepairs(state.context, repaired.all));
      state.context = paired.context;
      if (paired.dropped.length)
        warnings.push(
          `${this.statePath}: ${paired.dropped.length} tool result item(s) whose call was lost with a damaged line (${paired.dropped.slice(0, 5).join(', ')}); left out of the context`,
        );
    }
    return { loaded: { entries, state, warnings }, repairs: repaired.added };
  }

  private openTranscript(warnings: string[]): void {
    const file = this.transcriptPath;
    const fd = fs.openSync(file, 'a+');
    let size = fs.fstatSync(fd).size;
    if (size > 0) {
      // A torn last line (crash or failed write mid-append) was never acknowledged: cut it off so the
      // next entry starts on a line of its own. A complete last line only missing its newline is kept.
      const tailLength = Math.min(size, 1 << 20);
      const tail = Buffer.alloc(tailLength);
      fs.readSync(fd, tail, 0, tailLength, size - tailLength);
      const lastNewline = tail.lastIndexOf(0x0a);
      if (lastNewline !== tailLength - 1) {
        const lineStart = lastNewline >= 0 ? size - tailLength + lastNewline + 1 : size > tailLength ? -1 : 0;
        const fragment = tail.subarray(lastNewline + 1).toString('utf8');
        if (isJsonObject(fragment) || lineStart < 0) {
          fs.writeSync(fd, '\n');
          size += 1;
        } else {
          fs.ftruncateSync(fd, lineStart);
          warnings.push(
            `${file}: cut off an incomplete last line of ${size - lineStart} bytes left by an interrupted write`,
          );
          size = lineStart;
        }
        fs.fsyncSync(fd);
      }
    }
    this.transcriptFd = fd;
    this.transcriptSize = size;
  }

  private writable(): number {
    if (this.readOnlyReason) throw new Error(`cannot write to ${this.folder}: ${this.readOnlyReason}`);
    if (this.transcriptFd === undefined) throw new Error('session store is closed');
    // A host blocked past the lock's stale time may have lost it to another window: never write beside it.
    if (this.lock && !this.lock.stillHeld()) {
      this.readOnlyReason =
        "another window took the session over while this window's lock was stale; reopen the session to continue";
      throw new Error(`cannot write to ${this.folder}: ${this.readOnlyReason}`);
    }
    return this.transcriptFd;
  }

  /**
   * Appends entries as JSON lines and fsyncs; returns once they are durable. Takes an array (of any
   * length: an import appends every entry of a recording at once) and writes it in pieces of about
   * {@link APPEND_CHUNK_CHARS} characters, so no single string or buffer holds the whole batch. Checked:
   * every byte must be written; on a short or failed write (disk full, file-size limit) the file is cut
   * back to its length before this call and an Error naming the file and the cause is thrown (nothing of
   * the batch was acknowledged).
   */
  append(entries: readonly Entry[]): void {
    const fd = this.writable();
    if (entries.length === 0) return;
    let written = 0;
    try {
      let lines: string[] = [];
      let chars = 0;
      for (let i = 0; i < entries.length; i++) {
        const line = `${JSON.stringify(entries[i])}\n`;
        lines.push(line);
        chars += line.length;
        if (chars >= APPEND_CHUNK_CHARS || i === entries.length - 1) {
          written += writeAll(fd, Buffer.from(lines.join(''), 'utf8'));
          lines = [];
          chars = 0;
        }
      }
      fs.fsyncSync(fd);
      this.transcriptSize += written;
    } catch (error) {
      try {
        fs.ftruncateSync(fd, this.transcriptSize);
        fs.fsyncSync(fd);
      } catch {
        // The next open cuts the torn tail off in any case.
      }
      const cause = error as NodeJS.ErrnoException;
      throw new Error(
        `could not save to ${this.transcriptPath}: ${cause.code === 'ENOSPC' ? 'the disk is full' : cause.code === 'EFBIG' ? 'the file-size limit was reached' : cause.message}; the message was not recorded`,
        { cause },
      );
    }
  }

  /** Writes the state atomically, keeping the previous version as a fallback. Throws when read-only. */
  writeState(state: SavedSessionState): void {
    this.writeStateText(this.stateText(state));
  }

  /** Throws (naming the folder and why) when the store may not write: read-only or closed. */
  checkWritable(): void {
    this.writable();
  }

  /** The text of `state.json` for `state` (its raw items as references). O(state). */
  stateText(state: SavedSessionState): string {
    let text = '';
    for (const piece of statePieces(state)) text += asString(piece);
    return text;
  }

  /**
   * {@link stateText} in pieces (their concatenation is that text; a piece of bytes stands for its
   * UTF-8 characters), written out over as many turns
   * of the event loop as it takes, each at most about {@link STATE_SLICE_MS} of this thread: a state
   * of 300k messages takes over 100 ms to write out. `state` is read as it is now (its lists are
   * copies or never changed: the caller's snapshot), so what changes meanwhile is not in the text.
   */
  async stateTextSliced(state: SavedSessionState, sliceMs = STATE_SLICE_MS): Promise<TextPiece[]> {
    const pieces: TextPiece[] = [];
    // The caller's turn (a commit, a restore) is its own work: the first piece is made in a turn of its own.
    const slices = new TimeSlices(sliceMs);
    await slices.turn();
    for (const piece of statePieces(state)) {
      pieces.push(piece);
      if (slices.due()) await slices.turn();
    }
    return pieces;
  }

  /** Writes state text (from {@link stateText}) atomically, keeping the previous file as a fallback. */
  writeStateText(text: string): void {
    this.writable();
    writeFileAtomic(this.statePath, text, { keepPreviousAs: path.join(this.folder, PREVIOUS_STATE) });
  }

  /**
   * As {@link writeStateText}, with the write and fsyncs off this thread; the file is replaced only
   * when `stillWanted()` holds right before the rename. Resolves whether it was replaced.
   */
  async writeStateTextAsync(text: string | readonly TextPiece[], stillWanted: () => boolean): Promise<boolean> {
    this.writable();
    return writeFileAtomicAsync(this.statePath, text, () => stillWanted() && this.transcriptFd !== undefined, {
      keepPreviousAs: path.join(this.folder, PREVIOUS_STATE),
    });
  }

  /** Closes the transcript file and releases the lock. Further appends throw. */
  close(): void {
    if (this.transcriptFd !== undefined) fs.closeSync(this.transcriptFd);
    this.transcriptFd = undefined;
    this.lock?.release();
    this.lock = undefined;
  }
}

/**
 * The text of `state.json` in pieces, in order: the session's fields, the context (raw items as
 * references) written out a few thousand items at a time, the pins, then each checkpoint
 * from the kept text of its large lists (see stored-text.ts: a save writes out only what changed
 * since the last one), the undo of a restore while there is one, and a recording's tool schemas. Joined, the same text as
 * `JSON.stringify` of the stored state.
 */
function* statePieces(state: SavedSessionState): Generator<StoredText> {
  const fields: Omit<StoredState, 'context' | 'pinned' | 'checkpoints' | 'restoreUndo' | 'recordedTools'> = {
    format: 'context-keeper/session-state',
    version: 1,
    sessionId: state.sessionId,
    model: state.model,
    source: state.source,
    createdAt: state.createdAt,
    updatedAt: new Date().toISOString(),
  };
  yield `${JSON.stringify(fields).slice(0, -1)},"context":`;
  yield* jsonListPieces(state.context, storedItemPiece);
  yield `,"pinned":${JSON.stringify(state.pinned)},"checkpoints":[`;
  for (let k = 0; k < state.checkpoints.length; k++) {
    if (k) yield ',';
    yield* storedCheckpointPieces(state.checkpoints[k]);
  }
  yield ']';
  const undo = state.undo;
  if (undo) {
    yield ',"restoreUndo":{"context":';
    yield* jsonListPieces(undo.context, storedItemPiece);
    yield `,"id":${JSON.stringify(undo.event.id)},"undone":${JSON.stringify(undo.event.undone)},"length":${undo.length}}`;
  }
  if (state.recordedTools?.length) yield `,"recordedTools":${JSON.stringify(state.recordedTools)}`;
  yield '}\n';
}

/** Writes all of `bytes` at the descriptor's position; throws on a short write. Returns the byte count. */
function writeAll(fd: number, bytes: Buffer): number {
  let done = 0;
  while (done < bytes.length) {
    const n = fs.writeSync(fd, bytes, done, bytes.length - done);
    if (n <= 0) throw new Error(`short write (${done} of ${bytes.length} bytes)`);
    done += n;
  }
  return done;
}

function isJsonObject(text: string): boolean {
  return parseJsonObject(text) !== undefined;
}
