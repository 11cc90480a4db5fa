/**
 * Groups the checkpoint history into compaction runs for the sidebar. One run (one Compact
 * Conversation, or one automatic compaction) can write several checkpoints, for example tool results
 * collapsed, then a summary; the user asked for one compaction, so the history shows one entry with
 * its steps inside. Pure: no `vscode` import; the webview imports it.
 */
import type { CheckpointView } from './protocol';
import { plural } from '../../format/tokens';

/** One entry of the history: a run and its checkpoints (steps), oldest step first. */
export interface CheckpointRunView {
  /** Id of the run's first checkpoint: restoring it restores the context to before the run. */
  id: string;
  trigger: CheckpointView['trigger'];
  /** ISO time of the first step. */
  time: string;
  /** Tokens before the first step and after the last (not restored) one. */
  tokensBefore: number;
  tokensAfter: number;
  /** True when every step was restored. */
  restored: boolean;
  /** True when the latest restore, undoable now, restored a step of this run. */
  undoRestore: boolean;
  steps: CheckpointView[];
}

/**
 * Groups `checkpoints` (newest first, as the sidebar lists them) by their `run` id; a checkpoint
 * without one is a run of its own. Steps of one run are adjacent in the history (a run writes its
 * checkpoints one after the other), so the grouping keeps the list's order: runs newest first, steps
 * inside a run oldest first (the order they were applied).
 */
export function groupCheckpointRuns(checkpoints: readonly CheckpointView[]): CheckpointRunView[] {
  const runs: CheckpointRunView[] = [];
  const byId = new Map<string, CheckpointRunView>();
  for (const checkpoint of checkpoints) {
    const key = checkpoint.run ?? checkpoint.id;
    let run = byId.get(key);
    if (!run) {
      run = {
        id: checkpoint.id,
        trigger: checkpoint.trigger,
        time: checkpoint.time,
        tokensBefore: checkpoint.tokensBefore,
        tokensAfter: checkpoint.tokensAfter,
        restored: true,
        undoRestore: false,
        steps: [],
      };
      byId.set(key, run);
      runs.push(run);
    }
    // Newest first in: each older step goes to the front and becomes the run's start.
    run.steps.unshift(checkpoint);
    run.id = checkpoint.id;
    run.time = checkpoint.time;
    run.tokensBefore = checkpoint.tokensBefore;
    run.restored &&= Boolean(checkpoint.restored);
    run.undoRestore ||= Boolean(checkpoint.undoRestore);
  }
  for (const run of runs) {
    // The context after the run is what its last step in force left.
    const inForce = run.steps.filter((s) => !s.restored);
    run.tokensAfter = (inForce.length ? inForce[inForce.length - 1] : run.steps[run.steps.length - 1]).tokensAfter;
  }
  return runs;
}

/**
 * The tooltip of the sidebar's checkpoint count, which shows the number of runs: "1 checkpoint", or
 * "5 checkpoints in 3 compactions" when runs group several checkpoints.
 */
export function checkpointCountTitle(checkpoints: number, runs: number): string {
  const count = plural(checkpoints, 'checkpoint', 'checkpoints');
  return runs === checkpoints ? count : `${count} in ${plural(runs, 'compaction', 'compactions')}`;
}
