/**
 * Copies of strings that hold only their own characters, for strings kept past the text they were
 * read from (keys and values of caches kept across compactions). Pure: no I/O.
 */

/**
 * A copy of `text` that holds only its own characters. V8 makes a slice, a trim or a split piece of
 * 13 or more characters a view into the whole string it was cut from, and a concatenation keeps its
 * parts: a cache that keeps such a string keeps the summary or message it came from. A
 * concatenation read by a slice is first copied flat, so the result's backing string is `text` and
 * one character more. Strings under 13 characters are always copied by the engine: returned as they are.
 */
export function ownCopy(text: string): string {
  return text.length < 13 ? text : (' ' + text).slice(1);
}
