/**
 * Lines the user added by hand to a summary (in the preview, before applying it): they are the
 * user's own words about the work, which no summarizer can recover from the messages. A later
 * summary that folds that summary keeps them under {@link HAND_HEADING}, whatever its budget.
 *
 * Pure: no I/O.
 */
import type { ContextItem } from '../types';
import { REQUESTS_HEADING } from './requests-section';
import { closingLineAt, insertSection } from './recall-pointer';

/** Heading of the lines added by hand to an earlier summary, carried whole by the summary replacing it. */
export const HAND_HEADING = '## Added by hand to an earlier summary';

/** The non-blank lines of `text`, trimmed of trailing spaces. */
function linesOf(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '');
}

/**
 * The lines the user added by hand: those of `edited` (the text applied) that the proposed text
 * `proposed` does not have, in order, plus the lines `carried` (added by hand to the earlier
 * summaries the proposed one folded) that `edited` still holds. Empty when the user only deleted.
 */
export function handAddedLines(proposed: string, edited: string, carried: readonly string[] = []): string[] {
  const had = new Set(linesOf(proposed).map((l) => l.trim()));
  const now = linesOf(edited);
  const kept = new Set(now.map((l) => l.trim()));
  const out = carried.filter((l) => kept.has(l.trim()));
  for (const l of now) if (l.trim() !== HAND_HEADING && !had.has(l.trim()) && !out.includes(l)) out.push(l);
  return out;
}

/** The lines added by hand to the summaries among `span`, oldest first, each once. */
export function handLinesOf(span: readonly ContextItem[]): string[] {
  const out: string[] = [];
  for (const it of span)
    if (it.kind === 'summary') for (const l of it.handLines ?? []) if (!out.includes(l)) out.push(l);
  return out;
}

/**
 * The text of the earlier summary `item` without the lines added to it by hand (`handLines`): what
 * the product wrote, for readers of its sections. A line typed at the end of a summary lands under
 * its last heading (the requests, verbatim): read from the text, it would pass for a typed request,
 * and for the latest one. Those lines are the user's notes, carried under {@link HAND_HEADING} only.
 * `text` unchanged when the item has none. Never throws.
 */
export function withoutHandLines(text: string, item: Pick<ContextItem, 'handLines'>): string {
  const hand = new Set((item.handLines ?? []).map((l) => l.trim()));
  if (hand.size === 0) return text;
  // A line the proposed summary already held is never a hand line (`handAddedLines`): dropping every
  // line equal to one cannot take away the product's own text.
  return text
    .split('\n')
    .filter((l) => !hand.has(l.trim()))
    .join('\n');
}

/**
 * Most characters of hand-added lines a new summary carries whole (about 1,000 tokens). Notes typed
 * into a summary are short; a pasted block far larger would make the new summary longer than what it
 * replaces, and the compaction would fail. Past this, whole lines stop and the rest is named.
 */
export const HAND_LINES_MAX_CHARS = 4_000;

/**
 * `summary` (a new summary's text) with the lines added by hand to the earlier summaries among
 * `span` under {@link HAND_HEADING}, before its requests section (else before its closing pointer line, else at its end): whole lines, oldest
 * first, up to {@link HAND_LINES_MAX_CHARS} characters, then one line counting those left out (they
 * stay in the earlier summary, which its checkpoint keeps). A line the notes already quote elsewhere
 * (a summary of a summary copies its lines) moves under the heading, so the user's words are always
 * found there and told apart from what was generated; lines already under the heading stay as they
 * are. `summary` unchanged when there are none to add. Never throws.
 */
export function keepHandLines(summary: string, span: readonly ContextItem[]): string {
  const under = new Set(handSectionLines(summary).map((l) => l.trim()));
  const missing = handLinesOf(span).filter((l) => !under.has(l.trim()));
  if (missing.length === 0) return summary;
  const kept: string[] = [];
  let chars = 0;
  for (const l of missing) {
    if (chars + l.length > HAND_LINES_MAX_CHARS) break;
    kept.push(l);
    chars += l.length + 1;
  }
  const left = missing.length - kept.length;
  if (left > 0)
    kept.push(
      `- … ${left} more line${left === 1 ? '' : 's'} added by hand left out here (${missing
        .slice(kept.length)
        .reduce((n, l) => n + l.length, 0)} characters): the earlier summary holding them is kept by its checkpoint`,
    );
  const moved = withoutLines(summary, new Set(kept.map((l) => l.trim())));
  // Added to the heading the notes carry already, or under a new one.
  const heading = moved.indexOf(`\n${HAND_HEADING}\n`);
  if (heading >= 0) {
    const next = moved.indexOf('\n## ', heading + HAND_HEADING.length + 2);
    // The closing pointer line stays last.
    const close = closingLineAt(moved);
    const end = next >= 0 ? next : close >= 0 ? close : moved.length;
    return `${moved.slice(0, end).trimEnd()}\n${kept.join('\n')}\n${moved.slice(end)}`.trimEnd();
  }
  const section = `${HAND_HEADING}\n${kept.join('\n')}`;
  return insertSection(moved, section, REQUESTS_HEADING);
}

/** The lines under {@link HAND_HEADING} in `summary` (up to the next `## ` heading); empty without one. */
export function handSectionLines(summary: string): string[] {
  const at = summary.indexOf(`${HAND_HEADING}\n`);
  if (at < 0 || (at > 0 && summary[at - 1] !== '\n')) return [];
  const body = summary.slice(at + HAND_HEADING.length + 1);
  const next = body.indexOf('\n## ');
  return linesOf(next < 0 ? body : body.slice(0, next));
}

/**
 * `summary` without the lines equal (trimmed) to one of `lines`, outside its requests section (the
 * typed requests stay whole, whatever they repeat).
 */
function withoutLines(summary: string, lines: ReadonlySet<string>): string {
  const at = summary.indexOf(`\n${REQUESTS_HEADING}`);
  const notes = at >= 0 ? summary.slice(0, at) : summary;
  const kept = notes.split('\n').filter((l) => l.trim() === '' || !lines.has(l.trim()));
  return `${kept.join('\n')}${at >= 0 ? summary.slice(at) : ''}`;
}
