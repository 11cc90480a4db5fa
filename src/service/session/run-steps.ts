/**
 * The steps of one compaction run, as the service tells them apart. A run commits all its
 * checkpoints at once, stamped with one time, so that time (with the trigger) is the run's identity;
 * the sidebar groups its history by the same rule (`sameRun` in compaction-dividers.ts). Recorded
 * compactions of an import all carry the import's time, so the time alone does not tell their runs
 * apart: each is a run of its own here. Pure: no `vscode` import.
 */
import type { Checkpoint } from '../../compaction/types';

/** True when `a` and `b` were committed by one compaction run (same trigger and time, not imported). */
export function committedTogether(
  a: Pick<Checkpoint, 'trigger' | 'time'>,
  b: Pick<Checkpoint, 'trigger' | 'time'>,
): boolean {
  return a.trigger === b.trigger && a.trigger !== 'import' && a.time === b.time;
}

/**
 * Ids of the checkpoints of the run that wrote checkpoint `id`, oldest first (`id` among them): its
 * neighbours in `checkpoints` (oldest first, as the session keeps them) committed together with it.
 * Just `[id]` for an imported checkpoint; empty when `id` is not in the list.
 */
export function runStepIds(checkpoints: readonly Checkpoint[], id: string): string[] {
  const at = checkpoints.findIndex((c) => c.id === id);
  if (at < 0) return [];
  let first = at;
  while (first > 0 && committedTogether(checkpoints[first - 1], checkpoints[at])) first--;
  let last = at;
  while (last + 1 < checkpoints.length && committedTogether(checkpoints[last + 1], checkpoints[at])) last++;
  return checkpoints.slice(first, last + 1).map((c) => c.id);
}
