/**
 * The headline of a compaction divider in the transcript, in plain words. Pure: the webview imports
 * it, tests run it in Node. Token counts in gauge formatting (see `formatTokens`).
 */
import type { CompactionView } from './protocol';
import { formatTokens, plural } from '../../format/tokens';
import { triggerLevel } from './gauge-geometry';

/**
 * " (80% of the 123.9k prompt budget (…), 77% of the window)" when the base is known, " (80% of
 * budget)" with the fraction alone, '' without it.
 */
function thresholdLevel(c: CompactionView): string {
  if (c.thresholdFraction === undefined || c.thresholdTokens === undefined) return '';
  if (!c.thresholdBase) return ` (${Math.round(c.thresholdFraction * 100)}% of budget)`;
  const { inputBudget, window } = c.thresholdBase;
  return ` (${triggerLevel(c.thresholdTokens, c.thresholdFraction, inputBudget, window)})`;
}

/**
 * E.g. "Compacted automatically: the context passed the 11.2k-token trigger (80% of budget) and
 * went from 11.9k to 3.8k tokens; 5 tool results collapsed, 1 summary". The trigger level is named
 * as a trigger: "compacted at 11.2k" read as the size after compaction.
 */
export function compactionHeadline(c: CompactionView): string {
  const change = `went from ${formatTokens(c.tokensBefore)} to ${formatTokens(c.tokensAfter)} tokens`;
  const opening =
    c.trigger === 'auto'
      ? c.thresholdTokens !== undefined
        ? `Compacted automatically: the context passed the ${formatTokens(c.thresholdTokens)}-token trigger${thresholdLevel(c)} and ${change}`
        : c.cause
          ? `Compacted automatically because ${c.cause}: the context ${change}`
          : `Compacted automatically: the context ${change}`
      : c.trigger === 'manual'
        ? `Compacted on request: the context ${change}`
        : c.trigger === 'continue'
          ? `Compacted on continuing the recording in a new task: the context ${change}`
          : `Compacted by the original agent (recorded): the context ${change}`;
  const parts = [
    c.collapsed > 0 ? `${plural(c.collapsed, 'tool result', 'tool results')} collapsed` : undefined,
    c.summaries > 0 ? plural(c.summaries, 'summary', 'summaries') : undefined,
    c.clipped > 0 ? `${plural(c.clipped, 'message', 'messages')} clipped` : undefined,
    c.withoutModel > 0 && c.coverage ? c.coverage : undefined,
    c.attachedFiles?.length ? `${plural(c.attachedFiles.length, 'file', 'files')} re-attached` : undefined,
  ].filter((p): p is string => p !== undefined);
  return `${opening}${parts.length ? `; ${parts.join(', ')}` : ''}`;
}
