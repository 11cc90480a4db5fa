/**
 * What a summary covers and which summarizer wrote which part (`SummaryCoverage`), and its prose for
 * the edges: the checkpoint document, the sidebar divider, the CLI, and one line inside the summary
 * itself when part of the span was written without a model (invariant 7: every replaced message is
 * covered, and the checkpoint says which part had no model, and why).
 *
 * Pure: no I/O.
 */
import type { ContextItem, SummaryCoverage, SummaryPart } from '../types';

/** Coverage of `messages` raw messages all read by one writer in `calls` model calls (0: extractive). */
export function wholeCoverage(messages: number, writer: 'model' | 'extractive', calls: number): SummaryCoverage {
  return { messages, parts: messages > 0 ? [{ first: 1, last: messages, writer, calls }] : [] };
}

/**
 * Coverage of `messages` raw messages written without a model because the model call failed
 * (`failure`, one line): the fallback to the extractive summarizer.
 */
export function fallbackCoverage(messages: number, failure: string): SummaryCoverage {
  const reason = 'model-failed' as const;
  return {
    messages,
    parts: messages > 0 ? [{ first: 1, last: messages, writer: 'extractive', calls: 0, reason, failure }] : [],
  };
}

/**
 * Position (1-based) of the first raw message of `items[start]` in the conversation: every active
 * item stands for its `covers`, in order, so the raw messages before it are those of the items
 * before it (an earlier summary counts every message it replaced).
 */
/**
 * {@link firstPositionAt} for many places of one list of items: the sums are made once, on the first
 * question (O(items)), then each answer is O(1). A compaction that collapses hundreds of tool results
 * of a 100k-message context asked each place afresh, reading the items before it every time.
 */
export class FirstPositions {
  private sums: Float64Array | undefined;

  constructor(private readonly items: readonly ContextItem[]) {}

  /** `firstPositionAt(items, start)`. */
  at(start: number): number {
    if (!this.sums) {
      const sums = new Float64Array(this.items.length + 1);
      for (let i = 0; i < this.items.length; i++) sums[i + 1] = sums[i] + this.items[i].covers.length;
      this.sums = sums;
    }
    return this.sums[Math.max(0, Math.min(start, this.items.length))] + 1;
  }
}

export function firstPositionAt(items: readonly ContextItem[], start: number): number {
  let before = 0;
  for (let i = 0; i < start && i < items.length; i++) before += items[i].covers.length;
  return before + 1;
}

/**
 * `coverage` (counted from 1, as a summarizer returns it) placed at position `first` of the
 * conversation, with the compaction's call limit `maxCalls` named when the limit left a part
 * without a model. Returns a new object.
 */
export function placeCoverage(coverage: SummaryCoverage, first: number, maxCalls: number): SummaryCoverage {
  const shift = first - (coverage.parts[0]?.first ?? 1);
  const parts = coverage.parts.map((p) => ({ ...p, first: p.first + shift, last: p.last + shift }));
  const placed: SummaryCoverage = { ...coverage, parts };
  delete placed.maxCalls;
  if (parts.some((p) => p.reason === 'call-limit')) placed.maxCalls = maxCalls;
  return placed;
}

/** Raw messages of `coverage` that no model read although the summarizer has one (call limit, or failure). */
export function unreadByModel(coverage: SummaryCoverage | undefined): number {
  if (!coverage) return 0;
  return coverage.parts
    .filter((p) => p.writer === 'extractive' && p.reason !== undefined)
    .reduce((n, p) => n + p.last - p.first + 1, 0);
}

/** `1-662`, or `7` for a single message. */
function range(first: number, last: number): string {
  return first === last ? `${first}` : `${first}-${last}`;
}

/**
 * Why a part had no model, as a clause: `because of the 4-call limit`, `because the model call
 * failed: …` (the failure left out with `brief`).
 */
function because(part: SummaryPart, maxCalls: number | undefined, brief = false): string {
  if (part.reason === 'call-limit')
    return `because of ${maxCalls !== undefined ? `the ${maxCalls}-call` : 'the call'} limit`;
  if (part.reason === 'model-failed')
    return `because the model call failed${part.failure && !brief ? `: ${oneLine(part.failure)}` : ''}`;
  return '';
}

/** `text` on one line, at most 200 characters (a failure message inside a sentence). */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}

/**
 * One line for a user: the messages covered (their positions in the conversation) and, when part of
 * them had no model, how many and why: `messages 1-662; 611 summarised without a model because of
 * the 4-call limit`, or `messages 40-95; 56 summarised without a model because the model call
 * failed: HTTP 500 …`.
 */
export function describeCoverage(coverage: SummaryCoverage): string {
  const first = coverage.parts[0]?.first ?? 1;
  const last = coverage.parts.at(-1)?.last ?? coverage.messages;
  const head = coverage.messages > 0 ? `messages ${range(first, last)}` : 'no messages';
  const clauses: string[] = [];
  for (const reason of ['call-limit', 'model-failed'] as const) {
    const parts = coverage.parts.filter((p) => p.writer === 'extractive' && p.reason === reason);
    const n = parts.reduce((sum, p) => sum + p.last - p.first + 1, 0);
    if (n > 0) clauses.push(`${n} summarised without a model ${because(parts[0], coverage.maxCalls)}`);
  }
  return [head, ...clauses].join('; ');
}

/**
 * The line a summary carries when part of its span was written without a model although the
 * summarizer has one (undefined otherwise), so the agent reading it knows which messages its notes
 * rest on extracted notes only.
 */
export function coverageNote(coverage: SummaryCoverage | undefined): string | undefined {
  if (!coverage || unreadByModel(coverage) === 0) return undefined;
  const parts = coverage.parts.map((p) =>
    p.writer === 'model'
      ? `messages ${range(p.first, p.last)} read by the summarizer model`
      : `messages ${range(p.first, p.last)} summarised without a model (extracted notes)${p.reason ? ` ${because(p, coverage.maxCalls, true)}` : ''}`,
  );
  return `Coverage: this summary stands for ${coverage.messages} messages; ${parts.join('; ')}.`;
}
