/**
 * The service's records as the sidebar shows them: gauge, checkpoint rows, approvals, the summary
 * preview and a compaction divider's detail. Pure functions of the records.
 */
import { summaryHeader } from '../../compaction/summary/summary-header';
import { formatInteger } from '../../format/display';
import type { ApprovalRequest } from '../../agent/types';
import type { Entry } from '../../compaction/types';
import type {
  ApprovalView,
  BudgetView,
  CheckpointView,
  CompactionDetailView,
  CompactionView,
  PreviewView,
  ReplacedItemView,
} from '../../webview/shared/protocol';
import { firstLine, pathArgument } from './transcript-items';
import type { CheckpointRecord, CompactionPreview } from '../../service/records';
import type { BudgetSnapshot } from '../../service/meter/budget-types';
import { describeCoverage, unreadByModel } from '../../compaction/summary/coverage';
import { formatTokensFull } from '../../format/tokens';
import { textWithPlaceholders } from '../../compaction/content-text';

/** The service's budget as the gauge shows it (without the peak, which the model adds). */
export function toBudgetView(budget: BudgetSnapshot, autoCompact: boolean): BudgetView {
  return {
    used: budget.used,
    window: budget.window,
    reserved: budget.reserved,
    inputBudget: budget.inputBudget,
    compactAt: budget.compactAt.tokens,
    compactAtFraction: budget.compactAt.fraction,
    compactTo: budget.compactTo.tokens,
    compactToFraction: budget.compactTo.fraction,
    exact: budget.exact,
    ...(budget.counting ? { counting: true } : {}),
    ...(budget.usedSource ? { usedSource: budget.usedSource } : {}),
    ...(budget.cachedAdded ? { cachedAdded: true } : {}),
    breakdown: { ...budget.breakdown },
    model: budget.model,
    warnings: [...budget.warnings],
    autoCompact,
    ...(budget.windowSource ? { windowSource: budget.windowSource } : {}),
    ...(budget.recordedPromptTokens !== undefined ? { recordedPromptTokens: budget.recordedPromptTokens } : {}),
    ...(budget.autoPaused ? { autoPaused: budget.autoPaused } : {}),
  };
}

/** A checkpoint record as one history row. */
export function toCheckpointView(checkpoint: CheckpointRecord, undoableRestore?: string): CheckpointView {
  return {
    id: checkpoint.id,
    time: checkpoint.time,
    trigger: checkpoint.trigger,
    strategy: checkpoint.strategy,
    tokensBefore: checkpoint.tokensBefore,
    tokensAfter: checkpoint.tokensAfter,
    messagesReplaced: checkpoint.replacedIds.length,
    summarizerModel: checkpoint.summarizerModel,
    withoutModel: unreadByModel(checkpoint.coverage),
    ...(checkpoint.coverage ? { coverage: describeCoverage(checkpoint.coverage) } : {}),
    focus: checkpoint.focus,
    ...(checkpoint.editedByHand ? { editedByHand: true } : {}),
    restored: checkpoint.restored || undefined,
    undoRestore: (checkpoint.restored && checkpoint.id === undoableRestore) || undefined,
  };
}

/** Pending approvals as the sidebar's cards. */
export function toApprovalViews(requests: readonly ApprovalRequest[]): ApprovalView[] {
  return requests.map((r) => ({ requestId: r.requestId, kind: r.kind, title: r.title, detail: r.detail }));
}

/** The pending summary preview as the sidebar's card, if any. */
export function toPreviewView(preview: CompactionPreview | undefined): PreviewView | undefined {
  return (
    preview && {
      summaries: preview.summaries.map((s) => ({
        header: summaryHeader(s.messages),
        summary: s.summary,
        label: `${s.coverage ?? `${formatTokensFull(s.messages)} messages`}${s.summarizerModel ? `, by ${s.summarizerModel}` : ''}`,
      })),
      steps: preview.steps,
      tokensBefore: preview.tokensBefore,
      tokensAfter: preview.tokensAfter,
      messagesReplaced: preview.replacedIds.length,
    }
  );
}

/** `records` ordered by the position of the first entry each replaced (stable: ties keep their order). */
function inConversationOrder(
  records: readonly CheckpointRecord[],
  entries: ReadonlyMap<string, Entry>,
): CheckpointRecord[] {
  if (records.length < 2) return [...records];
  const position = new Map<string, number>();
  let k = 0;
  for (const id of entries.keys()) position.set(id, k++);
  const first = (c: CheckpointRecord) => {
    let min = Infinity;
    for (const id of c.replacedIds) min = Math.min(min, position.get(id) ?? Infinity);
    return min;
  };
  return records
    .map((c, i) => ({ c, i, at: first(c) }))
    .sort((a, b) => a.at - b.at || a.i - b.i)
    .map((x) => x.c);
}

