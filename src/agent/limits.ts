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

/** Share of a head-and-tail cap given to the head; the rest goes to the tail, where errors and summaries print. */
const HEAD_SHARE = 0.35;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function countNewlines(text: string, from = 0, to = text.length): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function omissionMarker(chars: number, lines: number, hint: string): string {
  const lineNote = lines > 0 ? ` (${lines} line${lines === 1 ? '' : 's'})` : '';
  return `\n[output truncated: ${chars} characters${lineNote} omitted from the middle; the start and the end are shown${hint ? `; ${hint}` : ''}]\n`;
}

/**
 * Collects a stream of text (a command's output) in bounded memory and renders it as its head and
 * its tail around an omission marker. Builds and test runners print progress first and the error,
 * the summary and the exit reason last, so a cap that keeps only the head hides exactly what the
 * model needs; this keeps both ends.
 *
 * Memory stays under about `3 × maxChars` characters whatever the stream's length.
 */
export class HeadTailText {
  private head = '';
  private tail = '';
  private total = 0;
  private lines = 0;
  private readonly maxChars: number;

  /**
   * @param maxChars most characters {@link text} returns, the marker included (a cap below the
   *   marker's own size returns the marker alone; a negative or fractional cap counts as its floor, at least 0).
   */
  constructor(maxChars: number) {
    this.maxChars = Math.max(0, Math.floor(Number.isFinite(maxChars) ? maxChars : 0));
  }

  /** Appends one piece of the stream (already decoded text). */
  push(piece: string): void {
    if (piece.length === 0) return;
    this.total += piece.length;
    this.lines += countNewlines(piece);
    let rest = piece;
    if (this.head.length < this.maxChars) {
      // Until the whole text is known to exceed the cap, keep it all in `head`.
      const take = Math.min(rest.length, this.maxChars - this.head.length);
      this.head += rest.slice(0, take);
      rest = rest.slice(take);
      if (rest.length === 0) return;
    }
    this.tail += rest;
    // Trim in batches so a stream of small pieces costs amortized linear time.
    if (this.tail.length > 2 * this.maxChars + 4096) this.tail = this.tail.slice(this.tail.length - this.maxChars);
  }

  /** Characters pushed so far. */
  get length(): number {
    return this.total;
  }

  /** True when {@link text} leaves something out. */
  get truncated(): boolean {
    return this.total > this.maxChars;
  }

  /**
   * The whole text when it fits in `maxChars`; otherwise its first and last characters around a
   * marker naming how many characters and lines were left out, at most `maxChars` characters long
   * (or the marker alone when the cap is smaller than the marker). Surrogate pairs are never split.
   *
   * @param hint what the reader can do to see more, appended to the marker.
   */
  text(hint = ''): string {
    if (!this.truncated) return this.head + this.tail;
    const whole = this.head + this.tail;
    // The marker's longest form for this text bounds the room it takes.
    const room = Math.max(0, this.maxChars - omissionMarker(this.total, this.lines, hint).length);
    const headBudget = Math.floor(room * HEAD_SHARE);
    const tailBudget = room - headBudget;
    let headEnd = headBudget;
    if (headEnd > 0 && isHighSurrogate(whole.charCodeAt(headEnd - 1))) headEnd--;
    let tailStart = whole.length - tailBudget;
    if (tailStart < whole.length && isLowSurrogate(whole.charCodeAt(tailStart))) tailStart++;
    // Prefer line boundaries when one is close, so both pieces hold whole lines.
    const lineEnd = headEnd > 0 ? whole.lastIndexOf('\n', headEnd - 1) : -1;
    if (lineEnd >= 0 && lineEnd + 1 > headEnd * 0.8) headEnd = lineEnd + 1;
    const lineStart = whole.indexOf('\n', tailStart);
    if (lineStart >= 0 && lineStart + 1 < whole.length && whole.length - (lineStart + 1) > tailBudget * 0.8)
      tailStart = lineStart + 1;
    const omittedChars = this.total - headEnd - (whole.length - tailStart);
    const keptLines = countNewlines(whole, 0, headEnd) + countNewlines(whole, tailStart);
    const marker = omissionMarker(omittedChars, Math.max(0, this.lines - keptLines), hint);
    return whole.slice(0, headEnd).replace(/\n$/, '') + marker + whole.slice(tailStart);
  }
}

/**
 * Caps `text` at `maxChars` characters by keeping its head and its tail around a marker that says how
 * many characters and lines were left out ({@link HeadTailText}). For command output, whose last lines
 * carry the error and the exit reason.
 */
export function capHeadTail(text: string, maxChars: number, hint = ''): { text: string; truncated: boolean } {
  const capped = new HeadTailText(maxChars);
  capped.push(text);
  return { text: capped.text(hint), truncated: capped.truncated };
}
