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
 * Why both sides have an even number of lines: for a diff of 1,700 lines or more, VS Code's
 * line-level Myers pass (monaco-editor-core 0.57, `myersDiffAlgorithm.ts`) clamps its diagonals to
 * the sequences' lengths with a parity that is right only when both line counts are even. With an odd
 * count it lost the divider's match in a third of the layouts tried (1-300 replaced lines against 1-120
 * summary lines), and with it the whole point of the layout: the two blocks became one, and on a
 * 673-message step (1,539 against 281 lines, 197k against 29k characters) the character pass hit the
 * 5-second limit. With both counts even it kept the match in all of them. So each side gets one
 * padding line when its count is odd ({@link COMPARE_PAD}), counted as VS Code counts lines.
 *
 * Why a size limit ({@link COMPARE_DIFF_MAX_LINES}): even laid out this way, the line pass grows with
 * the square of the lines: measured with the same diff computer, 8,000 lines took 1.6 s, 12,000 lines
 * 2.7 s, 15,000 lines 3.4 s and 18,000 lines 6.2 s. Larger compares open side by side without a diff.
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

/** The padding line that gives the replaced side an even number of lines (see the module comment). */
export const COMPARE_PAD = '<!-- End of the replaced messages. -->';

/**
 * Most lines (both sides together) a compare is opened with as a diff; a larger one opens side by side
 * without a diff. About 2 s of VS Code's diff computation where it measured 1.6 s at 8,000 lines and
 * 6.2 s at 18,000 (the module comment), so a slower machine still stays under its 5-second limit.
 */
export const COMPARE_DIFF_MAX_LINES = 10_000;

/** Line breaks as VS Code's text model reads them (a lone carriage return ends a line too). */
const LINE_BREAK = /\r\n|\r|\n/;

/** Lines of `text` as VS Code's editor counts them: a final line break makes an empty last line. */
export function editorLineCount(text: string): number {
  return text.split(LINE_BREAK).length;
}

/** The two documents of a compare, as whole texts. */
export interface CompareDocuments {
  replaced: string;
  summary: string;
}

/**
 * Lays `replaced` (the replaced span, rendered as text) and `summary` (what stands in its place) out
 * for a diff editor: the header, `replaced` without its blank lines, a line the summary also holds
 * marked, a padding line when needed, then the divider with no final line break; the header, the
 * divider, then `summary` whole and one or two line breaks: each side has an even number of lines.
 * Lines are compared as the diff editor does, with leading and trailing white space trimmed.
 */
export function layOutCompare(replaced: string, summary: string): CompareDocuments {
  const summaryLines = summary.replace(/\s+$/, '').split(LINE_BREAK);
  const taken = new Set(summaryLines.map((line) => line.trim()));
  taken.add(COMPARE_DIVIDER);
  taken.add(COMPARE_HEADER);
  const mark = (line: string) => {
    let shown = line;
    while (taken.has(shown.trim())) shown += ALSO_IN_SUMMARY;
    return shown;
  };
  const replacedLines = [COMPARE_HEADER];
  for (const line of replaced.split(LINE_BREAK)) if (line.trim()) replacedLines.push(mark(line));
  // Both sides even (see the module comment): the divider still closes the replaced side.
  if ((replacedLines.length + 1) % 2 === 1) replacedLines.push(mark(COMPARE_PAD));
  replacedLines.push(COMPARE_DIVIDER);
  // Header, divider, the summary, and the empty line after the final line break: one more blank line
  // when that is odd (the replaced side has none to pair it with).
  const ending = (summaryLines.length + 3) % 2 === 1 ? '\n\n' : '\n';
  return {
    // No line break at the end: the empty last line it makes would pair with the summary's last one.
    replaced: replacedLines.join('\n'),
    summary: `${COMPARE_HEADER}\n${COMPARE_DIVIDER}\n${summaryLines.join('\n')}${ending}`,
  };
}

/** Lines of both documents of `documents` together, as VS Code counts them. */
export function compareLines(documents: CompareDocuments): number {
  return editorLineCount(documents.replaced) + editorLineCount(documents.summary);
}