/** Characters of summary text a divider shows; the checkpoint document holds the rest. */
export const DIVIDER_SUMMARY_CHARS = 40_000;

/**
 * `text` as a divider shows it: whole up to {@link DIVIDER_SUMMARY_CHARS} characters; longer, cut at
 * the last line break before that (a word boundary when a line is longer), followed by a line that
 * says how much is left out and which button (`opener`, the label of the divider's button that opens
 * this checkpoint) shows it whole, so a cut summary never reads as whole.
 */
export function shownSummary(text: string, opener = 'Open'): string {
  if (text.length <= DIVIDER_SUMMARY_CHARS) return text;
  const head = text.slice(0, DIVIDER_SUMMARY_CHARS);
  const line = head.lastIndexOf('\n');
  const space = head.lastIndexOf(' ');
  const at =
    line > DIVIDER_SUMMARY_CHARS / 2 ? line : space > DIVIDER_SUMMARY_CHARS / 2 ? space : DIVIDER_SUMMARY_CHARS;
  const left = text.slice(at).trimStart().length;
  return `${text.slice(0, at).trimEnd()}\n\n[… ${formatInteger(left)} more characters of this summary are not shown here: ${opener} shows the whole checkpoint.]`;
}

/**
 * The summary text (see {@link shownSummary}), the first `max` replaced messages and the Open buttons
 * of a compaction divider: each checkpoint's summary is cut on its own, its note naming the button that
 * opens that checkpoint; `toolNames` maps tool-result entry ids to tool names (see `transcript-items.ts`). A run's
 * summaries and replaced messages are listed oldest first, as they stand in the conversation (by the
 * first entry each checkpoint replaced; history order where that is the same), whatever order the run
 * wrote them in.
 */
export function compactionDetailOf(
  group: CompactionView,
  checkpoints: readonly CheckpointRecord[],
  entries: ReadonlyMap<string, Entry>,
  toolNames: ReadonlyMap<string, { name: string }>,
  max: number,
): CompactionDetailView {
  const records = inConversationOrder(
    checkpoints.filter((c) => group.checkpointIds.includes(c.id)),
    entries,
  );
  const opens = openButtons(records);
  const summary = records.map((c, i) => shownSummary(c.summary, opens[i].label)).join('\n\n---\n\n');
  const ids = [...new Set(records.flatMap((c) => c.replacedIds))];
  const replaced: ReplacedItemView[] = [];
  for (const entryId of ids.slice(0, max)) {
    const entry = entries.get(entryId);
    if (!entry) continue;
    const message = entry.message;
    if (message.role === 'assistant' && message.tool_calls?.length) {
      for (const call of message.tool_calls) {
        if (call.type === 'function')
          replaced.push({
            role: 'tool call',
            tool: call.function.name,
            path: pathArgument(call.function.arguments),
            preview: firstLine(call.function.arguments, 100),
          });
      }
      continue;
    }
    // By the result's own entry: call ids repeat across steps, so the id alone may name another step's call.
    const tool = message.role === 'tool' ? toolNames.get(entryId)?.name : undefined;
    replaced.push({ role: message.role, tool, preview: firstLine(textWithPlaceholders(message.content), 100) });
  }
  return { summary, replaced, more: Math.max(0, ids.length - max), opens };
}

/**
 * The Open buttons of a run's checkpoints, in the order given: "Open" for a run of one; else "Open
 * <strategy>", numbered when the run has that strategy more than once.
 */
function openButtons(records: readonly CheckpointRecord[]): Array<{ id: string; label: string }> {
  if (records.length === 1) return [{ id: records[0].id, label: 'Open' }];
  const total = new Map<string, number>();
  for (const c of records) total.set(c.strategy, (total.get(c.strategy) ?? 0) + 1);
  const seen = new Map<string, number>();
  return records.map((c) => {
    const n = (seen.get(c.strategy) ?? 0) + 1;
    seen.set(c.strategy, n);
    return { id: c.id, label: total.get(c.strategy)! > 1 ? `Open ${c.strategy} ${n}` : `Open ${c.strategy}` };
  });
}
