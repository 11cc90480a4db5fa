/**
 * Where a context service's session lives on disk: the session id, its folder (through
 * {@link SessionStore}) and the metadata written with every state (source, creation time, model).
 * Without a storage directory nothing is written and the session lives in memory only.
 */
import type { Entry, ToolSchema } from '../../compaction/types';
import type { LogSink } from '../api';
import type { ContextState } from './conversation-state';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { CALIBRATION_FILE, SessionStore } from './store';
import { writeFileAtomic, writeFileAtomicAsync } from './atomic-file';
import { isSavedCalibration, type SavedCalibration } from '../meter/tally';
import { SaveQueue } from './save-queue';
import { parseJsonOrUndefined } from '../../format/json';
import type { SavedSessionState } from './store-format';
import { errorMessage } from '../../format/error-message';

/** The meter's calibration on reported usage, written after each model reply (see {@link SavedCalibration}). */
const CALIBRATION = CALIBRATION_FILE;
/** Longest wait, in milliseconds, before a new calibration is written. */
const CALIBRATION_DELAY_MS = 1000;

/** The source of a session started here, never imported nor continued from a recording. */
export const AGENT_SESSION_SOURCE = 'Agent session';

/** The persistence side of one context service. */
export class SessionFiles {
  private store: SessionStore | undefined;
  /** Where the session came from, shown in the sidebar ("Agent session", "Imported: file.jsonl"). */
  source = AGENT_SESSION_SOURCE;
  /** The tool schemas an imported recording holds (empty for other sessions), kept with its state. */
  recordedTools: ToolSchema[] = [];
  /** Entries appended since this instance created the folder empty; undefined when it held a session already. */
  private appendedToNew: number | undefined;
  /** The calibration to write next (read when its write starts) and where to report a failure. */
  private calibrationSource: { saved: () => SavedCalibration | undefined; log: LogSink } | undefined;
  private calibrationTimer: ReturnType<typeof setTimeout> | undefined;
  /** A calibration was saved since the last write was requested. */
  private calibrationDirty = false;
  /** Saves of the current folder's calibration (see {@link saveCalibration}); made on the first save. */
  private calibrationSaves: SaveQueue | undefined;
  /** Saves of the current folder's state (see {@link saveState}); made on the first save. */
  private saves: SaveQueue | undefined;
  /** Writes of closed queues still in flight (each ends on its own, removing its temp file). */
  private readonly closing = new Set<Promise<void>>();

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
  load(
    log: LogSink,
  ): { entries: Entry[]; state: SavedSessionState | undefined; calibration?: SavedCalibration } | undefined {
    if (!this.storageDir) return undefined;
    const { store, loaded } = SessionStore.open(this.storageDir, this.id);
    this.store = store;
    if (loaded.entries.length === 0 && !loaded.state && !loaded.readOnly) this.appendedToNew = 0;
    for (const warning of loaded.warnings) log('warn', warning);
    if (loaded.removedTemps)
      log(
        'info',
        `${store.folder}: removed ${loaded.removedTemps.length} temp file(s) an interrupted save left: ${loaded.removedTemps.join(', ')}`,
      );
    if (loaded.state) {
      this.source = loaded.state.source;
      this.createdAt = loaded.state.createdAt;
      this.recordedTools = loaded.state.recordedTools ?? [];
    }
    const calibration = this.readCalibration(log);
    return { entries: loaded.entries, state: loaded.state, ...(calibration ? { calibration } : {}) };
  }

  /**
   * Saves the meter's calibration (undefined: none in force, the file is removed), at most once per
   * {@link CALIBRATION_DELAY_MS} and on close or a switch of folder: listing the calibrated items' ids
   * (`saved` is called when a write starts) stays out of the reply's path, and the write itself (an
   * fsync, 5-15 ms on this kind of disk) runs off this thread through a {@link SaveQueue}, as the
   * state's saves do: in order, the newest calibration wins, atomic replacement (never a torn file),
   * a pending one written synchronously on close. Best effort: a failed write is logged and costs only
   * the reported figure after a reopen, never the task.
   */
  saveCalibration(saved: () => SavedCalibration | undefined, log: LogSink): void {
    const store = this.store;
    if (!store || store.readOnly) return;
    this.calibrationSource = { saved, log };
    this.calibrationDirty = true;
    this.calibrationTimer ??= setTimeout(() => this.requestCalibration(), CALIBRATION_DELAY_MS);
    this.calibrationTimer.unref?.();
  }

  /** Starts the write of a calibration saved since the last write (off this thread); nothing when none was. */
  private requestCalibration(): void {
    if (this.calibrationTimer) clearTimeout(this.calibrationTimer);
    this.calibrationTimer = undefined;
    const store = this.store;
    if (!store || !this.calibrationDirty) return;
    this.calibrationDirty = false;
    (this.calibrationSaves ??= this.calibrationQueueFor(store.folder)).request();
  }

  /** Resolves once the calibrations saved so far are on disk (the one waiting for its delay is written now). */
  async whenCalibrationSaved(): Promise<void> {
    this.requestCalibration();
    await this.calibrationSaves?.flush().catch(() => undefined);
  }

