/**
 * Markdown of a summary or a message made safe to place inside a checkpoint document: text the user
 * or the agent wrote must not become headings of the document (a request starting "# Project" would
 * otherwise sit in the editor's outline beside "Summary"). Pure string functions; characters in,
 * characters out.
 */
import { REQUESTS_HEADING } from '../compaction/requestsSection';

const HEADING_RE = /^(\s{0,3}(?:[-*+] )?\s{0,3})(#{1,6})(\s|$)/;
const FENCE_RE = /^\s*(```|~~~)/;

/**
 * Escapes the `#` of every line of `text` that Markdown would read as a heading (also inside a list
 * item: "- # Title", "  ## Error"), so it shows as written. Lines inside fenced code are left alone
 * (a heading cannot start there). O(characters).
 */
export function escapeHeadings(text: string): string {
  let fenced = false;
  return text
    .split('\n')
    .map((line) => {
      if (FENCE_RE.test(line)) fenced = !fenced;
      return fenced ? line : line.replace(HEADING_RE, '$1\\$2$3');
    })
    .join('\n');
}

/**
 * A summary placed under the document's "## Summary" heading: its own headings move `levels` levels
 * down (1 by default; at most to level 6), so they nest under "Summary" (or under a "### role"
 * label with `levels` 2) in the outline, never beside it, and still read as headings, not as
 * escaped text; and the requests quoted verbatim
 * under {@link REQUESTS_HEADING} (a list of the user's own text) get their heading marks escaped
 * (see {@link escapeHeadings}). Fenced code is left alone. O(characters).
 */
export function nestSummary(summary: string, levels = 1): string {
  let fenced = false;
  let inRequests = false;
  return summary
    .split('\n')
    .map((line) => {
      if (FENCE_RE.test(line)) fenced = !fenced;
      if (fenced && !FENCE_RE.test(line)) return line;
      const heading = /^(#{1,6})(\s)/.exec(line);
      if (heading) {
        // A heading at the line's start ends the list of requests (their lines start "- " or "  ").
        inRequests = line.startsWith(REQUESTS_HEADING);
        return `${'#'.repeat(Math.min(6, heading[1].length + levels))}${line.slice(heading[1].length)}`;
      }
      return inRequests ? line.replace(HEADING_RE, '$1\\$2$3') : line;
    })
    .join('\n');
}
