/** Number, time and label formatting shared by the sidebar's templates. */
import type { CompactionView } from '../src/views/protocol.js';
import { formatTokens } from '../src/views/notices.js';

/** Compact token count: 950, 12.3k, 1.05M (the notifications use the same formatting). */
export const tokens = formatTokens;

/** Local time of an ISO string: hours and minutes today, else date and time. */
export function localTime(iso: string | undefined): string {
  if (!iso) return '';
  const time = new Date(iso);
  if (Number.isNaN(time.getTime())) return '';
  const today = new Date().toDateString() === time.toDateString();
  return today ? time.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : time.toLocaleString([], { dateStyle: 'short', timeStyle: 'short' });
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The divider's headline, e.g. "Context compacted at 11.2k (80% of budget): 11.9k → 3.8k, 5 tool
 * results collapsed, 1 summary".
 */
export function compactionHeadline(c: CompactionView): string {
  const opening =
    c.trigger === 'auto'
      ? `Context compacted at ${tokens(c.thresholdTokens ?? c.tokensBefore)}${c.thresholdFraction !== undefined ? ` (${Math.round(c.thresholdFraction * 100)}% of budget)` : ''}`
      : c.trigger === 'manual'
        ? 'Context compacted on request'
        : 'Compaction recorded by the original agent';
  const parts = [
    c.collapsed > 0 ? `${plural(c.collapsed, 'tool result', 'tool results')} collapsed` : undefined,
    c.summaries > 0 ? plural(c.summaries, 'summary', 'summaries') : undefined,
    c.clipped > 0 ? `${plural(c.clipped, 'message', 'messages')} clipped` : undefined,
    c.dropped > 0 ? `${c.dropped} dropped` : undefined,
    c.attachedFiles?.length ? `${plural(c.attachedFiles.length, 'file', 'files')} re-attached` : undefined,
  ].filter((p): p is string => p !== undefined);
  return `${opening}: ${tokens(c.tokensBefore)} → ${tokens(c.tokensAfter)}${parts.length ? `, ${parts.join(', ')}` : ''}`;
}
