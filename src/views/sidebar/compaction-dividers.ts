/**
 * Places compaction dividers in the transcript and works out which entries each one replaced.
 * Pure: no `vscode` import.
 *
 * Place rule: a divider stands after the newest entry that existed when the compaction was applied
 * (entries carry their production time), and never before the last entry it replaced (imported
 * entries often carry no time). Checkpoints written by one run (for example tool results collapsed,
 * then a summary, then files re-attached) share one divider, whose figures add up theirs: see
 * {@link sameRun}.
 */
import type { Entry, ItemKind } from '../../compaction/types';
import type { CompactedAs, CompactionView } from '../../webview/shared/protocol';
import type { CheckpointRecord } from '../../service/records';
import type { BudgetSnapshot } from '../../service/meter/budget-types';
import { committedTogether } from '../../service/session/run-steps';
import { describeCoverage, unreadByModel } from '../../compaction/summary/coverage';
import {
  mergeScorecards,
  scorecardDetails,
  scorecardLine,
  supersededScorecard,
} from '../../compaction/retention/scorecard';

/** Recorded compactions of an import are applied within this many milliseconds of each other. */
export const GROUP_WINDOW_MS = 60_000;

/**
 * True when `b`, the checkpoint right after `a` in the history, was written by the same compaction
 * run. A run commits all its checkpoints at once, stamped with one time, so that time is the run's
 * identity ({@link committedTogether}, the rule a restore follows too): two automatic compactions a
 * second apart are two runs, and the steps of one run stay together wherever in the transcript they
 * stand. Recorded compactions of an import share the
 * import's time, so they are one run only where they also stand at one place (`samePlace`) within
 * {@link GROUP_WINDOW_MS}.
 */
export function sameRun(a: CheckpointRecord, b: CheckpointRecord, samePlace = true): boolean {
  if (a.trigger !== b.trigger || Boolean(a.restored) !== Boolean(b.restored)) return false;
  if (a.trigger !== 'import') return committedTogether(a, b);
  return samePlace && Math.abs(Date.parse(a.time) - Date.parse(b.time)) <= GROUP_WINDOW_MS;
}

/** Dividers in transcript order and, per replaced raw entry, the id of the divider standing for it. */
export interface PlacedCompactions {
  compactions: CompactionView[];
  /** Raw entry id → divider id, for checkpoints not restored (the newest wins for nested ones). */
  compactedBy: Map<string, string>;
  /** Raw entry id → what holds it in the context now (same entries as `compactedBy`). */
  compactedAs: Map<string, CompactedAs>;
}

/** The state a replaced entry's line shows, by the kind of item that stands for it. */
const HELD_AS: Record<Exclude<ItemKind, 'raw'>, CompactedAs> = {
  summary: 'summarized',
  collapsed: 'collapsed',
  clipped: 'clipped',
};

/** Index of the entry after which a checkpoint applied at `time` stands; -1: before every entry. */
function placeIndex(
  checkpoint: CheckpointRecord,
  order: readonly string[],
  entries: ReadonlyMap<string, Entry>,
  position: ReadonlyMap<string, number>,
): number {
  let index = -1;
  for (const id of checkpoint.replacedIds) index = Math.max(index, position.get(id) ?? -1);
  const applied = Date.parse(checkpoint.time);
  if (Number.isNaN(applied)) return index;
  for (let i = order.length - 1; i > index; i--) {
    const stamp = entries.get(order[i])?.meta?.timestamp;
    if (stamp !== undefined && Date.parse(stamp) <= applied) return i;
  }
  return index;
}

/**
 * Groups and places `checkpoints` (oldest first) over the entries in `order`. `lastItemOfEntry`
 * maps an entry id to its last transcript line (entries without a line, like system messages, are
 * skipped back to the previous one). `budget` supplies the trigger level shown on automatic ones, named
 * only when `autoCompact` is on and the checkpoint records no other cause.
 */
