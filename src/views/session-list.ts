/**
 * The workspace's conversations, as the sidebar's session list shows them: kept in workspace state
 * (a Memento) as a small list of records; each session's data lives in its own folder under the
 * service's storage directory. Imports are their own sessions and never replace a working one.
 */
import type { SessionView } from '../webview/shared/protocol';

/** The storage a list lives in (VS Code's `Memento`, or a Map in tests). */
export interface ListStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void> | Promise<void>;
}

const LIST_KEY = 'contextKeeper.sessions';
const CURRENT_KEY = 'contextKeeper.sessionId';
/** Written by earlier versions for the one session there was; read once to label it. */
const LEGACY_SOURCE_KEY = 'contextKeeper.sessionSource';

/** The session list and which one is shown. */
export class SessionList {
  constructor(private readonly store: ListStore) {}

  /** Every session, newest change first. */
  all(): SessionView[] {
    return [...(this.store.get<SessionView[]>(LIST_KEY) ?? [])].sort((a, b) =>
      (b.updated ?? '').localeCompare(a.updated ?? ''),
    );
  }

  get(id: string | undefined): SessionView | undefined {
    return id === undefined ? undefined : this.all().find((s) => s.id === id);
  }

  /** Id of the session shown (resumed at startup), if any. */
  get currentId(): string | undefined {
    return this.store.get<string>(CURRENT_KEY);
  }

  async setCurrent(id: string | undefined): Promise<void> {
    await this.store.update(CURRENT_KEY, id);
  }

  /**
   * Adds `session` or updates the record with its id (label kept unless given). A new session whose
   * label another one has gets a number ("log.jsonl (codex) (2)"), so two imports of one recording
   * can be told apart in the pickers.
   */
  async upsert(session: SessionView): Promise<void> {
    const list = this.store.get<SessionView[]>(LIST_KEY) ?? [];
    const i = list.findIndex((s) => s.id === session.id);
    const added = () => ({
      ...session,
      label: distinctLabel(
        session.label,
        list.map((s) => s.label),
      ),
    });
    const next = i >= 0 ? list.map((s, j) => (j === i ? { ...s, ...session } : s)) : [...list, added()];
    await this.store.update(LIST_KEY, next);
  }

  /** Makes sure the opened session `id` is listed (a working session named by its start time). */
  async ensureListed(id: string, now: Date): Promise<SessionView> {
    const known = this.get(id);
    if (known) return known;
    const legacy = this.store.get<string>(LEGACY_SOURCE_KEY);
    const session: SessionView = {
      id,
      label: legacy ?? `Session ${now.toLocaleString([], { dateStyle: 'short', timeStyle: 'short' })}`,
      kind: legacy?.startsWith('Imported') ? 'imported' : 'working',
      updated: now.toISOString(),
    };
    if (legacy) await this.store.update(LEGACY_SOURCE_KEY, undefined);
    await this.upsert(session);
    return session;
  }

  async rename(id: string, label: string): Promise<void> {
    await this.upsert({ ...this.get(id)!, label });
  }

  async remove(id: string): Promise<void> {
    await this.store.update(
      LIST_KEY,
      (this.store.get<SessionView[]>(LIST_KEY) ?? []).filter((s) => s.id !== id),
    );
    if (this.currentId === id) await this.setCurrent(undefined);
  }
}

/** `label`, or `label (n)` with the smallest n from 2 up that no label in `taken` has. */
export function distinctLabel(label: string, taken: readonly string[]): string {
  const used = new Set(taken);
  if (!used.has(label)) return label;
  let n = 2;
  while (used.has(`${label} (${n})`)) n++;
  return `${label} (${n})`;
}
