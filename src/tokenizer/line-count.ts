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
    } else if (typeof shared === 'string' && shared && additive) {
      let store = sharedStores.get(shared);
      if (!store || store.bare.size + store.withBreak.size + store.withGap.size > SHARED_LINES) {
        store = { withBreak: new Map(), withGap: new Map(), bare: new Map() };
        sharedStores.set(shared, store);
      }
      ({ withBreak: this.withBreak, withGap: this.withGap, bare: this.bare } = store);
    } else {
      this.withBreak = new Map();
      this.withGap = new Map();
      this.bare = new Map();
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
   * Tokens of any `text`, exactly: split at its blank lines and line breaks and counted with
   * {@link countBlocks} (line counts kept), else counted whole. Summaries are counted again and again
   * as they are trimmed and put together, mostly from the same lines.
   */
  countLines(text: string): number {
    if (!this.additive || text.length === 0) return this.countText(text);
    return this.countBlocks(text.split('\n\n').map((b) => b.split('\n'))) ?? this.countText(text);
  }

  private memo(map: Map<string, number>, line: string, after: string): number {
    let n = map.get(line);
    if (n === undefined) {
      n = this.countText(line + after);
      map.set(line, n);
    }
    return n;
  }
}

/** Line counts a caller keeps across counters of one counting function (see {@link LineCounter}). */
export interface LineStore {
  readonly withBreak: Map<string, number>;
  readonly withGap: Map<string, number>;
  readonly bare: Map<string, number>;
}

/** An empty {@link LineStore}. */
export function newLineStore(): LineStore {
  return { withBreak: new Map(), withGap: new Map(), bare: new Map() };
}

/** Lines a {@link LineStore} holds. */
export function storedLines(store: LineStore): number {
  return store.withBreak.size + store.withGap.size + store.bare.size;
}

/** Line counts kept across counters, per encoding (cleared past {@link SHARED_LINES}). */
const sharedStores = new Map<
  string,
  { withBreak: Map<string, number>; withGap: Map<string, number>; bare: Map<string, number> }
>();
/** Most lines whose counts are kept across counters (a few MB). */
export const SHARED_LINES = 100_000;
