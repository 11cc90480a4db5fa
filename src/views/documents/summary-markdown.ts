/**
 * Markdown of a summary or a message made safe to place inside a checkpoint document: text the user
 * or the agent wrote must not become headings of the document (a request starting "# Project" would
 * otherwise sit in the editor's outline beside "Summary", and so would a quoted line of dashes under
 * a text line, a setext heading). Pure string functions; characters in,
 * characters out.
 */
import { REQUESTS_HEADING } from '../../compaction/summary/requests-section';

const HEADING_RE = /^(\s{0,3}(?:[-*+] )?\s{0,3})(#{1,6})(\s|$)/;
/** A line of only `=` or only `-`: under a text line, Markdown reads it as a setext heading's underline. */
const SETEXT_RE = /^(\s*)(=+|-+)(\s*)$/;
const FENCE_OPEN_RE = /^\s*(`{3,}|~{3,})/;
const FENCE_CLOSE_RE = /^\s*(`{3,}|~{3,})\s*$/;

/**
 * Follows fenced code line by line (CommonMark: a fence closes with the same character, at least as
 * many times, and nothing else on the line). `inside(line)` says whether the line is part of a fence
 * (its opening and closing lines included); `closing()` is the line that closes a fence still open
 * at the end, or undefined, so an unclosed fence cannot swallow the document's next sections.
 */
function fenceTracker(): { inside(line: string): boolean; closing(): string | undefined } {
  let open: string | undefined;
  return {
    inside(line) {
      if (open === undefined) {
        open = FENCE_OPEN_RE.exec(line)?.[1];
        return open !== undefined;
      }
      const close = FENCE_CLOSE_RE.exec(line)?.[1];
      if (close && close[0] === open[0] && close.length >= open.length) open = undefined;
      return true;
    },
    closing: () => open,
  };
}

/** `line` with its heading marks escaped: a leading `#` run, or a setext underline when `previous` is text. */
function escapeLine(line: string, previous: string): string {
  if (previous.trim() !== '' && SETEXT_RE.test(line)) return line.replace(SETEXT_RE, '$1\\$2$3');
  return line.replace(HEADING_RE, '$1\\$2$3');
}

/** The lines joined, with a closing fence appended when one is still open. */
function joinClosed(lines: string[], fences: { closing(): string | undefined }): string {
  const closing = fences.closing();
  return (closing ? [...lines, closing] : lines).join('\n');
}

/**
 * Escapes every line of `text` that Markdown would read as a heading, so it shows as written: a `#`
 * line (also inside a list item: "- # Title", "  ## Error") and a line of `-` or `=` under a text
 * line (a setext underline). Lines inside fenced code are left alone (a heading cannot start there);
 * a fence left open is closed at the end. O(characters).
 */
export function escapeHeadings(text: string): string {
  const fences = fenceTracker();
  let previous = '';
  const lines = text.split('\n').map((line) => {
    const out = fences.inside(line) ? line : escapeLine(line, previous);
    previous = line;
    return out;
  });
  return joinClosed(lines, fences);
}

/**
 * A summary placed under the document's "## Summary" heading: its own `#` headings move `levels`
 * levels down (1 by default; at most to level 6), so they nest under "Summary" (or under a "### role"
 * label with `levels` 2) in the outline, never beside it, and still read as headings, not as
 * escaped text; the requests quoted verbatim under {@link REQUESTS_HEADING} (a list of the user's
 * own text) get their heading marks escaped (see {@link escapeHeadings}); and a setext underline
 * anywhere is escaped (it would make a level 1 or 2 heading beside "Summary"). Fenced code is left
 * alone; a fence left open is closed at the end. O(characters).
 */
export function nestSummary(summary: string, levels = 1): string {
  const fences = fenceTracker();
  let inRequests = false;
  let previous = '';
  const lines = summary.split('\n').map((line) => {
    const before = previous;
    previous = line;
    if (fences.inside(line)) return line;
    const heading = /^(#{1,6})(\s)/.exec(line);
    if (heading) {
      // A heading at the line's start ends the list of requests (their lines start "- " or "  ").
      inRequests = line.startsWith(REQUESTS_HEADING);
      return `${'#'.repeat(Math.min(6, heading[1].length + levels))}${line.slice(heading[1].length)}`;
    }
    if (inRequests) return escapeLine(line, before);
    return before.trim() !== '' && SETEXT_RE.test(line) ? escapeLine(line, before) : line;
  });
  return joinClosed(lines, fences);
}
