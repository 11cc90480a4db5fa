/**
 * Middle clipping of long text (design: compaction pipeline, step 3, and summarizer input batching).
 *
 * The head and the tail of a long tool result carry most of its meaning (the command echo, the final
 * error or summary line), so the middle goes. Cuts are made on code-point boundaries: a UTF-16
 * surrogate pair is never split. UTF-8 multi-byte sequences encode exactly one code point each, so a
 * string cut on code-point boundaries re-encodes to whole UTF-8 characters as well — no U+FFFD appears.
 *
 * Pure: no I/O.
 */

/** Builds the marker put in place of the removed middle, given how many characters were removed. */
export type ClipMarker = (removedChars: number) => string;

/** Default marker: `\n[… 12345 characters clipped …]\n`. */
export const defaultClipMarker: ClipMarker = (removed) => `\n[… ${removed} characters clipped …]\n`;

/**
 * Keeps the head and tail of `text` so the result is at most `maxChars` characters (UTF-16 code units),
 * the marker included; the head gets the extra character when the kept length is odd.
 *
 * @param text Text to clip.
 * @param maxChars Upper bound on the result length, in UTF-16 code units. When it is smaller than the
 *   marker itself, the result is the head of `text` without a marker.
 * @param marker Marker builder; receives the number of removed characters (UTF-16 code units).
 * @returns `text` itself when it already fits, else `head + marker(removed) + tail`. Never throws;
 *   a negative or fractional `maxChars` is treated as its floor, at least 0.
 */
export function clipMiddle(text: string, maxChars: number, marker: ClipMarker = defaultClipMarker): string {
  const limit = Math.max(0, Math.floor(maxChars));
  if (text.length <= limit) return text;

  // The marker's length depends on the removed count, which depends on the marker's length: iterate
  // until it is stable (two rounds suffice unless the count's digit count changes at a boundary).
  let markerText = marker(text.length - limit);
  for (let round = 0; round < 4; round++) {
    const keep = limit - markerText.length;
    if (keep < 0) break;
    const next = marker(text.length - keep);
    if (next.length === markerText.length) {
      markerText = next;
      break;
    }
    markerText = next.length > markerText.length ? next : markerText;
  }
  const keep = limit - markerText.length;
  if (keep <= 0) return safeHead(text, limit);

  let headEnd = Math.ceil(keep / 2);
  let tailStart = text.length - (keep - headEnd);
  headEnd = backOffHighSurrogate(text, headEnd);
  tailStart = skipLowSurrogate(text, tailStart);
  const removed = tailStart - headEnd;
  const finalMarker = marker(removed);
  const result = text.slice(0, headEnd) + finalMarker + text.slice(tailStart);
  // Surrogate adjustments only ever shrink the kept parts, so the result never exceeds `limit`
  // unless the marker grew with the removed count; cut the head further in that rare case.
  if (result.length > limit) {
    const over = result.length - limit;
    const head = text.slice(0, backOffHighSurrogate(text, Math.max(0, headEnd - over)));
    return head + marker(tailStart - head.length) + text.slice(tailStart);
  }
  return result;
}

/**
 * Token-bounded {@link clipMiddle}: the longest middle clip of `text` whose count by `countText` is at
 * most `maxTokens`.
 *
 * Searches the character budget by bisection (about log2(text.length) calls of `countText`), so it
 * costs O(n log n) tokenizer work; callers clip only messages that are already known to be too long.
 *
 * @param text Text to clip.
 * @param maxTokens Upper bound on `countText(result)`, in tokens.
 * @param countText Counts tokens of a string (for example the meter's `countText`).
 * @param marker Marker builder, as for {@link clipMiddle}.
 * @returns `text` when it fits; otherwise the longest clipped string that fits (a bare head, without a
 *   marker, when not even the marker fits; `''` when nothing fits). Never throws unless `countText` throws.
 */
export function clipMiddleToTokens(
  text: string,
  maxTokens: number,
  countText: (text: string) => number,
  marker: ClipMarker = defaultClipMarker,
): string {
  if (countText(text) <= maxTokens) return text;
  let lo = 0; // a character budget known to fit (the empty string)
  let hi = text.length - 1; // a character budget not known to fit
  let best = '';
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const candidate = clipMiddle(text, mid, marker);
    if (countText(candidate) <= maxTokens) {
      lo = mid;
      best = candidate;
    } else {
      hi = mid - 1;
    }
  }
  return best;
}

/** The first `n` code units of `text`, shortened by one when that would split a surrogate pair. */
export function safeHead(text: string, n: number): string {
  return text.slice(0, backOffHighSurrogate(text, Math.min(n, text.length)));
}

/** The last `n` code units of `text`, shortened by one when that would split a surrogate pair. */
export function safeTail(text: string, n: number): string {
  if (n <= 0) return '';
  return text.slice(skipLowSurrogate(text, Math.max(0, text.length - n)));
}

/** Moves a cut index left by one when the character before it is a high (leading) surrogate. */
function backOffHighSurrogate(text: string, end: number): number {
  if (end <= 0 || end >= text.length) return end;
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

/** Moves a cut index right by one when the character at it is a low (trailing) surrogate. */
function skipLowSurrogate(text: string, start: number): number {
  if (start <= 0 || start >= text.length) return start;
  const code = text.charCodeAt(start);
  return code >= 0xdc00 && code <= 0xdfff ? start + 1 : start;
}
