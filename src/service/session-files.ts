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

  constructor(
    private readonly storageDir: string | undefined,
    private id: string,
    private readonly model: string,
    /** ISO time the session was created. */
    public createdAt: string,
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

  /** Writes the state atomically; throws when the write fails. */
  writeState(next: ContextState): void {
    this.store?.writeState({ sessionId: this.id, model: this.model, source: this.source, createdAt: this.createdAt, ...next });
  }

  /**
   * Switches to a new session folder holding `entries` (an import); the old folder is closed, and
   * deleted when this instance created it and wrote nothing but the opening system prompt to it (so an
   * import leaves no empty session behind; a folder with anything else in it is kept).
   */
  startNew(sessionId: string, source: string, createdAt: string, entries: Entry[]): void {
    this.flushCalibration();
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

  close(): void {
    this.flushCalibration();
    this.store?.close();
  }
}
