/**
 * How a reply the user cancelled while it streamed is kept in the transcript: its text so far with
 * {@link CANCELLED_REPLY_MARKER} appended, a plain-text note in the message itself, as recordings keep
 * their interruptions (Claude Code's "[Request interrupted by user]", the "[interrupted: …]" result
 * of a tool call a stop left unanswered, `service/store-repair.ts`), so the model reads it too and
 * views tell such a reply apart from its content alone. No imports: views and the webview use it.
 */

/** Marker appended to a reply whose stream was cancelled, so neither user nor model takes it as whole. */
export const CANCELLED_REPLY_MARKER = '\n\n[reply cancelled by the user]';

/** True when `text` (an assistant message's text) is a reply cut short by a cancel. */
export function isCancelledReply(text: string): boolean {
  return text.endsWith(CANCELLED_REPLY_MARKER);
}