  /** Writes a pending calibration now, synchronously, and ends the folder's calibration queue. */
  flushCalibration(): void {
    this.requestCalibration();
    const saves = this.calibrationSaves;
    this.calibrationSaves = undefined;
    try {
      saves?.close();
    } catch {
      // Reported to the log by the queue's target; the calibration is a convenience only.
    }
    if (saves) this.track(saves);
  }

  /** Remembers a closed queue's write in flight until it ends. */
  private track(saves: SaveQueue): void {
    const idle = saves.idle();
    this.closing.add(idle);
    void idle.finally(() => this.closing.delete(idle));
  }

  /**
   * Resolves once the writes of closed queues still in flight have ended (at once when none are):
   * after {@link close}, nothing writes into the folder any more. Never rejects.
   */
  async whenClosed(): Promise<void> {
    await Promise.all([...this.closing]);
  }

  private calibrationQueueFor(folder: string): SaveQueue {
    const file = path.join(folder, CALIBRATION);
    // The content is a calibration's JSON, or NONE: no calibration in force, so the file is removed.
    const NONE = '';
    const warn = (error: unknown) =>
      this.calibrationSource?.log(
        'warn',
        `${file}: could not save the calibration on reported usage (${errorMessage(error)})`,
      );
    return new SaveQueue(
      {
        serialize: () => {
          const saved = this.calibrationSource?.saved();
          return saved ? `${JSON.stringify(saved)}\n` : NONE;
        },
        write: async (text, stillWanted) => {
          if (text !== NONE) return writeFileAtomicAsync(file, text, stillWanted);
          if (!stillWanted()) return false;
          fs.rmSync(file, { force: true });
          return true;
        },
        writeSync: (text) => {
          try {
            if (text !== NONE) writeFileAtomic(file, text);
            else fs.rmSync(file, { force: true });
          } catch (error) {
            warn(error);
            throw error;
          }
        },
      },
      warn,
    );
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
    const value = parseJsonOrUndefined(text);
    if (value === undefined) {
      log('warn', `${file}: not valid JSON; the gauge shows an estimate until the next model reply`);
      return undefined;
    }
    if (isSavedCalibration(value)) return value;
    log(
      'warn',
      `${file}: fields "tokens", "cachedAdded" or "ids" missing or of the wrong type; the gauge shows an estimate until the next model reply`,
    );
    return undefined;
  }

  /** Appends entries durably (before anything else sees them). */
  append(entry: Entry): void {
    this.store?.append([entry]);
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

  /**
   * Resolves once every state save requested so far is on disk, and the calibration too (see
   * {@link whenCalibrationSaved}); rejects with the error of a failed state save.
   */
  async whenSaved(): Promise<void> {
    await this.saves?.flush();
    await this.whenCalibrationSaved();
  }

  private queueFor(store: SessionStore): SaveQueue {
    const file = store.statePath;
    const failed = (error: unknown) =>
      new Error(`could not save the session state to ${file}: ${describeIoError(error)}`, { cause: error });
    const state = () => ({
      sessionId: this.id,
      model: this.model,
      source: this.source,
      createdAt: this.createdAt,
      ...this.stateOf(),
      ...(this.recordedTools.length ? { recordedTools: this.recordedTools } : {}),
    });
    return new SaveQueue(
      {
        serialize: () => store.stateText(state()),
        serializeSliced: () => store.stateTextSliced(state()),
        write: (text, stillWanted) =>
          store.writeStateTextAsync(text, stillWanted).catch((error: unknown) => Promise.reject(failed(error))),
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
    if (saves) this.track(saves);
  }

  /**
   * Switches to a new session folder holding `entries` (an import, with the tool schemas it recorded:
   * `recordedTools`); the old folder is closed, and
   * deleted when this instance created it and wrote nothing but the opening system prompt to it (so an
   * import leaves no empty session behind; a folder with anything else in it is kept).
   */
  startNew(
    sessionId: string,
    source: string,
    createdAt: string,
    entries: Entry[],
    recordedTools: ToolSchema[] = [],
  ): void {
    this.flushCalibration();
    this.closeSaves();
    let store: SessionStore | undefined;
    if (this.storageDir) {
      store = SessionStore.open(this.storageDir, sessionId).store;
      store.append(entries);
    }
    this.store?.close();
    const oldFolder = this.store?.folder;
    if (oldFolder && this.appendedToNew !== undefined && this.appendedToNew <= 1) {
      // A save still finishing in the closed store may add a file while the folder goes: retry, and
      // keep the folder if it is still being written (an empty leftover session does no harm).
      try {
        fs.rmSync(oldFolder, { recursive: true, force: true, maxRetries: 3, retryDelay: 20 });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOTEMPTY') throw err;
      }
    }
    this.appendedToNew = undefined;
    this.store = store;
    this.id = sessionId;
    this.source = source;
    this.createdAt = createdAt;
    this.recordedTools = recordedTools;
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
  return errorMessage(error);
}

/** Makes a session id: sortable time plus a random suffix, safe as a folder name. */
export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
  return `${stamp}-${randomUUID().slice(0, 6)}`;
}
