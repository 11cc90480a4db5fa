/**
 * The layout of the two documents of a "replaced ↔ summary" compare, chosen so that VS Code's diff
 * costs next to nothing however long the replaced span is.
 *
 * Why a layout and not more time: the diff editor first pairs equal lines, then diffs every changed
 * block character by character (an O(ND) algorithm, D the characters that differ). A summary is not
 * an edit of the messages it replaced, so D is nearly the whole text: on a 659-message Cline step
 * (193k characters against a 39k-character summary) that character pass ran past the 5-second
 * `diffEditor.maxComputationTime` and showed no diff, and with no limit it ran for minutes. Raising
 * the limit (a user setting) would only make the editor wait longer. Cutting both sides into pages
 * paired by shared marks still cost seconds, since every both-sided block pays the same pass.
 *
 * So the two sides share exactly two lines: {@link COMPARE_HEADER} opens both, and
 * {@link COMPARE_DIVIDER} closes the replaced side and opens the summary. The diff is then one block
 * removed between them (the replaced messages, shown first, so the left pane opens on them instead of
 * on empty filler beside a long summary) and one block added below the divider (the summary); a block
 * with nothing on one side skips the character pass. The replaced side has no blank line, and a line
 * of it that is also a line of the summary is marked {@link ALSO_IN_SUMMARY}, so no other line can
 * pair up and split a block in two.
 *
 * Why the shared first line: `vscode.diff` applies its `selection` to the right pane and centres it.
 * Were the right pane's first line the divider, the filler beside the replaced block would stand
 * above it, and the compare would open scrolled down to the divider whenever the diff was computed
 * before the reveal (a second open, a restored tab), past the start of the replaced messages.
 * Paired first lines sit at the top of both panes, so line 1 is the top every time.
 */

/**
 * Most characters of one message the compare documents show, on one line (the rest is counted). The
 * replaced span of a long step holds tool results of thousands of lines: rendered whole, the diff
 * editor ran into its 5-second limit on an 82-message step and still showed nothing.
 */
export const COMPARE_MESSAGE_CHARS = 200;

/**
 * The first line of both sides: paired by the diff, so both panes open at their first line. It says
 * that long messages are cut, so the compare is not taken for a word-for-word one.
 */
export const COMPARE_HEADER = `<!-- The replaced messages (left) and what stands in their place (right, below the divider). Long messages are cut to their first ${COMPARE_MESSAGE_CHARS} characters (the rest counted), so this is no word-for-word comparison: the transcript in the ContextKeeper sidebar shows each replaced message whole. -->`;

/** The one line both sides share: the replaced side ends with it, the summary side starts with it. */
export const COMPARE_DIVIDER = '<!-- Above: the messages that were replaced. Below: what stands in their place. -->';

/** Appended to a replaced line the summary holds verbatim (the mark also keeps the two from pairing). */
export const ALSO_IN_SUMMARY = ' ← also a line of the summary';

/** The two documents of a compare, as whole texts. */
export interface CompareDocuments {
  replaced: string;
  summary: string;
}

/**
 * Lays `replaced` (the replaced span, rendered as text) and `summary` (what stands in its place) out
 * for a diff editor: the header, `replaced` without its blank lines, a line the summary also holds
 * marked, then the divider with no final line break; the header, the divider, then `summary` whole.
 * Lines are compared as the diff editor does, with leading and trailing white space trimmed.
 */
export function layOutCompare(replaced: string, summary: string): CompareDocuments {
  const summaryLines = summary.replace(/\s+$/, '').split(/\r?\n/);
  const taken = new Set(summaryLines.map((line) => line.trim()));
  taken.add(COMPARE_DIVIDER);
  taken.add(COMPARE_HEADER);
  const replacedLines = [COMPARE_HEADER];
  for (const line of replaced.split(/\r?\n/)) {
    if (!line.trim()) continue;
    let shown = line;
    while (taken.has(shown.trim())) shown += ALSO_IN_SUMMARY;
    replacedLines.push(shown);
  }
  replacedLines.push(COMPARE_DIVIDER);
  return {
    // No line break at the end: the empty last line it makes would pair with the summary's last one.
    replaced: replacedLines.join('\n'),
    summary: `${COMPARE_HEADER}\n${COMPARE_DIVIDER}\n${summaryLines.join('\n')}\n`,
  };
}
