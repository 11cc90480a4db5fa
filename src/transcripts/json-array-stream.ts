/**
 * Reads a file holding one JSON document, in chunks, element by element: a top-level array, or a
 * top-level object one of whose members (`messages`, say) is the large array. Neither the file's
 * bytes nor its text is ever held whole, and each element is parsed on its own (a recording of
 * 300k messages is 75-120 MB of text, which a whole-document parse holds beside everything parsed);
 * the object's other members (a model name, tool schemas) are parsed whole, one at a time.
 *
 * The reader only finds where each element, key and member starts and ends (strings, escapes and
 * bracket depth); `JSON.parse` checks each piece. Anything it cannot read (another shape, a syntax
 * fault between or inside elements, invalid UTF-8) ends the read with `unreadable`, and the caller
 * reads the file the whole-document way, whose error messages say exactly where the fault is.
 */
import { open } from 'node:fs/promises';

/** One element of the streamed array. */
export interface ArrayElement {
  /** The parsed value. */
  value: unknown;
  /** 0-based index in the array. */
  index: number;
  /** The member of the top-level object whose array holds it; undefined for a top-level array. */
  field?: string;
}

/** What to do with the pieces of a document (see {@link readJsonDocument}). */
export interface DocumentHandlers {
  /** In a top-level object, the member whose array is streamed element by element. */
  field?: string;
  /** Called for each element of the top-level array or of the `field` array; false stops the read. */
  onElement: (element: ArrayElement) => boolean | void;
  /**
   * Called for each other member of a top-level object (and for `field` when it is not an array),
   * parsed whole; false stops the read. Without it, a top-level object is unreadable.
   */
  onMember?: (key: string, value: unknown) => boolean | void;
}

/** Bytes read per step. */
const CHUNK_BYTES = 1 << 20;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

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
  return readJsonDocument(file, { onElement });
}

/**
 * Reads the JSON document in `file` piece by piece (see the module comment): a top-level array's
 * elements, or a top-level object's members, the `field` array's elements one by one. Returns `ok`
 * when the whole file was one well-formed document of those shapes (a leading UTF-8 BOM and white
 * space around it allowed), `stopped` when a handler returned false, else `unreadable`. Errors
 * thrown by a handler propagate; file-system errors (missing file, a folder) too.
 */
