/**
 * Exact token counts of texts assembled from lines, without re-reading the whole text each time a
 * line changes (summaries are trimmed line by line until they fit, and each try used to be counted
 * from scratch, which cost time quadratic in the notes).
 *
 * Why it is exact: tiktoken's encodings split text into pieces with their pre-tokenizer pattern and
 * merge each piece on its own, so a text's count is the sum of its pieces' counts. In both patterns
 * (cl100k_base, o200k_base) a piece that holds a line break ends at the last line break of a run
 * unless the next character is a line break, other white space or `/` (o200k_base's `[\r\n/]*`), and
 * no piece looks behind its start. So where a line break is followed by any other character, the
 * text splits into pieces exactly there, and the count of `a + b` is the count of `a` plus that of
 * `b`. Lines that start otherwise are counted with their neighbours, whole.
 */
import { ownCopy } from './own-copy';

/** White space at one place of a text (sticky): what continues the piece before a line break. */
const PIECE_CONTINUES = /\s/y;

/** True when a text that follows a line break starts a new pre-tokenizer piece whatever precedes it. */
export function startsPiece(line: string): boolean {
  if (line.length === 0) return false;
  const c = line.charCodeAt(0);
  // White space (ASCII and the Unicode classes \s covers) and `/` continue the piece before.
  return c !== 0x2f && !/^\s/.test(line);
}

/**
 * Counts texts made of lines joined by `\n`, remembering the count of each line. With an
 * `additive` counter (tiktoken's, see the module comment) a text costs one lookup per line once its
 * lines were counted; otherwise every count reads the whole text.
 */
export class LineCounter {
  private readonly withBreak: Map<string, number>;
  private readonly withGap: Map<string, number>;
  private readonly bare: Map<string, number>;
  /** Where the characters of the lines kept are added up (the shared or given store, else this counter's). */
  private readonly store: { chars: number };

  /**
   * @param shared Name of the encoding when line counts may be kept across counters of it (the
   *   same lines come back in every compaction of a session); at most {@link SHARED_LINES} are kept.
   *   Or a store of the caller's ({@link newLineStore}) for one counting function.
   */
  constructor(
    private readonly countText: (text: string) => number,
    readonly additive: boolean,
    shared?: string | LineStore,
  ) {
    if (typeof shared === 'object' && additive) {
      ({ withBreak: this.withBreak, withGap: this.withGap, bare: this.bare } = shared);
      this.store = shared;
    } else if (typeof shared === 'string' && shared && additive) {
      let store = sharedStores.get(shared);
      if (!store || lineStoreFull(store)) {
        store = newLineStore();
        sharedStores.set(shared, store);
      }
      ({ withBreak: this.withBreak, withGap: this.withGap, bare: this.bare } = store);
      this.store = store;
    } else {
      this.withBreak = new Map();
      this.withGap = new Map();
      this.bare = new Map();
      this.store = { chars: 0 };
    }
  }

  /** Tokens of `text`. */
  count(text: string): number {
    return this.countText(text);
  }

