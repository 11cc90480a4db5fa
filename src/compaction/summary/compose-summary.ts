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
import { shortenLine } from './line-shorten';

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

/**
 * The note line naming what a summary left out to fit its budget (`parts`: sections with their line
 * counts, "Commands and outcomes (12 lines)"), and where to read it: the summary's last line points
 * at the messages it replaced. It opens as a list note (`- … `), so a later summary reading this one
 * takes it for no item of the list it stands in.
 */
export function leftOutLine(parts: readonly string[]): string {
  return `- … left out here to fit the budget: ${parts.join(', ')}; read ${parts.length === 1 ? 'it' : 'them'} in the replaced messages (last line)`;
}

/** Where a {@link leftOutLine}'s list starts, and where it ends. */
const LEFT_OUT_OPENING = '- … left out here to fit the budget: ';
const LEFT_OUT_END = /; read (?:it|them) in the replaced messages \(last line\)$/;

/**
 * The sections a {@link leftOutLine} names with their counts of lines ("Environment (2 lines)" →
 * Environment: 2), by section name; the current work's labels it names are not sections and are
 * not read. Undefined for any other line.
 */
export function leftOutSections(line: string): Map<string, number> | undefined {
  if (!line.startsWith(LEFT_OUT_OPENING) || !LEFT_OUT_END.test(line)) return undefined;
  const list = line.slice(LEFT_OUT_OPENING.length).replace(LEFT_OUT_END, '').split(', from the current work: ')[0];
  const out = new Map<string, number>();
  for (const m of list.matchAll(/(?:^|, )([^,(]+?) \((\d+) lines?\)/g))
    out.set(m[1], (out.get(m[1]) ?? 0) + Number(m[2]));
  return out;
}

/** A `## ` heading's name, without its parenthesised note or the lines it carries: "Commands and outcomes". */
export function sectionName(heading: string): string {
  return heading
    .split('\n')[0]
    .replace(/^## /, '')
    .replace(/ \(.*$/, '');
}

/** Characters above which a note line may be shortened to give back a small excess. */
const SHORTENABLE_CHARS = 120;

/** Characters of a line's content (past its label) that giving back a small excess keeps at least. */
const KEPT_CONTENT_CHARS = 80;

/**
 * Index of the longest list line of `lines` that may still be shortened (over {@link SHORTENABLE_CHARS}
 * characters, not in `done`), or -1: never a standing rule (the user's words, `- "…"`) nor a note about
 * the list (`- … `).
 */
function longestShortenable(lines: readonly string[], done: ReadonlySet<number>): number {
  let at = -1;
  lines.forEach((l, i) => {
    if (done.has(i) || !l.startsWith('- ') || l.startsWith('- "') || l.startsWith('- … ')) return;
    if (l.length > SHORTENABLE_CHARS && (at < 0 || l.length > lines[at].length)) at = i;
  });
  return at;
}

/** Fewest characters `line` is shortened to: its label and {@link KEPT_CONTENT_CHARS} of what it says. */
function shortestOf(line: string): number {
  const label = line.indexOf(': ');
  return Math.min(line.length, (label < 0 ? 2 : label + 2) + KEPT_CONTENT_CHARS);
}

/** `n` lines, in words. */
function linesText(n: number): string {
  return `${n} line${n === 1 ? '' : 's'}`;
}

/** The sections of `notes` with their line counts, by heading line. */
function sectionSizes(notes: string): Map<string, number> {
  const out = new Map<string, number>();
  let heading: string | undefined;
  for (const line of notes.split('\n')) {
    if (line.startsWith('## ')) out.set((heading = line), 0);
    else if (heading && line.trim()) out.set(heading, out.get(heading)! + 1);
  }
  return out;
}

/**
 * `kept` (the first lines of `notes`) with a {@link leftOutLine} naming the sections of `notes` it no
 * longer holds, and the lines it lost of the section it ends in; `kept` itself when it lost nothing.
 */
function withLeftOut(notes: string, kept: string): string {
  const all = sectionSizes(notes);
  const left = sectionSizes(kept);
  const parts: string[] = [];
  for (const [heading, n] of all) {
    const now = left.get(heading);
    if (n > 0 && now === undefined) parts.push(`${sectionName(heading)} (${linesText(n)})`);
    else if (now !== undefined && now < n) parts.push(`${linesText(n - now)} of ${sectionName(heading)}`);
  }
  return parts.length ? `${kept}\n${leftOutLine(parts)}` : kept;
}

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
 * difference back, while every request is whole and the excess is small, from the notes' longest
 * lines first; then from the requests (never below `minRequests`), then, when the excess is small
 * (joins, masking; at most a tenth of the limit), from the notes' longest lines (shortened at a
 * word end), then from their last lines (back-filled identifiers), naming what those held in a
 * {@link leftOutLine}. Nothing is trimmed when the limit is below what a summary needs at all (then what
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
  const small = () => overBy() <= Math.max(SMALL_EXCESS_TOKENS, Math.floor(limit / 10));
  const done = new Set<number>();
  const shortenLongest = () => {
    for (let k = 0, over = overBy(); over > 0 && k < 12; k++, over = overBy()) {
      const lines = notes.split('\n');
      const at = longestShortenable(lines, done);
      if (at < 0) break;
      const short = shortenLine(lines[at], Math.max(shortestOf(lines[at]), lines[at].length - (over * 4 + 16)));
      if (short === undefined || short.length >= lines[at].length) {
        done.add(at);
        continue;
      }
      lines[at] = short;
      notes = lines.join('\n');
      text = compose();
    }
  };
  // While every request is kept whole, a small excess (joins, masking) comes out of the notes' longest
  // lines first: a few tokens over never cost the user's words hundreds of characters.
  if (section.shortened === 0 && section.omitted === 0 && overBy() > 0 && small()) shortenLongest();
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
  if (!small()) return { text, section };
  // A small excess comes first out of the notes' longest lines, shortened at a word end and marked:
  // dropping whole lines for a few tokens takes more than the excess, and the note naming them more still.
  shortenLongest();
  // What a cut of whole lines takes is named in one line at the notes' end, never dropped in silence.
  const whole = notes;
  for (let over = overBy(), lines = notes.split('\n'); over > 0 && lines.length > 2; over = overBy()) {
    lines = lines.slice(0, Math.max(2, lines.length - Math.max(1, Math.ceil(over / 12))));
    notes = withLeftOut(whole, lines.join('\n').trimEnd());
    text = compose();
  }
  return { text, section };
}