export async function readJsonDocument(
  file: string,
  handlers: DocumentHandlers,
): Promise<'ok' | 'unreadable' | 'stopped'> {
  const handle = await open(file, 'r');
  try {
    const scanner = new DocumentScanner(handlers);
    for (;;) {
      // A fresh buffer per chunk: a piece that spans chunks keeps views of the earlier ones.
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

/**
 * Where the scanner is, outside any piece being captured: before the document; in an array (first
 * element or its end, an element after a comma, a comma or the end after an element); in the object
 * (first key or its end, a key after a comma, the colon, the value, a comma or the end); after it.
 */
type Place =
  | 'before'
  | 'array-first'
  | 'array-next'
  | 'array-after'
  | 'key-first'
  | 'key-next'
  | 'colon'
  | 'value'
  | 'member-after'
  | 'done';

/** What a capture is: an array element, an object key, or a member value parsed whole. */
type Piece = 'element' | 'key' | 'member';

/** The byte-level state of a read, fed one chunk at a time. */
class DocumentScanner {
  /** Open brackets and braces around the current byte. */
  private depth = 0;
  private place: Place = 'before';
  private inString = false;
  private escape = false;
  /** The piece being captured, if any; it ends at a delimiter at depth {@link level}. */
  private piece: Piece | undefined;
  /** Depth of the container whose piece is captured (1: the top level; 2: the `field` array). */
  private level = 1;
  /** Bytes of the current piece from earlier chunks. */
  private parts: Buffer[] = [];
  private index = 0;
  private key = '';
  private bomChecked = false;
  stopped = false;

  constructor(private readonly handlers: DocumentHandlers) {}

  /** Scans one chunk; false when the read cannot go on (unreadable, or stopped by a handler). */
  push(chunk: Buffer): boolean {
    try {
      this.scan(chunk);
      return true;
    } catch (err) {
      if (err instanceof Unreadable) return false;
      throw err;
    }
  }

  /** True when the input ended just after a complete document. */
  finish(): boolean {
    return this.place === 'done' && this.piece === undefined;
  }

  private scan(chunk: Buffer): void {
    let i = 0;
    if (!this.bomChecked) {
      this.bomChecked = true;
      if (chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3;
    }
    let start = this.piece ? 0 : -1;
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
      if (this.piece) {
        // Inside a piece: only a delimiter at the container's own depth ends it (left for the
        // structural step below to read).
        if (b === QUOTE) this.inString = true;
        else if (b === OPEN_BRACE || b === OPEN_BRACKET) this.depth++;
        else if (this.depth > this.level && (b === CLOSE_BRACE || b === CLOSE_BRACKET)) this.depth--;
        else if (
          this.depth === this.level &&
          (b === CLOSE_BRACE || b === CLOSE_BRACKET || b === COMMA || (b === COLON && this.piece === 'key'))
        ) {
          this.end(chunk.subarray(start, i));
          start = -1;
          continue;
        }
        i++;
        continue;
      }
      if (b === 0x20 || b === 0x0a || b === 0x09 || b === 0x0d) {
        i++;
        continue;
      }
      const begin = this.step(b);
      if (begin) {
        this.piece = begin;
        this.parts = [];
        start = i;
        continue;
      }
      i++;
    }
    if (this.piece) this.parts.push(chunk.subarray(start));
  }

  /**
   * Reads structural byte `b` (outside any piece and string); returns the kind of piece that starts
   * at it (the byte is then read again as the piece's first), else undefined.
   */
  private step(b: number): Piece | undefined {
    switch (this.place) {
      case 'before':
        this.depth = 1;
        if (b === OPEN_BRACKET) this.place = 'array-first';
        else if (b === OPEN_BRACE && this.handlers.onMember) this.place = 'key-first';
        else throw new Unreadable();
        return undefined;
      case 'array-first':
      case 'array-after':
        if (b === CLOSE_BRACKET) {
          this.depth--;
          this.level = 1;
          this.place = this.depth === 0 ? 'done' : 'member-after';
          return undefined;
        }
        if (this.place === 'array-after') {
          if (b !== COMMA) throw new Unreadable();
          this.place = 'array-next';
          return undefined;
        }
        if (b === COMMA) throw new Unreadable();
        return 'element';
      case 'array-next':
        if (b === COMMA || b === CLOSE_BRACKET) throw new Unreadable();
        return 'element';
      case 'key-first':
      case 'key-next':
        if (b === CLOSE_BRACE && this.place === 'key-first') {
          this.depth = 0;
          this.place = 'done';
          return undefined;
        }
        if (b !== QUOTE) throw new Unreadable();
        return 'key';
      case 'colon':
        if (b !== COLON) throw new Unreadable();
        this.place = 'value';
        return undefined;
      case 'value':
        if (this.key === this.handlers.field && b === OPEN_BRACKET) {
          this.depth = 2;
          this.level = 2;
          this.index = 0;
          this.place = 'array-first';
          return undefined;
        }
        return 'member';
      case 'member-after':
        if (b === COMMA) this.place = 'key-next';
        else if (b === CLOSE_BRACE) {
          this.depth = 0;
          this.place = 'done';
        } else throw new Unreadable();
        return undefined;
      case 'done':
        throw new Unreadable();
    }
  }

  /** Parses the piece whose last bytes are `tail` and hands it on; stops the read when it is not valid. */
  private end(tail: Buffer): void {
    const bytes = this.parts.length ? Buffer.concat([...this.parts, tail]) : tail;
    const piece = this.piece!;
    this.parts = [];
    this.piece = undefined;
    let value: unknown;
    try {
      value = JSON.parse(decoder.decode(bytes));
    } catch {
      throw new Unreadable();
    }
    let go: boolean | void = undefined;
    if (piece === 'element') {
      go = this.handlers.onElement({
        value,
        index: this.index++,
        ...(this.level === 2 ? { field: this.key } : {}),
      });
      this.place = 'array-after';
    } else if (piece === 'key') {
      if (typeof value !== 'string') throw new Unreadable();
      this.key = value;
      this.place = 'colon';
    } else {
      go = this.handlers.onMember!(this.key, value);
      this.place = 'member-after';
    }
    if (go === false) {
      this.stopped = true;
      throw new Unreadable();
    }
  }
}

function indexOrEnd(chunk: Buffer, byte: number, from: number): number {
  const at = chunk.indexOf(byte, from);
  return at < 0 ? chunk.length : at;
}
