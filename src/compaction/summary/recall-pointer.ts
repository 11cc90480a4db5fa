/**
 * The line that ends every summary: where the messages it replaced can be read word for word. It
 * opens with `[` so that a later compaction reading the requests section above it ends the last
 * request there. Only what is true where the summary is used is said (see `CompactionOptions.recallPointer`):
 *
 * - in a session that keeps its checkpoints (the extension, whose agent has the history tools, and the
 *   MCP server of the same name), the checkpoint that replaced them;
 * - in the command-line tool's output, whose checkpoints nothing can open later, their positions in
 *   the recording it read, which `context-keeper recall FILE --read FROM-TO` reads (recall's positions
 *   are the compaction's: the same pairing repair of the same file).
 *
 * Pure: no I/O.
 */
import type { CompactionOptions } from '../types';

/** The pointer of the summary of checkpoint `checkpointId`, which replaced `messages` raw messages. */
export function recallPointer(checkpointId: string, messages: number): string {
  return `[The ${messages} replaced message${messages === 1 ? ' is' : 's are'} kept: search_history / read_history, checkpoint ${checkpointId}.]`;
}

/**
 * The pointer of a summary that replaced `messages` raw messages from position `first` (1-based) of
 * the recording file `recording` (a file name): the file, those positions and the `recall` command
 * that reads them. The file is named once, after "read from:", the words by which a later summary
 * and the retention scorecard tell a file pointed at to be read from a file the work changed.
 */
export function recordingPointer(recording: string, first: number, messages: number): string {
  const last = first + Math.max(1, messages) - 1;
  const range = first === last ? `${first}` : `${first}-${last}`;
  const which = messages === 1 ? `message ${range}` : `messages ${range}`;
  return `[The ${messages} replaced message${messages === 1 ? '' : 's'} can be read from: ${recording}, ${which} (context-keeper recall FILE --read ${range}).]`;
}

/** A line {@link recallPointer} or {@link recordingPointer} writes: the line that closes a summary. */
const POINTER_LINE = /^\[The [\d,]+ replaced messages? (?:is |are )?(?:kept: |can be read from: ).*\]$/;

/**
 * `summary` with `section` (a heading and its lines) added before the line that opens with `before`
 * (a heading, when the summary has it), else before the summary's closing pointer line
 * ({@link POINTER_LINE}), which stays last, else at its end. Never throws.
 */
export function insertSection(summary: string, section: string, before?: string): string {
  const at = before === undefined ? -1 : summary.indexOf(`\n${before}`);
  if (at >= 0) return `${summary.slice(0, at).trimEnd()}\n\n${section}\n${summary.slice(at)}`;
  const close = closingLineAt(summary);
  if (close >= 0) return `${summary.slice(0, close).trimEnd()}\n\n${section}\n\n${summary.slice(close).trimEnd()}`;
  return `${summary.trimEnd()}\n\n${section}`;
}

/** Where the closing pointer line ({@link POINTER_LINE}) of `summary` starts, when its last line is one; else -1. */
export function closingLineAt(summary: string): number {
  const trimmed = summary.trimEnd();
  const last = trimmed.lastIndexOf('\n') + 1;
  return last > 0 && POINTER_LINE.test(trimmed.slice(last)) ? last : -1;
}

/**
 * The pointer line `options` ask for (undefined for none) of the summary of checkpoint `checkpointId`,
 * which replaced `messages` raw messages from position `first` (1-based) of the conversation.
 */
export function pointerLine(
  option: CompactionOptions['recallPointer'],
  checkpointId: string,
  first: number,
  messages: number,
): string | undefined {
  if (option === false) return undefined;
  if (option === undefined || option === true) return recallPointer(checkpointId, messages);
  return recordingPointer(option.recording, first, messages);
}

/**
 * The sentence that ends a collapsed tool result's record (`rewrite/collapse.ts`): where the full
 * output can be read, by the same rule as {@link pointerLine}. In a session that keeps its
 * checkpoints, its checkpoint history; in the command-line tool's output, the result's position
 * `position` (1-based) in the recording `option.recording`, which `context-keeper recall` reads; with
 * no pointer (text that leaves the session), only that the tool can be run again. No checkpoint id:
 * the record must read the same on every run (prompt caches, diffs).
 */
export function collapsedOutputPointer(option: CompactionOptions['recallPointer'], position: number): string {
  if (option === false) return 'Run the tool again if the full output is needed.';
  if (option === undefined || option === true)
    return "The full output is kept in ContextKeeper's checkpoint history; run the tool again if it is needed.";
  return `The full output can be read from: ${option.recording}, message ${position} (context-keeper recall FILE --read ${position}).`;
}

/** How every {@link collapsedOutputPointer} sentence opens, as a regular expression source. */
export const COLLAPSED_POINTER_OPENING = '(?:The full output (?:is kept|can be read)|Run the tool again)';
