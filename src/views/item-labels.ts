/**
 * Accessible names of the sidebar transcript's per-item buttons. Pure, shared by the webview and tests.
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
