/**
 * Identifiers an earlier summary held, carried into the summary that replaces it. The back-fill
 * (`backfill.ts`) reads only the raw messages of a span; when a span folds an earlier summary, the
 * exact paths, commands and names that summary kept (its own back-filled lines above all) would
 * otherwise survive only where the new notes happen to repeat them, and each chained compaction
 * would lose more of them.
 *
 * Pure: no I/O.
 */
import type { ContextItem } from '../../types';
import { textWithPlaceholders } from '../../content-text';
import { extractIdentifiers, NOISE } from './identifiers';

/** Heading of the identifiers carried from earlier summaries. */
export const CARRIED_HEADING = '## Identifiers kept by the earlier summary';

/**
 * Appends to `summary` the identifiers of the summaries among `items` that `summary` does not hold,
 * newest summary first, within `maxChars` characters (heading included) and `maxLines` lines;
 * `summary` unchanged when there are none or nothing fits. Never throws.
 */
export function carryIdentifiers(
  summary: string,
  items: readonly ContextItem[],
  maxChars: number,
  maxLines = Infinity,
): string {
  if (maxChars <= CARRIED_HEADING.length + 8 || maxLines <= 0) return summary;
  const earlier = items.filter((i) => i.kind === 'summary').reverse();
  if (earlier.length === 0) return summary;
  const lines: string[] = [];
  const seen = new Set<string>();
  let budget = maxChars - CARRIED_HEADING.length - 2;
  for (const item of earlier) {
    for (const id of heldIdentifiers(textWithPlaceholders(item.message.content))) {
      const trimmed = id.trim();
      if (trimmed.length < 3 || NOISE.has(trimmed) || seen.has(id)) continue;
      seen.add(id);
      // A line of the earlier summary's own lists keeps its words, not its bullet: one bullet per line.
      const line = `- ${id.replace(/^(?:[-*] )+/, '').replace(/\r?\n/g, ' ⏎ ')}`;
      if (line.length + 1 > budget || summary.includes(id)) continue;
      budget -= line.length + 1;
      lines.push(line);
      if (lines.length >= maxLines) break;
    }
    if (lines.length >= maxLines) break;
  }
  return lines.length === 0 ? summary : `${summary.trimEnd()}\n\n${CARRIED_HEADING}\n${lines.join('\n')}`;
}

/** A heading of a summary's identifier lists (`## Identifiers from the conversation`, the carried ones). */
const IDENTIFIER_HEADING = /^## Identifiers\b/;
/** Headings every summary of ours has one of (another agent's summary has none). */
const OUR_HEADING = /^## (?:Current work and next step|Requests, verbatim|Files changed)\b/;

/**
 * The identifiers an earlier summary `text` held as identifiers. A summary of ours lists them under
 * its identifier headings, one a line: those lines are the identifiers, and nothing else of it is
 * (its requests, commits, files and the line saying where its messages can be read are carried by
 * their own sections, and a request's words or the recording's file name are no identifier of the
 * work). Another agent's summary, with no such lists, is read whole ({@link extractIdentifiers}).
 */
function heldIdentifiers(text: string): string[] {
  const lines = text.split('\n');
  if (!lines.some((l) => IDENTIFIER_HEADING.test(l) || OUR_HEADING.test(l))) return extractIdentifiers(text);
  const out: string[] = [];
  let inList = false;
  for (const l of lines) {
    if (l.startsWith('## ')) inList = IDENTIFIER_HEADING.test(l);
    // A line counting what a list left out (`- … 12 more identifiers not listed`) names nothing.
    else if (inList && l.startsWith('- ') && !l.startsWith('- … ')) out.push(l.slice(2).trim());
    else if (inList && l.trim() === '') inList = false;
  }
  return out;
}
