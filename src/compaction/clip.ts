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

/** A message with a `content` and, for assistant messages, `tool_calls`; the shape clipping needs. */
interface ClippableMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string; type?: string; function?: { name?: string; arguments?: string } }>;
}

/** One clippable piece of a message: its text and how to put a shorter text back. */
interface Piece {
  text: string;
  set: (clipped: string) => void;
}

/**
 * Clips one message of any shape to about `maxTokens` (as counted by `countMessage`): string content,
 * every text part of a content-part array (image and other parts stay as they are) and, in assistant
 * messages, long string values inside tool-call arguments. Arguments stay valid JSON: each long value
 * is clipped in its middle with the marker, keys and structure are kept; arguments that are not JSON
 * are clipped as text. The largest pieces are clipped first. Returns a new message (the input is not
 * changed), the message itself when it fits or nothing in it can shrink, else the smallest result
 * reached (pieces keep `minPieceTokens`). Never throws unless the counters throw.
 *
 * @param maxTokens Target tokens of the whole message (content, arguments and per-message overhead).
 * @param countMessage Tokens of a message, as the meter counts it.
 * @param countText Tokens of a string.
 * @param minPieceTokens Each clipped piece keeps at least this many tokens.
 */
export function clipMessageToTokens<M extends ClippableMessage>(
  message: M,
  maxTokens: number,
  countMessage: (message: M) => number,
  countText: (text: string) => number,
  minPieceTokens = 200,
): M {
  const original = countMessage(message);
  let current = original;
  if (current <= maxTokens) return message;
  const copy = structuredClone<M>(message);
  // Re-serialisations of tool-call arguments whose string values were clipped, run after each round.
  const argumentWriters: Array<() => void> = [];
  const pieces = piecesOf(copy);
  // Two rounds: the first removes the estimated excess, the second what overheads left over.
  for (let round = 0; round < 2 && current > maxTokens; round++) {
    let excess = current - maxTokens;
    const sized = pieces.map((p) => ({ p, tokens: countText(p.text) })).sort((a, b) => b.tokens - a.tokens);
    for (const { p, tokens } of sized) {
      if (excess <= 0) break;
      if (tokens <= minPieceTokens) continue;
      const keep = Math.max(minPieceTokens, tokens - excess - 8);
      const clipped = clipMiddleToTokens(p.text, keep, countText);
      excess -= tokens - countText(clipped);
      p.text = clipped;
      p.set(clipped);
    }
    for (const write of argumentWriters) write();
    const next = countMessage(copy);
    if (next >= current) break;
    current = next;
  }
  return current < original ? copy : message;

  function piecesOf(m: ClippableMessage): Piece[] {
    const out: Piece[] = [];
    if (typeof m.content === 'string') out.push({ text: m.content, set: (t) => (m.content = t) });
    else if (Array.isArray(m.content)) {
      for (const part of m.content as Array<Record<string, unknown>>) {
        if (part && part.type === 'text' && typeof part.text === 'string')
          out.push({ text: part.text, set: (t) => (part.text = t) });
      }
    }
    for (const call of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
      const fn = call.function;
      if (!fn || typeof fn.arguments !== 'string') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(fn.arguments);
      } catch {
        out.push({ text: fn.arguments, set: (t) => (fn.arguments = t) });
        continue;
      }
      const { pieces: leaves, holder } = stringLeaves(parsed);
      if (leaves.length === 0) continue;
      argumentWriters.push(() => (fn.arguments = JSON.stringify(holder.value)));
      for (const leaf of leaves) out.push(leaf);
    }
    return out;
  }
}

/** The string values inside a parsed JSON value, each with a setter; `holder.value` is the (mutated) value. */
function stringLeaves(root: unknown): { pieces: Piece[]; holder: { value: unknown } } {
  const pieces: Piece[] = [];
  const holder = { value: root };
  // Iterative, so deeply nested arguments cannot overflow the stack.
  const stack: Array<[Record<string | number, unknown>, string | number]> = [[holder, 'value']];
  while (stack.length > 0) {
    const [container, key] = stack.pop()!;
    const value = container[key];
    if (typeof value === 'string') pieces.push({ text: value, set: (t) => (container[key] = t) });
    else if (Array.isArray(value))
      value.forEach((_v, k) => stack.push([value as unknown as Record<number, unknown>, k]));
    else if (value && typeof value === 'object')
      for (const k of Object.keys(value)) stack.push([value as Record<string, unknown>, k]);
  }
  return { pieces, holder };
}
