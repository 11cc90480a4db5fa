/**
 * Caps on tool output, so that one tool result cannot flood the context window.
 * Sizes in characters (tool results are text; the meter turns them into tokens later).
 */

/** Default cap on one tool result, in characters (~4k tokens of English or code). */
export const DEFAULT_MAX_RESULT_CHARS = 16_000;

/**
 * Cuts `text` to at most `maxChars` characters plus a visible marker that says how much was left out
 * and how to get the rest, so the model knows the result is incomplete (a silent cut makes it reason
 * about a file it never fully saw). Keeps the head, where listings and file starts carry most weight.
 *
 * @param hint what the model can do to see more ("read a narrower line range").
 */
export function capText(text: string, maxChars: number, hint = ''): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false };
  let cut = Math.max(0, maxChars);
  // Avoid splitting a surrogate pair.
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  const lastNewline = text.lastIndexOf('\n', cut);
  // Prefer a line boundary when one is reasonably close, so the marker starts on its own line.
  if (lastNewline > cut * 0.8) cut = lastNewline + 1;
  const omitted = text.length - cut;
  const marker = `\n[output truncated: ${omitted} more characters not shown${hint ? `; ${hint}` : ''}]`;
  return { text: text.slice(0, cut) + marker, truncated: true };
}
