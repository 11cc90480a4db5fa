/**
 * Puts one summary's text together inside its token limit: the notes (with their back-filled
 * identifiers), then the requests section, which closes the summary next to the latest request that
 * follows it, then the one-line pointer to the replaced messages (`recall-pointer.ts`). Requests come first inside the target (README, "What a summary keeps"): what the notes
 * leave unused goes to them. Credentials quoted from tool output leave masked.
 *
 * Pure: no I/O.
 */
import { maskSecretValues } from '../secret-values';
import { renderRequestsSection, type RequestsSection } from './requests-section';

/** Tokens of a summary message beyond its text: the message's own overhead and the joins. */
export const SUMMARY_FRAME_TOKENS = 8;

/** Excess over the limit, in tokens, that is always trimmed from the notes (joins and masking). */
const SMALL_EXCESS_TOKENS = 64;

/** What {@link composeSummary} needs. */
export interface ComposeInput {
  /** The summary's opening label. */
  header: string;
  /** The notes, back-filled identifiers included (they come last). */
  notes: string;
  /** The requests of the span, oldest first, and their section as first rendered. */
  requests: readonly string[];
  section: RequestsSection;
  /** Most tokens of the whole summary message (header, text and frame). */
  limit: number;
  /** Fewest tokens the requests section keeps when the summary must give tokens back. */
  minRequests: number;
  countText: (text: string) => number;
  /** The counter is tiktoken's exact count (see `renderRequestsSection`). */
  lineAdditive?: boolean;
  /** Name of the counter's encoding: line counts are then kept across sections (see `renderRequestsSection`). */
  encoding?: string;
  /** The notes keep the standing rules in their own section (see `renderRequestsSection`). */
  rulesElsewhere?: boolean;
  /** One line that ends the summary (the pointer to its replaced messages); counted inside `limit`. */
  footer?: string;
  /**
   * Secret values of the span (`spanSecretValues`): masked wherever they appear, a list entry that
   * is one of them left out.
   */
  secretValues?: readonly string[];
}

/** A list entry that is nothing but a mask: a secret value listed as a name, which says nothing. */
const MASK_ALONE = /^- `?\[masked [^\]]+\]`?\n/gm;

/** Headings of the sections whose lines are lists of names, `, `-separated (code names, identifiers). */
const NAME_LISTS = /^## (?:Code names|Identifiers)\b/;

/** A name of such a list that is nothing but a mask, with the separator before or after it. */
const MASKED_NAME = /(?:^|, )\[masked [^\]]+\](?=, |$)/g;

/** `text` masked as a summary leaves (see {@link ComposeInput.secretValues}). */
function masked(text: string, values: readonly string[]): string {
  let names = false;
  const lines = maskSecretValues(text, values)
    .split('\n')
    .map((line) => {
      if (line.startsWith('## ')) names = NAME_LISTS.test(line);
      if (!names || !line.startsWith('- ') || !line.includes('[masked ')) return line;
      // A name list's entry that is a mask says nothing: it leaves, and the line with it when alone.
      const rest = line.slice(2).replace(MASKED_NAME, '').replace(/^, /, '');
      return rest ? `- ${rest}` : undefined;
    })
    .filter((line) => line !== undefined);
  return `${lines.join('\n')}\n`.replace(MASK_ALONE, '').slice(0, -1);
}

/**
 * Returns the summary's text (without its header) and the requests section it holds. When the notes
 * leave room within `limit`, a shortened requests section is rendered again with that room. Token
 * counts do not add exactly across joins and masking, so a result still over `limit` gives the
 * difference back from the requests (never below `minRequests`), then, when the excess is small
 * (joins, masking; at most a tenth of the limit), from the notes' last lines (back-filled
 * identifiers). Nothing is trimmed when the limit is below what a summary needs at all (then what
 * stays in the context alone is over the target, and the result says so).
 */
export function composeSummary(input: ComposeInput): { text: string; section: RequestsSection } {
  const { header, requests, limit, minRequests, countText, lineAdditive, encoding, footer, rulesElsewhere } = input;
  let { notes, section } = input;
  const frame = countText(header) + SUMMARY_FRAME_TOKENS + (footer ? countText(footer) + 1 : 0);
  const spare = limit - frame - countText(notes) - section.tokens - 2;
  if ((section.shortened > 0 || section.omitted > 0) && spare > 8)
    section = renderRequestsSection(
      requests,
      section.tokens + spare,
      countText,
      lineAdditive,
      encoding,
      rulesElsewhere,
    );
  const values = input.secretValues ?? [];
  const compose = () =>
    masked(section.text ? `${notes}\n\n${section.text}` : notes, values) + (footer ? `\n\n${footer}` : '');
  let text = compose();
  if (limit < frame + minRequests + 64) return { text, section };
  const overBy = () => countText(`${header}\n\n${text}`) + SUMMARY_FRAME_TOKENS - limit;
  for (let over = overBy(), k = 0; over > 0 && k < 3 && section.tokens > minRequests; k++, over = overBy()) {
    section = renderRequestsSection(
      requests,
      Math.max(minRequests, section.tokens - over - 2),
      countText,
      lineAdditive,
      encoding,
      rulesElsewhere,
    );
    text = compose();
  }
  // Only a small excess is trimmed from the notes: a reply far over its budget is not cut to fit
  // (the compaction then fails as not shrinking, and the context stays as it was).
  if (overBy() > Math.max(SMALL_EXCESS_TOKENS, Math.floor(limit / 10))) return { text, section };
  for (let over = overBy(), lines = notes.split('\n'); over > 0 && lines.length > 2; over = overBy()) {
    lines = lines.slice(0, Math.max(2, lines.length - Math.max(1, Math.ceil(over / 12))));
    notes = lines.join('\n').trimEnd();
    text = compose();
  }
  return { text, section };
}
