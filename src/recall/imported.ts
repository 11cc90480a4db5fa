/**
 * A recorded session as a recall source: its entries, and the compactions its agent made itself
 * (Claude Code's compact boundary, Codex's compacted record, OpenHands' condensation) as checkpoints
 * `import-1`, `import-2`… in file order: the ids the command-line tool's `compact` reports. A
 * summary ContextKeeper wrote into a file it output (`compact --out`) is one of them too, marked as
 * ours (`writer`).
 */
import type { ImportedTranscript } from '../transcripts/types';
import type { RecallSource } from './types';

/** The recall source of an imported recording. */
export function recallSourceOfImport(transcript: Pick<ImportedTranscript, 'entries' | 'compactions'>): RecallSource {
  return {
    entries: transcript.entries,
    checkpoints: transcript.compactions.map((c, n) => ({
      id: `import-${n + 1}`,
      replacedIds: c.replacedIds,
      ...(c.writer ? { writer: c.writer } : {}),
    })),
  };
}
