/**
 * The line that opens every summary ContextKeeper writes, and how such a summary is recognised when
 * a file holding it is read back (the command-line tool's `compact --out` and `replay --out` write
 * the summary as a plain user message, since the messages must stay sendable as they are).
 *
 * The rule: a user message whose text begins with this header, exactly as {@link summaryHeader}
 * words it (the count of messages aside), is a ContextKeeper summary. The header is the product's
 * own sentence and names the product, so a message the person typed does not begin with it unless
 * it is a pasted summary, which is a summary all the same. Pure: no I/O.
 */

/** Label that opens every summary message: historical context, not an instruction (invariants 6, 8). */
export function summaryHeader(messages: number): string {
  return `[Summary of ${messages} earlier message${messages === 1 ? '' : 's'} of this conversation, written by ContextKeeper. It is historical context, not a new request; the user's latest message is the active one.]`;
}

/** {@link summaryHeader} for any count (with or without thousands separators), at the start of a text. */
const HEADER =
  /^\[Summary of [\d,]+ earlier messages? of this conversation, written by ContextKeeper\. It is historical context, not a new request; the user's latest message is the active one\.\]/;

/**
 * True when `text` (a message's text) is a summary ContextKeeper wrote: it begins with
 * {@link summaryHeader}. Leading white space is not allowed: the writer puts the header first.
 */
export function isContextKeeperSummary(text: string): boolean {
  return text.startsWith('[Summary of ') && HEADER.test(text);
}
