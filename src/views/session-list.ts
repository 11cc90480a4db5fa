/**
 * The workspace's conversations, as the sidebar's session list shows them: kept in workspace state
 * (a Memento) as a small list of records; each session's data lives in its own folder under the
 * service's storage directory. Imports are their own sessions and never replace a working one. The
 * workspace state is written by the editor when it sees fit (a killed editor may lose the latest
 * records), the folders as the session goes: sessions missing from the list are restored from their
 * folders ({@link SessionList.restore}).
 */
import type { SessionView } from '../webview/shared/protocol';
import type { SavedSession } from '../service/session/saved-sessions';
import { parseSource } from '../service/session/transfer';

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

  /**
   * Makes sure the opened session `id` is listed: a new working session is "New session" until its
   * first task names it (see {@link nameByTask}).
   */
  async ensureListed(id: string, now: Date): Promise<SessionView> {
    const known = this.get(id);
    if (known) return known;
    const legacy = this.store.get<string>(LEGACY_SOURCE_KEY);
    const session: SessionView = legacy
      ? { id, label: legacy, kind: legacy.startsWith('Imported') ? 'imported' : 'working', updated: now.toISOString() }
      : { id, label: UNTITLED_LABEL, kind: 'working', untitled: true, updated: now.toISOString() };
    if (legacy) await this.store.update(LEGACY_SOURCE_KEY, undefined);
    await this.upsert(session);
    return session;
  }

  /** Gives session `id` the name `label` (the user's; a later task does not rename it). */
  async rename(id: string, label: string): Promise<void> {
    const { untitled: _untitled, ...session } = this.get(id)!;
    await this.replace({ ...session, label });
  }

  /**
   * Names the untitled session `id` after its first task, `task` (see {@link taskTitle}); a session
   * with a name (given, imported or named before) keeps it. Returns whether it was renamed.
   */
  async nameByTask(id: string, task: string): Promise<boolean> {
    const session = this.get(id);
    const title = taskTitle(task);
    if (!session?.untitled || !title) return false;
    const { untitled: _untitled, ...named } = session;
    const taken = this.all()
      .filter((s) => s.id !== id)
      .map((s) => s.label);
    await this.replace({ ...named, label: distinctLabel(title, taken) });
    return true;
  }

  /** Writes `session` over the record with its id (fields it lacks are dropped). */
  private async replace(session: SessionView): Promise<void> {
    const list = this.store.get<SessionView[]>(LIST_KEY) ?? [];
    await this.store.update(
      LIST_KEY,
      list.map((s) => (s.id === session.id ? session : s)),
    );
  }

  /**
   * Lists the saved sessions `saved` (read from their folders: see `listSavedSessions`) that the list
   * lacks, as their folders describe them ({@link savedSessionView}); a session listed already keeps
   * its record (a name given by the user included). Each id is listed once. When no session is shown,
   * the newest one is, as it would have been resumed. Returns how many were added.
   */
  async restore(saved: readonly SavedSession[]): Promise<number> {
    const list = this.store.get<SessionView[]>(LIST_KEY) ?? [];
    const listed = new Set(list.map((s) => s.id));
    const labels = list.map((s) => s.label);
    const added: SessionView[] = [];
    // Oldest first: of two recordings with one name, the later import gets the "(2)", as at import.
    for (const session of [...saved].sort((a, b) => a.updated.localeCompare(b.updated))) {
      if (listed.has(session.id)) continue;
      listed.add(session.id);
      const view = savedSessionView(session);
      const label = distinctLabel(view.label, labels);
      labels.push(label);
      added.push({ ...view, label });
    }
    if (added.length === 0) return 0;
    await this.store.update(LIST_KEY, [...list, ...added]);
    if (this.currentId === undefined) await this.setCurrent(this.all()[0]?.id);
    return added.length;
  }

  async remove(id: string): Promise<void> {
    await this.store.update(
      LIST_KEY,
      (this.store.get<SessionView[]>(LIST_KEY) ?? []).filter((s) => s.id !== id),
    );
    if (this.currentId === id) await this.setCurrent(undefined);
  }
}

/** The name of a working session before its first task. */
export const UNTITLED_LABEL = 'New session';

/** The source an imported recording is stored with: its format and file name ("codex: log.jsonl"). */
export function recordingSource(format: string, fileName: string): string {
  return `${format}: ${fileName}`;
}

/** The name of an imported recording in the session list: "log.jsonl (codex)". */
export function recordingLabel(format: string, fileName: string): string {
  return `${fileName} (${format})`;
}

/** The name of a working session continued from the session named `from`. */
export function continuedLabel(from: string): string {
  return `Continued: ${from}`;
}

/**
 * A saved session's record as the list would have made it, from what its folder holds: an imported
 * recording is named by its file and format ({@link recordingLabel}) with the model it was recorded
 * with; a continued one after the session it continues ({@link continuedLabel}); a working one after
 * its first task ({@link taskTitle}), or untitled before it. A name the user gave is not in the folder.
 */
export function savedSessionView(saved: SavedSession): SessionView {
  const source = saved.source === undefined ? ({ kind: 'agent' } as const) : parseSource(saved.source);
  const updated = saved.updated;
  if (source.kind === 'imported') {
    const cut = source.origin.indexOf(': ');
    const label = cut > 0 ? recordingLabel(source.origin.slice(0, cut), source.origin.slice(cut + 2)) : source.origin;
    return {
      id: saved.id,
      label,
      kind: 'imported',
      updated,
      ...(saved.recordedModel ? { recordedModel: saved.recordedModel } : {}),
    };
  }
  if (source.kind === 'continued')
    return { id: saved.id, label: continuedLabel(source.from), kind: 'working', updated };
  const title = taskTitle(saved.firstUserText ?? '');
  return title
    ? { id: saved.id, label: title, kind: 'working', updated }
    : { id: saved.id, label: UNTITLED_LABEL, kind: 'working', untitled: true, updated };
}

/** Most characters of a name taken from a task. */
const TITLE_MAX_CHARS = 60;

/**
 * A session's name from its first task: the first line that holds text, white space collapsed, cut
 * at white space before {@link TITLE_MAX_CHARS} characters with "…" (a word longer than that is cut
 * inside); '' for a task without text.
 */
export function taskTitle(task: string): string {
  const line = (task.split(/\r?\n/).find((l) => l.trim()) ?? '').replace(/\s+/g, ' ').trim();
  if (line.length <= TITLE_MAX_CHARS) return line;
  const cut = line.lastIndexOf(' ', TITLE_MAX_CHARS - 1);
  return `${line.slice(0, cut > TITLE_MAX_CHARS / 2 ? cut : TITLE_MAX_CHARS - 1).trimEnd()}…`;
}

/** `label`, or `label (n)` with the smallest n from 2 up that no label in `taken` has. */
export function distinctLabel(label: string, taken: readonly string[]): string {
  const used = new Set(taken);
  if (!used.has(label)) return label;
  let n = 2;
  while (used.has(`${label} (${n})`)) n++;
  return `${label} (${n})`;
}