  /**
   * Tokens of `blocks.map((b) => b.join('\n')).join('\n\n')`, exactly; `undefined` when a line starts
   * in a way that does not split (then count the text itself). Empty blocks are not skipped here.
   */
  countBlocks(blocks: ReadonlyArray<readonly string[]>): number | undefined {
    if (!this.additive) return undefined;
    let total = 0;
    for (let b = 0; b < blocks.length; b++) {
      const lines = blocks[b];
      const lastBlock = b === blocks.length - 1;
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i];
        if ((b > 0 || i > 0) && !startsPiece(line)) return undefined;
        if (i < lines.length - 1) total += this.memo(this.withBreak, line, '\n');
        else total += lastBlock ? this.memo(this.bare, line, '') : this.memo(this.withGap, line, '\n\n');
      }
      // An empty block would put two separators together.
      if (lines.length === 0) return undefined;
    }
    return total;
  }

  /**
   * Tokens of one item of a text whose items are joined by `\n` (an item may hold line breaks
   * itself): the item with its line break after it, or bare when it is the `last`. Exact in the sum
   * when every item starts a piece ({@link startsPiece}; then the text splits between items), which
   * is checked here; `undefined` when it does not start one or the counter is not additive.
   */
  itemTokens(item: string, last: boolean): number | undefined {
    if (!this.additive || !startsPiece(item)) return undefined;
    return last ? this.memo(this.bare, item, '') : this.memo(this.withBreak, item, '\n');
  }

  /**
   * Tokens of the last line of a block in a text counted as by {@link countBlocks}: followed by the
   * blank line before the next block, or bare in the `lastBlock`. `undefined` as in {@link itemTokens}.
   */
  blockEndTokens(line: string, lastBlock: boolean): number | undefined {
    if (!this.additive || !startsPiece(line)) return undefined;
    return lastBlock ? this.memo(this.bare, line, '') : this.memo(this.withGap, line, '\n\n');
  }

  /**
   * Tokens of any `text`, exactly: split after each run of line breaks followed by a character that
   * starts a piece ({@link startsPiece}), each part counted once and kept (a line with its break,
   * the keys {@link countBlocks} uses), the parts summed; a line that starts otherwise (indented, a
   * path's `/`) is counted with the line before it. Summaries are counted again and again as they
   * are trimmed and put together, mostly from the same lines. Not additive: counted whole.
   */
  countLines(text: string): number {
    if (!this.additive || text.length === 0) return this.countText(text);
    let total = 0;
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0 && nl + 1 < text.length; nl = text.indexOf('\n', nl + 1)) {
      const next = nl + 1;
      // Within a run of line breaks the piece goes on; white space and `/` continue it too.
      const c = text.charCodeAt(next);
      if (c === 0x0a || c === 0x2f) continue;
      PIECE_CONTINUES.lastIndex = next;
      if (PIECE_CONTINUES.test(text)) continue;
      total += this.part(text, start, next);
      start = next;
    }
    return total + this.part(text, start, text.length);
  }

  /** Tokens of `text.slice(start, end)`, a part that ends the text or before a piece's start, kept under the keys of {@link countBlocks}. */
  private part(text: string, start: number, end: number): number {
    const part = text.slice(start, end);
    if (end === text.length) return this.memo(this.bare, part, '');
    // Ends with one line break, or two: a line, or a block's last line, as countBlocks keys them.
    if (part.charCodeAt(part.length - 2) !== 0x0a) return this.memo(this.withBreak, part.slice(0, -1), '\n');
    if (part.charCodeAt(part.length - 3) !== 0x0a) return this.memo(this.withGap, part.slice(0, -2), '\n\n');
    return this.memo(this.bare, part, '');
  }

  private memo(map: Map<string, number>, line: string, after: string): number {
    let n = map.get(line);
    if (n === undefined) {
      n = this.countText(line + after);
      // A line cut from a longer text (a slice, a split) is a view that holds that whole text: the
      // key kept is a copy of the line alone, or the store would keep every summary tried and every
      // message whose lines it counted.
      map.set(ownCopy(line), n);
      this.store.chars += line.length;
    }
    return n;
  }
}

/** Line counts a caller keeps across counters of one counting function (see {@link LineCounter}). */
export interface LineStore {
  readonly withBreak: Map<string, number>;
  readonly withGap: Map<string, number>;
  readonly bare: Map<string, number>;
  /** Characters of the lines kept (UTF-16 code units), keys only. */
  chars: number;
}

/** An empty {@link LineStore}. */
export function newLineStore(): LineStore {
  return { withBreak: new Map(), withGap: new Map(), bare: new Map(), chars: 0 };
}

/** Lines a {@link LineStore} holds. */
export function storedLines(store: LineStore): number {
  return store.withBreak.size + store.withGap.size + store.bare.size;
}

/**
 * True when `store` holds more than {@link SHARED_LINES} lines or {@link SHARED_CHARS} characters:
 * its keeper starts a new one (lines of pasted output and long summaries made the line bound alone
 * hold tens of MB).
 */
export function lineStoreFull(store: LineStore): boolean {
  return storedLines(store) > SHARED_LINES || store.chars > SHARED_CHARS;
}

/** Line counts kept across counters, per encoding (replaced once {@link lineStoreFull}). */
const sharedStores = new Map<string, LineStore>();
/** Most lines whose counts are kept across counters. */
export const SHARED_LINES = 100_000;
/** Most characters of lines whose counts are kept across counters (about 8 MB of one-byte text). */
export const SHARED_CHARS = 8_000_000;

/** The line counts kept across counters of `encoding` (for checks of their bounds); undefined before any. */
export function sharedLineStore(encoding: string): Readonly<LineStore> | undefined {
  return sharedStores.get(encoding);
}
