/**
 * Where a checkpoint document reads its checkpoint: the shown session's service when the document
 * belongs to it (or names no session), otherwise that session's folder on disk, so an open document
 * keeps its text across session switches and imports.
 */
import { readStoredCheckpoints } from '../../service/session/stored-checkpoints';
import { runStepIds } from '../../service/session/run-steps';
import type { CheckpointLookup, CheckpointRunLookup } from './checkpoint-documents';
import type { CheckpointRecord } from '../../service/records';

/** The shown session, as far as the lookup needs it (the session controller). */
export interface ShownSession {
  readonly current: { readonly sessionId: string; getCheckpoints(): CheckpointRecord[] } | undefined;
}

/** The checkpoints of session `sessionId` (the shown one when undefined), oldest first; empty when none can be read. */
function checkpointsOf(shown: ShownSession, storageDir: string, sessionId: string | undefined): CheckpointRecord[] {
  const current = shown.current;
  if (!sessionId || sessionId === current?.sessionId) return current?.getCheckpoints() ?? [];
  try {
    return readStoredCheckpoints(storageDir, sessionId);
  } catch {
    // An id that names no valid folder (a hand-edited URI): nothing to show.
    return [];
  }
}

/** A {@link CheckpointLookup} over `shown` and the session folders under `storageDir`. */
export function checkpointLookup(shown: ShownSession, storageDir: string): CheckpointLookup {
  return (id, sessionId) => checkpointsOf(shown, storageDir, sessionId).find((c) => c.id === id);
}

/**
 * A {@link CheckpointRunLookup} over `shown` and the session folders under `storageDir`: the run is
 * told apart as the service tells it (`runStepIds`: committed together, by trigger and time).
 */
export function checkpointRunLookup(shown: ShownSession, storageDir: string): CheckpointRunLookup {
  return (id, sessionId) => {
    const checkpoints = checkpointsOf(shown, storageDir, sessionId);
    const ids = new Set(runStepIds(checkpoints, id));
    return checkpoints.filter((c) => ids.has(c.id));
  };
}
