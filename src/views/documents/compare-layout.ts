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
 * So the sides share only marker lines, and just one block has text on both sides: the head. The
 * header ({@link COMPARE_HEADER}) opens both; below it stand the first replaced messages beside the
 * start of the summary (the right side's {@link COMPARE_DIVIDER} first), each side at most
 * {@link COMPARE_HEAD_CHARS} characters, so its character pass is small, and {@link COMPARE_HEAD_END}
 * closes the head on both sides. Below it, the rest of the replaced messages (a block with nothing on
 * the right), the divider again on both sides, then the rest of the summary (a block with nothing on
 * the left); a block with nothing on one side skips the character pass. So the alignment filler of
 * each side stands below its start, never between the header and the summary: with the replaced
 * messages and the whole summary in blocks of their own, the summary side opened on the header and
 * filler as tall as all the replaced messages, the summary far below. The replaced side has no blank
 * line, and a line of it that is also a line of the summary is marked {@link ALSO_IN_SUMMARY}, so no
 * other line can pair up and split a block in two.
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
export const COMPARE_HEADER = `<!-- The replaced messages (left) beside what stands in their place (right). Long messages are cut to their first ${COMPARE_MESSAGE_CHARS} characters (the rest counted), so this is no word-for-word comparison: the transcript in the ContextKeeper sidebar shows each replaced message whole. -->`;

/**
 * The summary side's second line (in the head, above the summary's start), and the line both sides
 * share between the rest of the replaced messages and the rest of the summary: the replaced side
 * ends with it.
 */
export const COMPARE_DIVIDER = '<!-- Right: what stands in the place of the replaced messages (left). -->';

/** The line both sides share below the head: the rest of the replaced messages follows on the left. */
export const COMPARE_HEAD_END =
  '<!-- Below: the rest of the replaced messages (left), then the rest of what stands in their place (right). -->';

/**
 * Most characters of each side's head, the lines shown side by side below the header: the one block
 * the diff editor diffs character by character. Measured with the same diff computer, a head of
 * 1,500 characters added about 0.25 s to a 224-step compare (3,000 characters: 0.8 s).
 */
export const COMPARE_HEAD_CHARS = 1_500;

/** Most lines of each side's head (about a screen). */
export const COMPARE_HEAD_LINES = 40;

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
 * How many of `lines`, from the first, fit in `chars` characters (at most `most` lines); at least
 * one when there is one and `most` allows it, so a head is never empty.
 */
function headCount(lines: readonly string[], chars: number, most: number): number {
  let used = 0;
  let n = 0;
  while (n < Math.min(most, lines.length) && (n === 0 || used + lines[n].length <= chars)) used += lines[n++].length;
  return n;
}

/**
 * Lays `replaced` (the replaced span, rendered as text) and `summary` (what stands in its place) out
 * for a diff editor, `replaced` without its blank lines and with a line the summary also holds marked.
 * Left: the header, the replaced head, {@link COMPARE_HEAD_END}, the rest of the replaced lines, a
 * padding line when needed, then the divider with no final line break. Right: the header, the
 * divider, the summary's head, {@link COMPARE_HEAD_END}, the divider, the rest of the summary and one
 * or two line breaks. Each side has an even number of lines. Lines are compared as the diff editor
 * does, with leading and trailing white space trimmed.
 */
export function layOutCompare(replaced: string, summary: string): CompareDocuments {
  const summaryLines = summary.replace(/\s+$/, '').split(LINE_BREAK);
  const taken = new Set(summaryLines.map((line) => line.trim()));
  for (const marker of [COMPARE_HEADER, COMPARE_DIVIDER, COMPARE_HEAD_END]) taken.add(marker);
  const mark = (line: string) => {
    let shown = line;
    while (taken.has(shown.trim())) shown += ALSO_IN_SUMMARY;
    return shown;
  };
  const replacedLines: string[] = [];
  for (const line of replaced.split(LINE_BREAK)) if (line.trim()) replacedLines.push(mark(line));
  // The summary's head counts the divider above it; the replaced head no more lines than that, so
  // the head's filler (at its foot) is on the left when there is any.
  const summaryHead = headCount(summaryLines, COMPARE_HEAD_CHARS, COMPARE_HEAD_LINES - 1);
  const replacedHead = headCount(replacedLines, COMPARE_HEAD_CHARS, summaryHead + 1);
  const left = [COMPARE_HEADER]
    .concat(replacedLines.slice(0, replacedHead), COMPARE_HEAD_END)
    .concat(replacedLines.slice(replacedHead));
  // Both sides even (see the module comment): the divider still closes the replaced side.
  if ((left.length + 1) % 2 === 1) left.push(mark(COMPARE_PAD));
  left.push(COMPARE_DIVIDER);
  const right = [COMPARE_HEADER, COMPARE_DIVIDER]
    .concat(summaryLines.slice(0, summaryHead), COMPARE_HEAD_END, COMPARE_DIVIDER)
    .concat(summaryLines.slice(summaryHead));
  // The empty line after the final line break counts: one more blank line when that is odd.
  const ending = (right.length + 1) % 2 === 1 ? '\n\n' : '\n';
  return {
    // No line break at the end: the empty last line it makes would pair with the summary's last one.
    replaced: left.join('\n'),
    summary: `${right.join('\n')}${ending}`,
  };
}

/** Lines of both documents of `documents` together, as VS Code counts them. */
export function compareLines(documents: CompareDocuments): number {
  return editorLineCount(documents.replaced) + editorLineCount(documents.summary);
}
