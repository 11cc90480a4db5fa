/**
 * What the sidebar's hidden status line (role=status) says after a host message. Pure: the webview
 * writes the result to its live region. Rule (WAI-ARIA live regions): a status line must describe the
 * current state, so a change of session (switch, delete of the shown one, reload) clears it.
 */
import type { BudgetView, CompactionView } from './protocol';
import { formatTokens } from '../../format/tokens';
import type { Applied } from './view-store';

/** `clear`: empty the status line first; `texts`: sentences to announce, in order (the last one stays shown). */
export interface Announcement {
  clear: boolean;
  texts: string[];
}

/** What the status line says while a proposed summary waits for review: nothing has been applied yet. */
export const PREVIEW_WAITS = 'A summary is proposed and waits for your review: Apply it or Discard it.';

/**
 * The announcement for one applied host message. `cancelRequested` is true when the user pressed
 * Cancel since the last run started, so the run's end is announced as cancelled, not finished;
 * `describe` gives the sentence for a new compaction; `describeRestore` the sentence for a checkpoint
 * restored (`undone`: a restore undone, the summary back in place).
 * A stretch of work that began as a compaction (the command, not an agent's run) ends as a
 * compaction: its end never says the agent finished.
 */
export function announcementFor(
  applied: Applied,
  cancelRequested: boolean,
  describe: (c: CompactionView) => string,
  describeRestore: (c: CompactionView, undone: boolean) => string = (_c, undone) =>
    undone
      ? 'Restore undone: the summary is back in the context.'
      : 'Checkpoint restored: the replaced messages are back in the context.',
): Announcement {
  const texts: string[] = [];
  const change = applied.stateChange;
  const compactionAlone = applied.startedAs === 'compacting';
  // Only the changes a listener acts on: work starts, work ends, an error, a compaction starts.
  if (change && !applied.sessionChanged) {
    const idle = (s: string) => s === 'idle' || s === 'error';
    if (compactionAlone && change.to === 'error')
      texts.push(cancelRequested ? 'The compaction was cancelled.' : 'The compaction stopped with an error.');
    else if (compactionAlone && change.to === 'idle') {
      // A new compaction is announced by `describe` below; otherwise say how it ended.
      if (cancelRequested) texts.push('The compaction was cancelled.');
      // A preview is no end: the summary waits for the user's Apply or Discard.
      else if (applied.previewPending) texts.push(PREVIEW_WAITS);
      else if (applied.newCompactions.length === 0) texts.push('The compaction ended.');
    } else if (change.to === 'error')
      texts.push(cancelRequested ? 'The agent was cancelled.' : 'The agent stopped with an error.');
    else if (change.to === 'idle') texts.push(cancelRequested ? 'The agent was cancelled.' : 'The agent finished.');
    else if (change.to === 'compacting') texts.push('Compacting the context.');
    else if (idle(change.from)) texts.push('The agent is working.');
  }
  if (applied.previewAppeared && !applied.sessionChanged && !texts.includes(PREVIEW_WAITS)) texts.push(PREVIEW_WAITS);
  for (const c of applied.newCompactions) texts.push(describe(c));
  if (!applied.sessionChanged)
    for (const { compaction, undone } of applied.restoreChanges ?? []) texts.push(describeRestore(compaction, undone));
  return { clear: applied.sessionChanged === true, texts };
}

/**
 * The context's size a status sentence states ("33k tokens now"), as the sentence shows it, and the
 * prompt budget (tokens) of the window it was measured in.
 */
export interface StatedFigure {
  used: string;
  inputBudget: number;
}

/** The figure a sentence written now states about `budget`; undefined while the tokenizer loads (no figure is stated). */
export function figureOf(
  budget: Pick<BudgetView, 'used' | 'inputBudget' | 'counting'> | undefined,
): StatedFigure | undefined {
  if (!budget || budget.counting || !Number.isFinite(budget.used)) return undefined;
  return { used: formatTokens(budget.used), inputBudget: budget.inputBudget };
}

/**
 * True when a status sentence that stated `stated` no longer matches the gauge's `budget`: the
 * figure as shown changed (the context grew, shrank or is being counted again) or the window did.
 * Such a sentence goes: a status line describes the current state, and "30k tokens now" beside a
 * gauge at 33k is false.
 */
export function figureOutdated(
  stated: StatedFigure,
  budget: Pick<BudgetView, 'used' | 'inputBudget' | 'counting'> | undefined,
): boolean {
  const now = figureOf(budget);
  return !now || now.used !== stated.used || now.inputBudget !== stated.inputBudget;
}

/** {@link announcementFor} with the figure the status line is left stating (undefined: none). */
export interface FigureAnnouncement extends Announcement {
  stated: StatedFigure | undefined;
}

/**
 * {@link announcementFor} for a status line whose compaction and restore sentences end with the
 * context's tokens now (`describe` and `describeRestore` get the gauge's `used`, undefined while the
 * tokenizer loads): `stated` is the figure the line states before this message, `budget` the gauge
 * after it. The line is cleared when its figure is outdated ({@link figureOutdated}), and the result's
 * `stated` is what it states after the texts are written.
 */
export function announcementWithFigure(
  applied: Applied,
  cancelRequested: boolean,
  budget: Pick<BudgetView, 'used' | 'inputBudget' | 'counting'> | undefined,
  stated: StatedFigure | undefined,
  describe: (c: CompactionView, used: number | undefined) => string,
  describeRestore: (c: CompactionView, undone: boolean, used: number | undefined) => string,
): FigureAnnouncement {
  const figure = figureOf(budget);
  const used = figure ? budget?.used : undefined;
  // Compactions and restores come last among the texts, so the one left shown states the figure.
  let stating = false;
  const { clear, texts } = announcementFor(
    applied,
    cancelRequested,
    (c) => {
      stating = used !== undefined;
      return describe(c, used);
    },
    (c, undone) => {
      stating = used !== undefined;
      return describeRestore(c, undone, used);
    },
  );
  const outdated = stated !== undefined && figureOutdated(stated, budget);
  const kept = clear || outdated ? undefined : stated;
  return { clear: clear || outdated, texts, stated: texts.length > 0 ? (stating ? figure : undefined) : kept };
}
