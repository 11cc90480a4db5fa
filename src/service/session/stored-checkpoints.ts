/**
 * Reads the checkpoints of a session that is not open, straight from its folder (see store.ts for the
 * layout): no lock is taken and nothing is written, so a session shown in another window or closed
 * here can still be inspected (a checkpoint document of an earlier session stays readable).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SessionStore } from './store';
import { parseTranscript, resolveState, type StoredState } from './store-format';
import type { CheckpointRecord } from '../records';

/**
 * The checkpoints stored for session `sessionId` under `storageDir`, with their replaced and inserted
 * items resolved against its transcript ([] when the folder or its state is missing or unreadable:
 * a damaged file is left for the session's own open to report and repair).
 * @throws Error for an invalid session id (see `SessionStore.folderFor`).
 */
export function readStoredCheckpoints(storageDir: string, sessionId: string): CheckpointRecord[] {
  const folder = SessionStore.folderFor(storageDir, sessionId);
  try {
    const transcript = path.join(folder, 'transcript.jsonl');
    const { entries } = parseTranscript(
      fs.existsSync(transcript) ? fs.readFileSync(transcript, 'utf8') : '',
      transcript,
    );
    const stored = JSON.parse(fs.readFileSync(path.join(folder, 'state.json'), 'utf8')) as StoredState;
    return resolveState(stored, entries, []).checkpoints;
  } catch {
    return [];
  }
}
