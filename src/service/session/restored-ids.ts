import type { CheckpointRecord } from '../records';
/**
 * Which raw messages a restore brought back and automatic compaction must still leave alone, read
 * from the stored checkpoint history, so the protection holds across a window reload. Pure.
 */

/**
 * Raw entry ids that restores brought back and that are still protected: the `replacedIds` of every
 * restored checkpoint, unless a manual compaction was made after that restore (the user's own
 * compaction ends the protection, as it does while the service runs) or a later checkpoint replaced
 * them again (the user agreed to compact them when they could not fit). `checkpoints` oldest first,
 * as the service lists them; times are ISO 8601 strings, compared as instants.
 */
export function protectedRestoredIds(checkpoints: readonly CheckpointRecord[]): Set<string> {
  const out = new Set<string>();
  for (const cp of checkpoints) {
    if (!cp.restored || cp.restoredAt === undefined) continue;
    const restoredAt = Date.parse(cp.restoredAt);
    const later = checkpoints.filter((c) => !c.restored && Date.parse(c.time) >= restoredAt);
    if (later.some((c) => c.trigger === 'manual' || c.trigger === 'continue')) continue;
    const replacedAgain = new Set(later.flatMap((c) => c.replacedIds));
    for (const id of cp.replacedIds) if (!replacedAgain.has(id)) out.add(id);
  }
  return out;
}
