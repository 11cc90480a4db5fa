/**
 * Import and export of a whole conversation: checking imported entries before a service takes them
 * over, and the export document.
 */
import type { Entry } from '../compaction/types';
import { repairToolPairing } from '../compaction/repair';
import { toMessages } from '../compaction/context';
import type { ExportedTranscript, ImportedTranscript, LogSink } from './api';
import type { SessionState } from './session-state';
import type { SessionState as StoredSession } from './storeFormat';

/**
 * The entries of an imported transcript, with tool pairing repaired (warnings go to `log`).
 * Throws when two entries share an id.
 */
export function importedEntries(imported: ImportedTranscript, log: LogSink): Entry[] {
  const repaired = repairToolPairing(imported.entries, { closeTrailing: true });
  for (const warning of repaired.warnings) log('warn', `import: ${warning}`);
  const ids = new Set<string>();
  for (const e of repaired.entries) {
    if (ids.has(e.id)) throw new Error(`import: duplicate entry id ${e.id}`);
    ids.add(e.id);
  }
  return repaired.entries;
}

/** The export document of a session as it stands (copies; later changes do not show in it). */
export function exportOf(session: SessionState, sessionId: string, model: string, exportedAt: string): ExportedTranscript {
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

/**
 * The state a fork takes over from `imported.state` (copied lists, stamped with the new session's
 * `meta`), or undefined for a plain import, whose context is rebuilt from its entries.
 */
export function forkedState(imported: ImportedTranscript, meta: Pick<StoredSession, 'sessionId' | 'model' | 'source' | 'createdAt'>): StoredSession | undefined {
  const state = imported.state;
  return state && { ...meta, context: [...state.context], checkpoints: [...state.checkpoints], pinned: [...state.pinned] };
}
