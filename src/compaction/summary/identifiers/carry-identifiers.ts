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
 * newest summary first, within `maxChars` characters (heading included); `summary` unchanged when
 * there are none or nothing fits. Never throws.
 */
export function carryIdentifiers(summary: string, items: readonly ContextItem[], maxChars: number): string {
  if (maxChars <= CARRIED_HEADING.length + 8) return summary;
  const earlier = items.filter((i) => i.kind === 'summary').reverse();
  if (earlier.length === 0) return summary;
  const lines: string[] = [];
  const seen = new Set<string>();
  let budget = maxChars - CARRIED_HEADING.length - 2;
  for (const item of earlier) {
    for (const id of extractIdentifiers(textWithPlaceholders(item.message.content))) {
      const trimmed = id.trim();
      if (trimmed.length < 3 || NOISE.has(trimmed) || seen.has(id)) continue;
      seen.add(id);
      // A line of the earlier summary's own lists keeps its words, not its bullet: one bullet per line.
      const line = `- ${id.replace(/^(?:[-*] )+/, '').replace(/\r?\n/g, ' ⏎ ')}`;
      if (line.length + 1 > budget || summary.includes(id)) continue;
      budget -= line.length + 1;
      lines.push(line);
    }
  }
  return lines.length === 0 ? summary : `${summary.trimEnd()}\n\n${CARRIED_HEADING}\n${lines.join('\n')}`;
}
