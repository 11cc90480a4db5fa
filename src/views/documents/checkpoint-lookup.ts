/**
 * Where a checkpoint document reads its checkpoint: the shown session's service when the document
 * belongs to it (or names no session), otherwise that session's folder on disk, so an open document
 * keeps its text across session switches and imports.
 */
import { readStoredCheckpoints } from '../../service/session/stored-checkpoints';
import type { CheckpointLookup } from './checkpoint-documents';
import type { CheckpointRecord } from '../../service/records';

/** The shown session, as far as the lookup needs it (the session controller). */
export interface ShownSession {
  readonly current: { readonly sessionId: string; getCheckpoints(): CheckpointRecord[] } | undefined;
}

/** A {@link CheckpointLookup} over `shown` and the session folders under `storageDir`. */
export function checkpointLookup(shown: ShownSession, storageDir: string): CheckpointLookup {
  return (id, sessionId) => {
    const current = shown.current;
    if (!sessionId || sessionId === current?.sessionId) return current?.getCheckpoints().find((c) => c.id === id);
    try {
      return readStoredCheckpoints(storageDir, sessionId).find((c) => c.id === id);
    } catch {
      // An id that names no valid folder (a hand-edited URI): nothing to show.
      return undefined;
    }
  };
}
