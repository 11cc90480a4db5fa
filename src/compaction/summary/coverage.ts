/**
 * What a summary covers and which summarizer wrote which part (`SummaryCoverage`), and its prose for
 * the edges: the checkpoint document, the sidebar divider, the CLI, and one line inside the summary
 * itself when part of the span was written without a model (invariant 7: every replaced message is
 * covered, and the checkpoint says which part had no model).
 *
 * Pure: no I/O.
 */
import type { SummaryCoverage } from '../types';

/** Coverage of `messages` raw messages all read by one writer in `calls` model calls (0: extractive). */
export function wholeCoverage(messages: number, writer: 'model' | 'extractive', calls: number): SummaryCoverage {
  return { messages, parts: messages > 0 ? [{ first: 1, last: messages, writer, calls }] : [] };
}

/** Raw messages of `coverage` that no model read because of the call limit. */
export function unreadByModel(coverage: SummaryCoverage | undefined): number {
  if (!coverage) return 0;
  return coverage.parts
    .filter((p) => p.writer === 'extractive' && p.reason === 'call-limit')
    .reduce((n, p) => n + p.last - p.first + 1, 0);
}

/** `1-662`, or `7` for a single message. */
function range(first: number, last: number): string {
  return first === last ? `${first}` : `${first}-${last}`;
}

/**
 * One line for a user: the messages covered and, when the call limit left part of them to the
 * extractive writer, how many and why: `messages 1-662; 611 summarised without a model because of
 * the 4-call limit`.
 */
export function describeCoverage(coverage: SummaryCoverage): string {
  const head = coverage.messages > 0 ? `messages ${range(1, coverage.messages)}` : 'no messages';
  const unread = unreadByModel(coverage);
  if (unread === 0) return head;
  const limit = coverage.maxCalls !== undefined ? `the ${coverage.maxCalls}-call limit` : 'the call limit';
  return `${head}; ${unread} summarised without a model because of ${limit}`;
}

/**
 * The line a summary carries when part of its span was written without a model (undefined
 * otherwise), so the agent reading it knows which messages its notes rest on extracted notes only.
 */
export function coverageNote(coverage: SummaryCoverage | undefined): string | undefined {
  if (!coverage || unreadByModel(coverage) === 0) return undefined;
  const parts = coverage.parts.map((p) =>
    p.writer === 'model'
      ? `messages ${range(p.first, p.last)} read by the summarizer model`
      : `messages ${range(p.first, p.last)} summarised without a model (extracted notes)${p.reason === 'call-limit' ? ` because of the ${coverage.maxCalls ?? ''}${coverage.maxCalls !== undefined ? '-' : ''}call limit` : ''}`,
  );
  return `Coverage: this summary stands for ${coverage.messages} messages; ${parts.join('; ')}.`;
}