export function placeCompactions(
  checkpoints: readonly CheckpointRecord[],
  order: readonly string[],
  entries: ReadonlyMap<string, Entry>,
  lastItemOfEntry: ReadonlyMap<string, string>,
  budget: BudgetSnapshot | undefined,
  autoCompact = true,
): PlacedCompactions {
  const position = new Map<string, number>();
  order.forEach((id, i) => position.set(id, i));
  const compactions: CompactionView[] = [];
  const compactedBy = new Map<string, string>();
  const compactedAs = new Map<string, CompactedAs>();
  let previous: { view: CompactionView; index: number; checkpoint: CheckpointRecord } | undefined;
  for (const checkpoint of checkpoints) {
    const index = placeIndex(checkpoint, order, entries, position);
    const inserted = checkpoint.inserted;
    const counts = {
      collapsed: inserted.filter((item) => item.kind === 'collapsed').length,
      summaries: inserted.filter((item) => item.kind === 'summary' && !item.attachedFile).length,
      clipped: inserted.filter((item) => item.kind === 'clipped').length,
    };
    const joins = previous && sameRun(previous.checkpoint, checkpoint, previous.index === index);
    let view: CompactionView;
    if (joins && previous) {
      view = previous.view;
      view.checkpointIds.push(checkpoint.id);
      view.tokensAfter = checkpoint.tokensAfter;
      view.tokensBefore = Math.max(view.tokensBefore, checkpoint.tokensBefore);
      view.collapsed += counts.collapsed;
      view.summaries += counts.summaries;
      view.clipped += counts.clipped;
      view.messagesReplaced += checkpoint.replacedIds.length;
      view.withoutModel += unreadByModel(checkpoint.coverage);
      view.coverage = joinCoverage(view.coverage, checkpoint);
      view.summarizerModel ??= checkpoint.summarizerModel;
      view.focus ??= checkpoint.focus;
      if (checkpoint.editedByHand) view.editedByHand = true;
      if (checkpoint.attachedFiles?.length)
        view.attachedFiles = [...(view.attachedFiles ?? []), ...checkpoint.attachedFiles];
    } else {
      let after: string | undefined;
      for (let i = index; i >= 0 && after === undefined; i--) after = lastItemOfEntry.get(order[i]);
      const byTrigger = checkpoint.trigger === 'auto' && !checkpoint.cause && autoCompact;
      view = {
        id: checkpoint.id,
        checkpointIds: [checkpoint.id],
        afterId: after,
        time: checkpoint.time,
        trigger: checkpoint.trigger,
        // The trigger is named only where it can have fired: automatic compaction on and no other cause.
        thresholdTokens: byTrigger ? budget?.compactAt.tokens : undefined,
        thresholdFraction: byTrigger ? budget?.compactAt.fraction : undefined,
        ...(byTrigger && budget ? { thresholdBase: { inputBudget: budget.inputBudget, window: budget.window } } : {}),
        ...(checkpoint.cause ? { cause: checkpoint.cause } : {}),
        tokensBefore: checkpoint.tokensBefore,
        tokensAfter: checkpoint.tokensAfter,
        ...counts,
        messagesReplaced: checkpoint.replacedIds.length,
        withoutModel: unreadByModel(checkpoint.coverage),
        coverage: joinCoverage(undefined, checkpoint),
        summarizerModel: checkpoint.summarizerModel,
        focus: checkpoint.focus,
        ...(checkpoint.editedByHand ? { editedByHand: true } : {}),
        restored: checkpoint.restored || undefined,
        ...(checkpoint.attachedFiles?.length ? { attachedFiles: [...checkpoint.attachedFiles] } : {}),
      };
      compactions.push(view);
    }
    // A step placed later than the run's first moves nothing: the divider stands where the run began.
    previous = { view, index: joins && previous ? previous.index : index, checkpoint };
    if (checkpoint.restored) continue;
    for (const id of checkpoint.replacedIds) {
      compactedBy.set(id, view.id);
      compactedAs.set(id, 'summarized');
    }
    for (const item of inserted)
      if (item.kind !== 'raw')
        for (const id of item.covers) if (compactedBy.get(id) === view.id) compactedAs.set(id, HELD_AS[item.kind]);
  }
  return { compactions: withScorecards(compactions, checkpoints), compactedBy, compactedAs };
}

/** `compactions`, each with its retention scorecard: its checkpoints' scorecards as one, in a line and in detail. */
function withScorecards(compactions: CompactionView[], checkpoints: readonly CheckpointRecord[]): CompactionView[] {
  const byId = new Map(checkpoints.map((c) => [c.id, c]));
  for (const view of compactions) {
    const steps = view.checkpointIds.map((id) => byId.get(id));
    // A step whose summary a later step replaced is scored again by that step: counted once.
    // (Replaced ids are raw entry ids: a summary is replaced when the messages it covers are.)
    const replacedLater = (k: number) => {
      const covered = steps[k]?.inserted.filter((i) => i.kind === 'summary' && i.covers.length > 0) ?? [];
      return steps.slice(k + 1).some((later) => {
        const ids = new Set(later?.replacedIds);
        return covered.some((i) => i.covers.every((id) => ids.has(id)));
      });
    };
    const card = mergeScorecards(
      steps.map((cp, k) => cp?.retention && (replacedLater(k) ? supersededScorecard(cp.retention) : cp.retention)),
    );
    const line = card && scorecardLine(card);
    if (card && line) view.retention = { line, details: scorecardDetails(card) };
  }
  return compactions;
}

/**
 * The level the context reached before the latest compaction run, in tokens, with the time the run
 * began: the largest `tokensBefore` over the run's checkpoints (a run that collapses, summarizes and
 * re-attaches files writes several, each starting where the previous one left off, so the last one's
 * `before` is not the peak). The run is the newest checkpoint not restored and not imported, with the
 * ones before it that {@link sameRun} joins to it. Undefined when there is none. O(checkpoints of the run).
 */
export function latestRunPeak(checkpoints: readonly CheckpointRecord[]): { tokens: number; time: string } | undefined {
  let i = checkpoints.length - 1;
  while (i >= 0 && (checkpoints[i].restored || checkpoints[i].trigger === 'import')) i--;
  if (i < 0) return undefined;
  const last = checkpoints[i];
  let peak = { tokens: last.tokensBefore, time: last.time };
  for (let j = i - 1; j >= 0 && sameRun(checkpoints[j], checkpoints[j + 1]); j--) {
    const c = checkpoints[j];
    peak = { tokens: Math.max(peak.tokens, c.tokensBefore), time: c.time };
  }
  return peak;
}

/** The group's coverage prose with `checkpoint`'s added, when part of its summary had no model. */
function joinCoverage(sofar: string | undefined, checkpoint: CheckpointRecord): string | undefined {
  if (unreadByModel(checkpoint.coverage) === 0 || !checkpoint.coverage) return sofar;
  const text = describeCoverage(checkpoint.coverage);
  return sofar ? `${sofar}; ${text}` : text;
}
