import type { CompactedAs } from './protocol';

/**
 * Accessible names of the sidebar transcript's per-item buttons, and which lines offer them. Pure,
 * shared by the webview and tests.
 * Rule (WAI-ARIA APG, "Providing accessible names"): a button's name says what it does and to what,
 * because a screen-reader user reaching it by Tab hears the name alone.
 */

/** Who wrote a transcript item, as its buttons name it. */
const AUTHOR: Record<'user' | 'assistant' | 'tool-call' | 'tool-result', string> = {
  user: 'user',
  assistant: 'agent',
  'tool-call': 'tool call',
  'tool-result': 'tool result',
};

/** "Pin message from user" / "Unpin message from agent": the pin button's name for an item of `kind`. */
export function pinLabel(kind: keyof typeof AUTHOR, pinned: boolean): string {
  return `${pinned ? 'Unpin' : 'Pin'} message from ${AUTHOR[kind]}`;
}

/**
 * True when a transcript line offers a pin button: a message (not a tool call, which is pinned with
 * its step's assistant message) that is live in the context of a working session. A message a
 * compaction replaced cannot be pinned until its checkpoint is restored, so its line shows that
 * state ({@link heldLabel}) instead of a button that would only fail.
 */
export function pinOffered(item: { kind: keyof typeof AUTHOR; compactedBy?: string }, readOnly: boolean): boolean {
  return !readOnly && item.kind !== 'tool-call' && item.compactedBy === undefined;
}

/** The badge and its hint on a line a compaction replaced ("summarized", "collapsed", "clipped"). */
export function heldLabel(as: CompactedAs | undefined): { text: string; hint: string } {
  const text = as ?? 'summarized';
  return {
    text,
    hint: `This message is ${text} by a compaction; restore its checkpoint to see it whole in the context or to pin it`,
  };
}

/**
 * The notice over an imported recording: it is a copy for inspection, and why its lines offer no pin
 * button ({@link pinOffered}): pins steer a working session's compactions, and a recording runs no
 * tasks; "Continue in a new task" makes a working session from it, where messages can be pinned.
 */
export const READ_ONLY_NOTICE =
  'A recording, opened for inspection: compacting it changes only this copy, never the file. Pins apply to working sessions: use Continue in a new task to pin messages.';

/**
 * The failed task as the error card names it: "Task: <text>", or the text alone when it starts with
 * "Task:" itself (any case), so the label is never doubled ("Task: Task: quick check").
 */
export function failedTaskLine(task: string): string {
  return /^\s*task\s*:/i.test(task) ? task.trim() : `Task: ${task}`;
}

/** The mark of a summary the user edited in the preview before applying it (history and divider). */
export const EDITED_BY_HAND = 'edited by hand';
