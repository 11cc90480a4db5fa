/**
 * Sizes of what the user types into the sidebar, in characters, shared by the webview (which checks
 * them before it clears a field, so nothing typed is lost) and the host's message validator. Kept apart
 * from protocol.ts so the webview bundle takes these numbers without the validator library.
 */
import { formatInteger } from '../../format/display';

/**
 * Longest task the task box sends, in characters (about 8 MB of UTF-16). A pasted log is a normal task,
 * so the cap only guards the host against a runaway page; the webview checks it before clearing the box.
 */
export const MAX_TASK_CHARS = 4_000_000;

/** Longest focus text for Compact, in characters; checked by the webview before it clears the field. */
export const MAX_FOCUS_CHARS = 100_000;

/** Longest summary text a preview edit may hold, in characters. */
export const MAX_SUMMARY_EDIT_CHARS = 1_000_000;

/**
 * Why the task box keeps `text` instead of sending it, or undefined when Run may send it (and clear
 * the box). `busy`: a task or compaction runs now, so the host would refuse a second task. Counts are
 * characters.
 */
export function taskRefusal(text: string, busy: boolean): string | undefined {
  if (text.length > MAX_TASK_CHARS)
    return `This task has ${formatInteger(text.length)} characters; at most ${formatInteger(MAX_TASK_CHARS)} are taken. Shorten it (or put the text in a file and name the file); it stays in the box.`;
  if (busy) return 'A task is running: this one stays in the box; run it when the agent is done, or Cancel first.';
  return undefined;
}

/** Why the Compact focus is kept instead of sent, or undefined when it may be sent. Counts are characters. */
export function focusRefusal(focus: string): string | undefined {
  if (focus.length > MAX_FOCUS_CHARS)
    return `The focus has ${formatInteger(focus.length)} characters; at most ${formatInteger(MAX_FOCUS_CHARS)} are taken.`;
  return undefined;
}
