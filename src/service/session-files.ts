/**
 * Where a context service's session lives on disk: the session id, its folder (through
 * {@link SessionStore}) and the metadata written with every state (source, creation time, model).
 * Without a storage directory nothing is written and the session lives in memory only.
 */
import type { Entry } from '../compaction/types';
import type { LogSink } from './api';
import type { ContextState } from './session-state';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SessionStore, writeFileAtomic, type SessionState as StoredSession } from './store';
import { isSavedCalibration, type SavedCalibration } from './tally';
import { SaveQueue } from './save-queue';

/** The meter's calibration on reported usage, written after each model reply (see {@link SavedCalibration}). */
const CALIBRATION = 'calibration.json';
/** Longest wait, in milliseconds, before a new calibration is written. */
const CALIBRATION_DELAY_MS = 1000;

/** The persistence side of one context service. */
export class SessionFiles {
  private store: SessionStore | undefined;
  /** Where the session came from, shown in the sidebar ("Agent session", "Imported: file.jsonl"). */
  source = 'Agent session';
  /** Entries appended since this instance created the folder empty; undefined when it held a session already. */
  private appendedToNew: number | undefined;
  private pendingCalibration: { folder: string; saved: () => SavedCalibration | undefined; log: LogSink } | undefined;
  private calibrationTimer: ReturnType<typeof setTimeout> | undefined;
  /** Saves of the current folder's state (see {@link saveState}); made on the first save. */
  private saves: SaveQueue | undefined;

  constructor(
    private readonly storageDir: string | undefined,
    private id: string,
    private readonly model: string,
    /** ISO time the session was created. */
    public createdAt: string,
    /** The state to save, as it is when a save starts (the newest state wins). */
    private readonly stateOf: () => ContextState,
    /** Told about every failed state save (with the file and the cause); the state is saved again later. */
    private readonly onSaveError: (error: Error) => void,
  ) {}

  get sessionId(): string {
    return this.id;
  }

  get folder(): string | undefined {
    return this.store?.folder;
  }

  /**
   * Opens (or creates) the session folder; load warnings go to `log`. Returns what was persisted, or
   * undefined without a storage directory. Throws for I/O errors other than damaged content.
   */
  load(log: LogSink): { entries: Entry[]; state: StoredSession | undefined; calibration?: SavedCalibration } | undefined {
    if (!this.storageDir) return undefined;
    const { store, loaded } = SessionStore.open(this.storageDir, this.id);
    this.store = store;
    if (loaded.entries.length === 0 && !loaded.state && !loaded.readOnly) this.appendedToNew = 0;
    for (const warning of loaded.warnings) log('warn', warning);
    if (loaded.state) {
      this.source = loaded.state.source;
      this.createdAt = loaded.state.createdAt;
    }
    const calibration = this.readCalibration(log);
    return { entries: loaded.entries, state: loaded.state, ...(calibration ? { calibration } : {}) };
  }

  /**
   * Saves the meter's calibration (undefined: none in force, the file is removed), at most once per
   * {@link CALIBRATION_DELAY_MS} and on close or a switch of folder: the write (an fsync, 5-15 ms on
   * this kind of disk) stays out of the reply's path, and so does listing the calibrated items' ids
   * (`saved` is called at write time). Best effort: a failed write is logged and costs only the
   * reported figure after a reopen, never the task.
   */
  saveCalibration(saved: () => SavedCalibration | undefined, log: LogSink): void {
    const folder = this.store?.folder;
    if (!folder || this.store?.readOnly) return;
    this.pendingCalibration = { folder, saved, log };
    this.calibrationTimer ??= setTimeout(() => this.flushCalibration(), CALIBRATION_DELAY_MS);
    this.calibrationTimer.unref?.();
  }

  /** Writes a calibration saved since the last write, if any. */
  flushCalibration(): void {
    if (this.calibrationTimer) clearTimeout(this.calibrationTimer);
    this.calibrationTimer = undefined;
    const pending = this.pendingCalibration;
    this.pendingCalibration = undefined;
    if (!pending) return;
    const file = path.join(pending.folder, CALIBRATION);
    try {
      const saved = pending.saved();
      if (saved) writeFileAtomic(file, `${JSON.stringify(saved)}\n`);
      else fs.rmSync(file, { force: true });
    } catch (error) {
      pending.log('warn', `${file}: could not save the calibration on reported usage (${error instanceof Error ? error.message : String(error)})`);
    }
  }

