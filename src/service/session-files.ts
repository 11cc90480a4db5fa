/**
 * Where a context service's session lives on disk: the session id, its folder (through
 * {@link SessionStore}) and the metadata written with every state (source, creation time, model).
 * Without a storage directory nothing is written and the session lives in memory only.
 */
import type { Entry } from '../compaction/types';
import type { LogSink } from './api';
import type { ContextState } from './session-state';
import { SessionStore, type SessionState as StoredSession } from './store';

/** The persistence side of one context service. */
export class SessionFiles {
  private store: SessionStore | undefined;
  /** Where the session came from, shown in the sidebar ("Agent session", "Imported: file.jsonl"). */
  source = 'Agent session';

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
  load(log: LogSink): { entries: Entry[]; state: StoredSession | undefined } | undefined {
    if (!this.storageDir) return undefined;
    const { store, loaded } = SessionStore.open(this.storageDir, this.id);
    this.store = store;
    for (const warning of loaded.warnings) log('warn', warning);
    if (loaded.state) {
      this.source = loaded.state.source;
      this.createdAt = loaded.state.createdAt;
    }
    return { entries: loaded.entries, state: loaded.state };
  }

  /** Appends entries durably (before anything else sees them). */
  append(entry: Entry): void {
    this.store?.append(entry);
  }

  /** Writes the state atomically; throws when the write fails. */
  writeState(next: ContextState): void {
    this.store?.writeState({ sessionId: this.id, model: this.model, source: this.source, createdAt: this.createdAt, ...next });
  }

  /** Switches to a new session folder holding `entries` (an import); the old folder is closed. */
  startNew(sessionId: string, source: string, createdAt: string, entries: Entry[]): void {
    let store: SessionStore | undefined;
    if (this.storageDir) {
      store = SessionStore.open(this.storageDir, sessionId).store;
      store.append(...entries);
    }
    this.store?.close();
    this.store = store;
    this.id = sessionId;
    this.source = source;
    this.createdAt = createdAt;
  }

  close(): void {
    this.store?.close();
  }
}
