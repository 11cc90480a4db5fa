/**
 * What the session folders under a storage directory hold, read without opening them (no lock is
 * taken, nothing is written): for rebuilding a list of sessions kept elsewhere (the editor's workspace
 * state, which a killed editor may never have written) from the folders, which are written as the
 * session goes (store.ts).
 */
import { createReadStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { SESSION_FILE_NAMES, SessionStore } from './store';

/** One saved session as its folder describes it. */
export interface SavedSession {
  /** The folder's name: the session id. */
  id: string;
  /**
   * Where the conversation came from, as its state says ("Agent session", "Imported: codex: log.jsonl",
   * "Continued from …"); undefined when no state was saved yet.
   */
  source: string | undefined;
  /** ISO time of the last change: the later of the state's save and the transcript's last append. */
  updated: string;
  /** The text of the first user message (string content, or its text parts joined), if any. */
  firstUserText: string | undefined;
  /** The model the first entry naming one was recorded with (imported recordings), if any. */
  recordedModel: string | undefined;
}

/** Most transcript lines read per folder looking for its first user message and recorded model. */
const MAX_LINES_READ = 2_000;

/**
 * The saved sessions under `storageDir` whose ids are not in `known`, in no particular order. A folder
 * counts as a saved session when its transcript holds an entry other than a system message (a session
 * never used, holding only its opening prompt, is left out). A folder that cannot be read, or a damaged
 * line, is skipped, never thrown. An absent `storageDir` holds none.
 */
export async function listSavedSessions(storageDir: string, known: ReadonlySet<string>): Promise<SavedSession[]> {
  let names: string[];
  try {
    names = (await fs.readdir(storageDir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch {
    return [];
  }
  const found: SavedSession[] = [];
  for (const id of names) {
    if (known.has(id) || !isSessionId(storageDir, id)) continue;
    const saved = await readSavedSession(path.join(storageDir, id), id).catch(() => undefined);
    if (saved) found.push(saved);
  }
  return found;
}

/** True when `id` can name a session folder (see `SessionStore.folderFor`). */
function isSessionId(storageDir: string, id: string): boolean {
  try {
    SessionStore.folderFor(storageDir, id);
    return true;
  } catch {
    return false;
  }
}

/** The state file's fields that describe the session (the newer state first, then the previous one). */
async function readState(folder: string): Promise<{ source?: string; updatedAt?: string } | undefined> {
  for (const name of [SESSION_FILE_NAMES.state, SESSION_FILE_NAMES.previousState]) {
    try {
      const state = JSON.parse(await fs.readFile(path.join(folder, name), 'utf8')) as Record<string, unknown>;
      return {
        ...(typeof state.source === 'string' ? { source: state.source } : {}),
        ...(typeof state.updatedAt === 'string' ? { updatedAt: state.updatedAt } : {}),
      };
    } catch {
      // Missing or damaged: try the previous state, else describe the folder by its transcript alone.
    }
  }
  return undefined;
}

/** A message's text: string content, or its text parts joined by new lines. */
function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const parts = content
    .map((p: unknown) =>
      typeof p === 'object' && p !== null && (p as { type?: unknown }).type === 'text'
        ? (p as { text?: unknown }).text
        : undefined,
    )
    .filter((t): t is string => typeof t === 'string');
  return parts.length ? parts.join('\n') : undefined;
}

/** The folder of session `id` as a {@link SavedSession}, or undefined when it holds no conversation. */
async function readSavedSession(folder: string, id: string): Promise<SavedSession | undefined> {
  const transcript = path.join(folder, SESSION_FILE_NAMES.transcript);
  const stat = await fs.stat(transcript).catch(() => undefined);
  if (!stat) return undefined;
  let used = false;
  let firstUserText: string | undefined;
  let recordedModel: string | undefined;
  const stream = createReadStream(transcript, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let read = 0;
  try {
    for await (const line of lines) {
      if (++read > MAX_LINES_READ) break;
      let entry: { message?: { role?: unknown; content?: unknown }; meta?: { model?: unknown } };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        continue; // a torn or damaged line: the store reports it when the session is opened
      }
      const role = entry.message?.role;
      if (role !== undefined && role !== 'system') used = true;
      if (role === 'user' && firstUserText === undefined) firstUserText = textOf(entry.message?.content);
      if (recordedModel === undefined && typeof entry.meta?.model === 'string') recordedModel = entry.meta.model;
      if (used && firstUserText !== undefined && recordedModel !== undefined) break;
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  if (!used) return undefined;
  const state = await readState(folder);
  const appended = stat.mtime.toISOString();
  const saved = state?.updatedAt;
  return {
    id,
    source: state?.source,
    updated: saved && saved > appended ? saved : appended,
    firstUserText,
    recordedModel,
  };
}
