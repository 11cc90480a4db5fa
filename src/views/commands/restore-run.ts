/**
 * Restore, as the checkpoint history shows it: one entry per compaction run (a run may write several
 * checkpoints, for example tool results collapsed, then a summary). The confirmation names the run
 * the user sees (its trigger, time and tokens before → after), and the restore puts the context back
 * to before the run: every step of it still in force is restored at once, as one restore that one
 * Undo Restore takes back.
 */
import * as vscode from 'vscode';
import type { RestorePlan } from '../../service/session/restore-plan';
import type { CheckpointView } from '../../webview/shared/protocol';
import { groupCheckpointRuns, type CheckpointRunView } from '../../webview/shared/checkpoint-runs';
import type { CheckpointRestored } from '../../service/records';
import type { BudgetSnapshot } from '../../service/meter/budget-types';
import { formatTokens, formatTokensFull, plural } from '../../format/tokens';
import { formatClock, formatDateTime } from '../../format/display';

/** What the restore reads and does: the history's checkpoints, the gauge and the service's restore. */
export interface RestoreTarget {
  /** The history's checkpoints, newest first, with their runs (`SidebarModel.checkpointViews`). */
  checkpoints(): CheckpointView[];
  budget(): BudgetSnapshot;
  /** What restoring `ids` would undo and the tokens after it (the service's `planRestore`). */
  plan(ids: readonly string[]): RestorePlan;
  restore(ids: readonly string[]): Promise<CheckpointRestored>;
  /** True for a read-only imported recording: it sends no request, so nothing compacts on its own. */
  readOnly?(): boolean;
}

const TRIGGER_NAMES: Record<CheckpointView['trigger'], string> = {
  auto: 'automatic',
  manual: 'manual',
  import: 'imported',
  continue: 'continue-in-new-task',
};

/** "the manual compaction of 14:02:11 (48.2k → 12.1k tokens)": the run as the history shows it. */
export function describeRun(run: CheckpointRunView): string {
  const trigger = TRIGGER_NAMES[run.trigger];
  return `the ${trigger} compaction of ${formatClock(run.time)} (${formatTokens(run.tokensBefore)} → ${formatTokens(run.tokensAfter)} tokens)`;
}

/** The run holding checkpoint `id` (any of its steps), or undefined. */
export function runOf(checkpoints: readonly CheckpointView[], id: string): CheckpointRunView | undefined {
  return groupCheckpointRuns(checkpoints).find((run) => run.steps.some((step) => step.id === id));
}

/** How many history entries (compaction runs) hold the checkpoints `ids`. */
export function runsOf(checkpoints: readonly CheckpointView[], ids: readonly string[]): number {
  const runs = groupCheckpointRuns(checkpoints);
  return new Set(ids.map((id) => runs.find((run) => run.steps.some((step) => step.id === id))?.id ?? id)).size;
}

/** The run to restore: the one holding `id`, or the user's pick among the runs not restored. */
async function pickRun(
  checkpoints: readonly CheckpointView[],
  id: string | undefined,
): Promise<CheckpointRunView | undefined> {
  if (id) return runOf(checkpoints, id);
  const runs = groupCheckpointRuns(checkpoints).filter((run) => !run.restored);
  if (runs.length === 0) {
    void vscode.window.showInformationMessage('ContextKeeper: no compaction to restore in this session.');
    return undefined;
  }
  const items = runs.map((run) => ({
    label: `${TRIGGER_NAMES[run.trigger]} compaction · ${formatDateTime(run.time)}`,
    description: `${formatTokens(run.tokensBefore)} → ${formatTokens(run.tokensAfter)} tokens${run.steps.length > 1 ? `, ${run.steps.length} steps` : ''}`,
    run,
  }));
  return (await vscode.window.showQuickPick(items, { title: 'Restore the context to before a compaction' }))?.run;
}

/**
 * Asks (modal) and restores the run holding checkpoint `id` (the history entry's id, or any step's),
 * or the run the user picks when `id` is undefined. Resolves to the restore made, or undefined when
 * nothing was restored (dismissed, no such run, restored already).
 */
export async function restoreRun(
  target: RestoreTarget,
  id: string | undefined,
): Promise<{ run: CheckpointRunView; restored: CheckpointRestored } | undefined> {
  const checkpoints = target.checkpoints();
  const run = await pickRun(checkpoints, id);
  if (!run || run.restored) return undefined;
  // Oldest step first: the run's own id names the restore, as the history entry does.
  const steps = run.steps.filter((step) => !step.restored).map((step) => step.id);
  const budget = target.budget();
  const before = budget.used;
  // Later compactions built on this one are undone with it: the service plans exactly what goes and comes back.
  const plan = target.plan(steps);
  const estimate = plan.tokens;
  const share = Math.round((estimate / budget.inputBudget) * 100);
  // Counted as the history shows them: a later run of several steps is one compaction.
  const later = plan.undone.filter((undone) => !steps.includes(undone));
  const laterRuns = runsOf(checkpoints, later);
  const overWindow = estimate > budget.inputBudget;
  const readOnly = target.readOnly?.() ?? false;
  const over = overWindow
    ? `, more than the window holds${readOnly ? '' : ': the next request will ask you before compacting them again'}`
    : estimate > budget.compactAt.tokens
      ? ', past the automatic compaction level'
      : '';
  const after = afterRestore(readOnly, overWindow);
  const answer = await vscode.window.showWarningMessage(
    `Restore the context to before ${describeRun(run)}?`,
    {
      modal: true,
      detail: `What it replaced comes back${run.steps.length > 1 ? ` (all ${run.steps.length} of its steps)` : ''}${laterRuns > 0 ? `, with ${plural(laterRuns, 'later compaction', 'later compactions')}${later.length > laterRuns ? ` (${plural(later.length, 'step', 'steps')})` : ''} built on it` : ''}: the context grows from ${formatTokensFull(before)} to about ${formatTokensFull(estimate)} tokens (${share}% of the ${formatTokensFull(budget.inputBudget)}-token budget)${over}.${after}`,
    },
    'Restore',
  );
  if (answer !== 'Restore') return undefined;
  return { run, restored: await target.restore(steps) };
}

/**
 * What becomes of the restored messages, after the figures (with its leading space, or empty). A
 * recording makes no request, so only Compact Conversation compacts them again; in a working session
 * automatic compaction leaves them alone while they fit (past the window, the figures already say
 * the next request asks).
 */
function afterRestore(readOnly: boolean, overWindow: boolean): string {
  if (readOnly)
    return ' A recording sends no request, so nothing compacts them again until you run Compact Conversation.';
  return overWindow
    ? ''
    : ' Restored messages are kept out of automatic compaction while the context fits the window, until you run Compact Conversation.';
}
