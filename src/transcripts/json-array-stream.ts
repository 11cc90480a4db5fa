/**
 * Reads a file whose content is one JSON array element by element, in chunks: neither the file's
 * bytes nor its text is ever held whole, and each element is parsed on its own (a recording of
 * 300k messages is 75 MB of text, which a whole-document parse holds beside everything parsed).
 *
 * The reader only finds where each element starts and ends (strings, escapes and bracket depth);
 * `JSON.parse` checks each element. Anything it cannot read (not an array, a syntax fault between
 * or inside elements, invalid UTF-8) ends the read with `ok: false`, and the caller reads the file
 * the whole-document way, whose error messages say exactly where the fault is.
 */
import { open } from 'node:fs/promises';

/** One element of the top-level array. */
export interface ArrayElement {
  /** The parsed value. */
  value: unknown;
  /** 0-based index in the array. */
  index: number;
}

/** Bytes read per step. */
const CHUNK_BYTES = 1 << 20;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Thrown inside the reader to stop at the first fault; never leaves this module. */
class Unreadable extends Error {}

/**
 * Calls `onElement` for each element of the JSON array in `file`, in order, and returns whether
 * the whole file was read as one well-formed array (a leading UTF-8 BOM and JSON white space around
 * it allowed). `onElement` may return false to stop early (the result is then `stopped`). Errors
 * thrown by `onElement` propagate; file-system errors (missing file, a folder) too.
 */
export async function readJsonArray(
  file: string,
  onElement: (element: ArrayElement) => boolean | void,
): Promise<'ok' | 'unreadable' | 'stopped'> {
  const handle = await open(file, 'r');
  try {
    const scanner = new ArrayScanner(onElement);
    for (;;) {
      // A fresh buffer per chunk: an element that spans chunks keeps views of the earlier ones.
      const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      if (!scanner.push(chunk.subarray(0, bytesRead))) return scanner.stopped ? 'stopped' : 'unreadable';
    }
    return scanner.finish() ? 'ok' : 'unreadable';
  } finally {
    await handle.close();
  }
}

/** The byte-level state of a read, fed one chunk at a time. */
class ArrayScanner {
  /** 0 outside the array, 1 between its elements, more inside an element's own brackets. */
  private depth = 0;
  private started = false;
  private ended = false;
  private inString = false;
  private escape = false;
  /** True inside an element (from its first byte to the comma or bracket that ends it). */
  private inElement = false;
  /** True after a comma, until the next element starts. */
  private afterComma = false;
  /** Bytes of the current element from earlier chunks. */
  private parts: Buffer[] = [];
  private index = 0;
  private bomChecked = false;
  stopped = false;

  constructor(private readonly onElement: (element: ArrayElement) => boolean | void) {}

  /** Scans one chunk; false when the read cannot go on (unreadable, or stopped by the callback). */
  push(chunk: Buffer): boolean {
    try {
      this.scan(chunk);
      return true;
    } catch (err) {
      if (err instanceof Unreadable) return false;
      throw err;
    }
  }

  /** True when the input ended just after a complete array. */
  finish(): boolean {
    return this.ended && !this.inElement;
  }

  private scan(chunk: Buffer): void {
    let i = 0;
    if (!this.bomChecked) {
      this.bomChecked = true;
      if (chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3;
    }
    let start = this.inElement ? 0 : -1;
    // Next quote and backslash at or after `i`, found once per stretch of a string.
    let nextQuote = -1;
    let nextSlash = -1;
    const n = chunk.length;
    while (i < n) {
      if (this.inString) {
        if (this.escape) {
          this.escape = false;
          i++;
          continue;
        }
        if (nextQuote < i) nextQuote = indexOrEnd(chunk, QUOTE, i);
        if (nextSlash < i) nextSlash = indexOrEnd(chunk, BACKSLASH, i);
        if (nextSlash < nextQuote) {
          this.escape = true;
          i = nextSlash + 1;
        } else if (nextQuote < n) {
          this.inString = false;
          i = nextQuote + 1;
        } else i = n;
        continue;
      }
      const b = chunk[i];
      if (this.inElement) {
        if (b === QUOTE) this.inString = true;
        else if (b === 0x7b || b === 0x5b) this.depth++;
        else if ((b === 0x7d || b === 0x5d) && this.depth > 1) this.depth--;
        else if (this.depth === 1 && (b === 0x2c || b === 0x5d)) {
          this.emit(chunk.subarray(start, i));
          start = -1;
          if (b === 0x5d) {
            this.depth = 0;
            this.ended = true;
          } else this.afterComma = true;
        }
        i++;
        continue;
      }
      if (b === 0x20 || b === 0x0a || b === 0x09 || b === 0x0d) {
        i++;
        continue;
      }
      if (this.depth === 0) {
        if (this.started || b !== 0x5b) throw new Unreadable();
        this.started = true;
        this.depth = 1;
        i++;
        continue;
      }
      // Between elements: the array's end (not after a comma), or the first byte of an element.
      if (b === 0x5d && !this.afterComma) {
        this.depth = 0;
        this.ended = true;
        i++;
        continue;
      }
      if (b === 0x2c || b === 0x5d || (this.index > 0 && !this.afterComma)) throw new Unreadable();
      this.afterComma = false;
      this.inElement = true;
      start = i;
    }
    if (this.inElement) this.parts.push(chunk.subarray(start));
  }

  /** Parses the element whose last bytes are `tail`; stops the read when it is not valid. */
  private emit(tail: Buffer): void {
    const bytes = this.parts.length ? Buffer.concat([...this.parts, tail]) : tail;
    this.parts = [];
    this.inElement = false;
    let value: unknown;
    try {
      value = JSON.parse(decoder.decode(bytes));
    } catch {
      throw new Unreadable();
    }
    if (this.onElement({ value, index: this.index++ }) === false) {
      this.stopped = true;
      throw new Unreadable();
    }
  }
}

function indexOrEnd(chunk: Buffer, byte: number, from: number): number {
  const at = chunk.indexOf(byte, from);
  return at < 0 ? chunk.length : at;
}
