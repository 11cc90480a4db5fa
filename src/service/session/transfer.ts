/**
 * Import and export of a whole conversation: checking imported entries before a service takes them
 * over, and the export document.
 */
import type { ContextItem, Entry } from '../../compaction/types';
import { repairToolPairing } from '../../compaction/plan/repair';
import { toMessages } from '../../compaction/context';
import type { LogSink } from '../api';
import type { ContextState, ConversationState } from './conversation-state';
import type { ExportedTranscript, ImportedTranscript } from '../records';
import { AGENT_SESSION_SOURCE } from './session-files';

/**
 * The entries of an imported transcript, with tool pairing repaired (warnings go to `log`) and without
 * the mark of a session's own work (`EntryMeta.local`): what another session did, here or in another
 * project, is never this session's. Throws when two entries share an id.
 */
export function importedEntries(imported: ImportedTranscript, log: LogSink): Entry[] {
  const repaired = repairToolPairing(imported.entries, { closeTrailing: true });
  for (const warning of repaired.warnings) log('warn', `import: ${warning}`);
  const ids = new Set<string>();
  for (const e of repaired.entries) {
    if (ids.has(e.id)) throw new Error(`import: duplicate entry id ${e.id}`);
    ids.add(e.id);
  }
  return repaired.entries.map(withoutLocalMark);
}

function withoutLocalMark(entry: Entry): Entry {
  if (entry.meta?.local === undefined) return entry;
  const { local: _local, ...meta } = entry.meta;
  return { ...entry, meta };
}

/**
 * Whether an entry id names the session's own work, in the workspace it belongs to: every entry of
 * a session started here (`source` {@link AGENT_SESSION_SOURCE}; also those saved before entries were
 * marked; `has` tells the session's entries, with no set of their ids made), else only the entries
 * marked `local` (appended after an import or a continued recording; one pass over `entries`).
 */
export function ownEntryTest(
  entries: readonly Entry[],
  has: (id: string) => boolean,
  source: string,
): (id: string | undefined) => boolean {
  if (source === AGENT_SESSION_SOURCE) return (id) => id !== undefined && has(id);
  const local = new Set<string>();
  for (const e of entries) if (e.meta?.local === true) local.add(e.id);
  return (id) => id !== undefined && local.has(id);
}

/** The export document of a session as it stands (copies; later changes do not show in it). */
export function exportOf(
  session: ConversationState,
  sessionId: string,
  model: string,
  exportedAt: string,
): ExportedTranscript {
  return {
    format: 'context-keeper/transcript',
    version: 1,
    sessionId,
    model,
    exportedAt,
    entries: [...session.entries],
    context: [...session.items],
    checkpoints: [...session.checkpoints],
    pinned: [...session.pinned],
    messages: toMessages(session.items),
  };
}

/** What a fork or an import is built from: its raw entries and, for a fork, the state it takes over. */
export interface ForkedSession {
  entries: Entry[];
  /** Undefined for a plain import, whose context is rebuilt from its entries. */
  state: ContextState | undefined;
}

/**
 * The entries and state a fork takes over from `imported.state` (copied lists), or the entries alone
 * for a plain import. A fork works as a fresh agent session would: when its context does not start
 * with a system (or developer) message, as an imported recording without one, `systemPrompt` (the
 * agent's own, see src/agent/prompt.ts) is put at the front of the context and of the raw transcript
 * as a new entry, so the meter counts it and the agent's next request sends it; `instructions` (the
 * workspace's project instructions, when there are any) follows it the same way.
 */
export function forkedSession(
  imported: ImportedTranscript,
  entries: Entry[],
  systemPrompt: string,
  instructions?: Entry,
): ForkedSession {
  const state = imported.state;
  if (!state) return { entries, state: undefined };
  const copied: ContextState = {
    context: [...state.context],
    checkpoints: [...state.checkpoints],
    pinned: [...state.pinned],
  };
  const lead = copied.context[0]?.message.role;
  if (lead === 'system' || lead === 'developer') return { entries, state: copied };
  const entry: Entry = { id: unusedId('system-prompt', entries), message: { role: 'system', content: systemPrompt } };
  // The project instructions follow the system prompt, unless the recording already holds an entry of that id.
  const added = [entry, ...(instructions && !entries.some((e) => e.id === instructions.id) ? [instructions] : [])];
  return {
    entries: [...added, ...entries],
    state: {
      ...copied,
      context: [
        ...added.map((e): ContextItem => ({ id: e.id, kind: 'raw', message: e.message, covers: [e.id] })),
        ...copied.context,
      ],
    },
  };
}

const CONTINUED_FROM = 'Continued from ';
const IMPORTED = 'Imported: ';

/** The source line stored with an imported session: "Continued from …" for a fork, "Imported: …" otherwise. */
export function importSource(imported: ImportedTranscript): string {
  return imported.state ? `${CONTINUED_FROM}${imported.source}` : `${IMPORTED}${imported.source}`;
}

/**
 * What a stored source line ({@link importSource}, {@link AGENT_SESSION_SOURCE}) says: a session
 * started here (`agent`), an imported recording with the import's own source (`imported`), or a
 * fork continued from the session named `from` (`continued`). Any other line reads as `agent`.
 */
export function parseSource(
  source: string,
): { kind: 'agent' } | { kind: 'imported'; origin: string } | { kind: 'continued'; from: string } {
  if (source.startsWith(IMPORTED)) return { kind: 'imported', origin: source.slice(IMPORTED.length) };
  if (source.startsWith(CONTINUED_FROM)) return { kind: 'continued', from: source.slice(CONTINUED_FROM.length) };
  return { kind: 'agent' };
}

/** `base`, or `base-2`, `base-3`, … : the first that no entry of `entries` uses as its id. */
function unusedId(base: string, entries: readonly Entry[]): string {
  const used = new Set(entries.map((e) => e.id));
  let id = base;
  for (let n = 2; used.has(id); n++) id = `${base}-${n}`;
  return id;
}