  /** The saved calibration, or undefined when there is none; a damaged file is reported and ignored. */
  private readCalibration(log: LogSink): SavedCalibration | undefined {
    const folder = this.store?.folder;
    if (!folder) return undefined;
    const file = path.join(folder, CALIBRATION);
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
    try {
      const value: unknown = JSON.parse(text);
      if (isSavedCalibration(value)) return value;
      log('warn', `${file}: fields "tokens", "cachedAdded" or "ids" missing or of the wrong type; the gauge shows an estimate until the next model reply`);
    } catch {
      log('warn', `${file}: not valid JSON; the gauge shows an estimate until the next model reply`);
    }
    return undefined;
  }

  /** Appends entries durably (before anything else sees them). */
  append(entry: Entry): void {
    this.store?.append(entry);
    if (this.appendedToNew !== undefined) this.appendedToNew++;
  }

  /**
   * Saves the state (from `stateOf`) atomically, after this returns: ordered after every earlier save,
   * coalesced with saves requested before it starts, off this thread but for serializing the state
   * (see {@link SaveQueue}). A failed save goes to `onSaveError` and is retried on the next save, on
   * {@link whenSaved} and on close (synchronously). O(1) here.
   *
   * Why the state may be saved after memory changed (a rewrite: compaction, restore, pin, import)
   * while appends are written first: an appended message is acknowledged, so it is on disk before
   * anything sees it. Any state file a crash leaves (the one before a rewrite or after it) is whole
   * (atomic replacement), names only messages already on disk, and loads with every later message
   * raw (invariant 4: each raw entry is in the context or under exactly one checkpoint). A crash can
   * thus undo a rewrite made just before it, never lose a message or a checkpoint's replaced ones.
   * @throws Error, synchronously, when the folder may not be written (read-only, closed).
   */
  saveState(): void {
    const store = this.store;
    if (!store) return;
    store.checkWritable();
    (this.saves ??= this.queueFor(store)).request();
  }

  /** Throws (naming the folder and why) when the folder may not be written; nothing without a folder. */
  checkWritable(): void {
    this.store?.checkWritable();
  }

  /** Resolves once every state save requested so far is on disk; rejects with the error of a failed one. */
  whenSaved(): Promise<void> {
    return this.saves?.flush() ?? Promise.resolve();
  }

  private queueFor(store: SessionStore): SaveQueue {
    const file = store.statePath;
    const failed = (error: unknown) => new Error(`could not save the session state to ${file}: ${describeIoError(error)}`, { cause: error });
    return new SaveQueue(
      {
        serialize: () => store.stateText({ sessionId: this.id, model: this.model, source: this.source, createdAt: this.createdAt, ...this.stateOf() }),
        write: (text, stillWanted) => store.writeStateTextAsync(text, stillWanted).catch((error: unknown) => Promise.reject(failed(error))),
        writeSync: (text) => {
          try {
            store.writeStateText(text);
          } catch (error) {
            throw failed(error);
          }
        },
      },
      this.onSaveError,
    );
  }

  /** Writes the pending state save of the current folder now, and ends its queue; a failure is reported. */
  private closeSaves(): void {
    const saves = this.saves;
    this.saves = undefined;
    try {
      saves?.close();
    } catch (error) {
      this.onSaveError(error as Error);
    }
  }

  /**
   * Switches to a new session folder holding `entries` (an import); the old folder is closed, and
   * deleted when this instance created it and wrote nothing but the opening system prompt to it (so an
   * import leaves no empty session behind; a folder with anything else in it is kept).
   */
  startNew(sessionId: string, source: string, createdAt: string, entries: Entry[]): void {
    this.flushCalibration();
    this.closeSaves();
    let store: SessionStore | undefined;
    if (this.storageDir) {
      store = SessionStore.open(this.storageDir, sessionId).store;
      store.append(...entries);
    }
    this.store?.close();
    const oldFolder = this.store?.folder;
    if (oldFolder && this.appendedToNew !== undefined && this.appendedToNew <= 1) fs.rmSync(oldFolder, { recursive: true, force: true });
    this.appendedToNew = undefined;
    this.store = store;
    this.id = sessionId;
    this.source = source;
    this.createdAt = createdAt;
  }

  /** Writes what is not saved yet (synchronously: closing cannot wait), then closes the folder. */
  close(): void {
    this.closeSaves();
    this.flushCalibration();
    this.store?.close();
  }
}

function describeIoError(error: unknown): string {
  const cause = error as NodeJS.ErrnoException;
  if (cause?.code === 'ENOSPC') return 'the disk is full';
  if (cause?.code === 'EFBIG') return 'the file-size limit was reached';
  return error instanceof Error ? error.message : String(error);
}
