/**
 * Exact token counting (tiktoken's encodings), encoding chosen by model, rank tables loaded lazily.
 *
 * Counts equal js-tiktoken's `encode(text).length` on every text (tested against it and against the
 * `tiktoken` package); the merge itself is in ./bpe, the table in ./rankTable, the split of ASCII
 * text in ./pieces, the per-piece cache in ./pieceCache. Importing this module
 * (for example at extension activation) loads no table: the first count does.
 */
import fs from 'node:fs';
import { countPieceBytes } from './bpe';
import { MAX_CACHED_CHARS, PieceCache } from './piece-cache';
import { scanFor, type PieceScan } from './pieces';
import { RankTable } from './rank-table';

/** Encodings the meter can use. */
export type EncodingName = 'o200k_base' | 'cl100k_base';

/** Counts tokens of plain text with one encoding. */
export interface TokenCounter {
  readonly encoding: EncodingName;
  /** Number of tokens of `text` (special-token strings are counted as ordinary text). */
  countText(text: string): number;
  /**
   * False while the counter returns estimates because its rank table is still loading (see
   * {@link createDeferredCounter}); absent or true when every count is exact.
   */
  readonly exact?: boolean;
  /** Settles once counts are exact (absent: they always are). Never rejects. */
  readonly ready?: Promise<void>;
  /**
   * True when counts add up where a line break is followed by a character that starts a piece
   * (tiktoken's encodings; see line-count.ts), so texts built from lines can be counted line by line.
   */
  readonly lineAdditive?: boolean;
}

/**
 * The estimate shown before the rank table is loaded, in tokens: one token per four characters
 * (OpenAI's rule of thumb for English text; code and other scripts differ, hence the label).
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * Chooses the encoding for a model id. Source: OpenAI's tiktoken model table — GPT-4o, GPT-4.1,
 * GPT-5, o1/o3/o4 and later use o200k_base; GPT-4, GPT-3.5 and the text-embedding-3 models use
 * cl100k_base. Other providers' models get `fallback` (default o200k_base) and are corrected by
 * calibration from reported prompt tokens.
 */
export function encodingForModel(model: string | undefined, fallback: EncodingName = 'o200k_base'): EncodingName {
  if (!model) return fallback;
  const m = model.toLowerCase().replace(/^.*\//, '');
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|chatgpt-4o|gpt-oss|codex)/.test(m)) return 'o200k_base';
  if (/^(gpt-4|gpt-3\.5|text-embedding-3|text-embedding-ada)/.test(m)) return 'cl100k_base';
  return fallback;
}

/**
 * The rank table of `name`. The bundles (extension, command-line tool) ship it prebuilt in
 * `dist/ranks/<name>.bin` (written by the build from js-tiktoken's table): reading it is one file read
 * of about 1.6 MB and one pass that hashes every token into the table's slots (tens of milliseconds;
 * the extension host loads it in slices instead, see {@link preloadEncoding}), where building
 * js-tiktoken's `Map` took 1-2 s and about 150 MB. From sources (tests) without a prebuilt file, the
 * table is built from js-tiktoken's rank module (about 0.2 s).
 * @throws Error naming the file when a prebuilt table is corrupt.
 */
export function loadRankTable(name: EncodingName): RankTable {
  const shipped = shippedTable(name);
  let data: Buffer | undefined;
  try {
    data = fs.readFileSync(shipped);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (data) return RankTable.deserialize(data, shipped);
  const load = require as (id: string) => unknown;
  const mod = load(`js-tiktoken/ranks/${name}`) as { default?: unknown };
  // The CommonJS build exports the table itself; an ES module build puts it on `default`.
  return RankTable.fromTiktokenRanks((mod.default ?? mod) as { pat_str: string; bpe_ranks: string });
}

/** Path of the prebuilt table next to the bundle (a computed path keeps the bundler from inlining it). */
function shippedTable(name: EncodingName): string {
  return `${__dirname}/ranks/${name}.bin`;
}

interface LoadedEncoding {
  table: RankTable;
  /** The encoding's pre-tokenizer pattern (tiktoken's `pat_str`, groups made non-capturing), sticky. */
  pieces: RegExp;
  /** The same split without the regex on ASCII text (./pieces), when the pattern is a known one. */
  scan: PieceScan | undefined;
  /** Token count per pre-tokenizer piece, shared by every counter of this encoding. */
  cache: PieceCache;
}

const encoders = new Map<EncodingName, LoadedEncoding>();

/**
 * The same pattern with every capturing group `(` made non-capturing `(?:`. Matches are identical;
 * the regex engine just stops recording groups nobody reads.
 */
function nonCapturing(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      out += c + (pattern[i + 1] ?? '');
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '[') inClass = true;
    else if (c === '(' && pattern[i + 1] !== '?') {
      out += '(?:';
      continue;
    }
    out += c;
  }
  return out;
}

function encodingOf(table: RankTable): LoadedEncoding {
  return {
    table,
    pieces: new RegExp(nonCapturing(table.pattern), 'uy'),
    scan: scanFor(table.pattern),
    cache: new PieceCache(),
  };
}

function loadEncoder(name: EncodingName): LoadedEncoding {
  let enc = encoders.get(name);
  if (!enc) {
    enc = encodingOf(loadRankTable(name));
    encoders.set(name, enc);
  }
  return enc;
}

const preloads = new Map<EncodingName, Promise<void>>();

/**
 * Texts the pre-tokenizer pattern is run on before the first count. V8 compiles a pattern lazily and
 * in stages: bytecode on its first run, native code on its second, and again for the first subject
 * string that is not one-byte (any character above U+00FF). Each stage took 2-20 ms on two shared
 * cores (measured in fresh processes); one per turn of the event loop, none is left to the first count.
 */
const WARM_UP = ['warm up', 'warm up', 'w\u00e4rm \u2018up\u2019'];

/** Resolves in a later turn of the event loop. */
function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Loads the prebuilt table of `name` without blocking the calling thread for long: the file read
 * runs on libuv's thread pool, then the table's slots are filled a slice of ranks per turn of the
 * event loop, and the pattern's parse and each stage of its compilation ({@link WARM_UP}) run in
 * separate turns. A count asked for before
 * this settles loads synchronously instead (same result). Resolves without loading when there is no
 * prebuilt file (running from sources); rejects when the file is unreadable or corrupt.
 */
export function preloadEncoding(name: EncodingName): Promise<void> {
  let p = preloads.get(name);
  if (!p) {
    p = (async () => {
      if (encoders.has(name)) return;
      const file = shippedTable(name);
      let data: Buffer;
      try {
        data = await fs.promises.readFile(file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw err;
      }
      if (encoders.has(name)) return;
      const table = await RankTable.deserializeInTurns(data, file, nextTurn);
      await nextTurn();
      if (encoders.has(name)) return;
      const enc = encodingOf(table);
      for (const sample of WARM_UP) {
        await nextTurn();
        if (encoders.has(name)) return;
        enc.pieces.lastIndex = 0;
        enc.pieces.test(sample);
      }
      enc.pieces.lastIndex = 0;
      encoders.set(name, enc);
    })();
    preloads.set(name, p);
  }
  return p;
}

/** Reused UTF-8 buffer of the piece being merged (grown on demand). */
let bytes = new Uint8Array(1024);

/**
 * Writes the UTF-8 bytes of `text[start .. end)` into `bytes`; returns their number. Lone surrogates
 * become U+FFFD.
 */
function utf8(text: string, start: number, end: number): number {
  if (bytes.length < (end - start) * 3) bytes = new Uint8Array((end - start) * 3 + 16);
  const out = bytes;
  let n = 0;
  for (let i = start; i < end; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) out[n++] = c;
    else if (c < 0x800) {
      out[n++] = 0xc0 | (c >> 6);
      out[n++] = 0x80 | (c & 63);
    } else {
      if (c >= 0xd800 && c < 0xdc00 && i + 1 < end) {
        const d = text.charCodeAt(i + 1);
        if (d >= 0xdc00 && d < 0xe000) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
          out[n++] = 0xf0 | (c >> 18);
          out[n++] = 0x80 | ((c >> 12) & 63);
          out[n++] = 0x80 | ((c >> 6) & 63);
          out[n++] = 0x80 | (c & 63);
          continue;
        }
      }
      if (c >= 0xd800 && c < 0xe000) c = 0xfffd;
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 63);
      out[n++] = 0x80 | (c & 63);
    }
  }
  return n;
}

/** Tokens of the pre-tokenizer piece `text[start .. end)`: exact at any length (see ./bpe). */
function pieceTokens(enc: LoadedEncoding, text: string, start: number, end: number): number {
  // utf8 may replace the buffer: write first, then read `bytes`.
  const n = utf8(text, start, end);
  return countPieceBytes(enc.table, bytes, n);
}

/**
 * Counts tokens exactly, piece by piece. tiktoken encodes text by splitting it with the encoding's
 * pre-tokenizer pattern and running byte-pair merges on each piece independently, so the count of a
 * text is the sum of the counts of its pieces. The split runs without the regex wherever the text is
 * ASCII (./pieces) and with it, one piece at a time, elsewhere; pieces are never copied out of the
 * text. A piece of one ASCII character is one token (every byte is one); other short pieces are
 * looked up in the cache (code and prose repeat the same ones constantly), so most skip the merge.
 */
function countPieces(enc: LoadedEncoding, text: string): number {
  const { cache, scan, pieces } = enc;
  const n = text.length;
  let total = 0;
  let i = 0;
  while (i < n) {
    let end = scan === undefined ? -1 : scan(text, i);
    if (end < 0) {
      pieces.lastIndex = i;
      const m = pieces.exec(text);
      // The patterns match at every position; no match would be a bug, and would loop forever.
      if (m === null)
        throw new Error(`tokenizer: the ${enc.table.size}-token encoding's pattern matched nothing at character ${i}`);
      end = i + m[0].length;
    }
    const len = end - i;
    if (len === 1 && text.charCodeAt(i) < 0x80) total++;
    else if (len > MAX_CACHED_CHARS) total += pieceTokens(enc, text, i, end);
    else {
      let c = cache.get(text, i, end);
      if (c < 0) {
        c = pieceTokens(enc, text, i, end);
        cache.set(text, i, end, c);
      }
      total += c;
    }
    i = end;
  }
  return total;
}

/**
 * Empties the piece caches of every loaded encoding (rank tables stay loaded). Counts are unchanged;
 * only speed is: benchmarks use it to measure counting from a cold cache.
 */
export function clearTokenCaches(): void {
  for (const enc of encoders.values()) enc.cache.clear();
}

/** True once the rank table of `name` has been loaded (used to check lazy loading). */
export function isEncodingLoaded(name: EncodingName): boolean {
  return encoders.has(name);
}

/** Counters made by this module: their counts are tiktoken's for their encoding (once exact). */
const ownCounters = new WeakSet<TokenCounter>();

/**
 * The encoding of `counter` when it is one of this module's counters, whose exact counts any thread
 * can reproduce by loading the same table (a compaction worker does); undefined for other counters.
 */
export function tiktokenEncodingOf(counter: TokenCounter): EncodingName | undefined {
  return ownCounters.has(counter) ? counter.encoding : undefined;
}

/**
 * Creates a counter for `encoding`. The rank table starts loading in the background (see
 * {@link preloadEncoding}); a `countText` before it is ready loads it synchronously.
 */
export function createTokenCounter(encoding: EncodingName): TokenCounter {
  if (!encoders.has(encoding) && !preloads.has(encoding)) {
    // Failures surface on the first count, which loads synchronously and throws with the file name.
    setImmediate(() => void preloadEncoding(encoding).catch(() => undefined));
  }
  return own({
    encoding,
    lineAdditive: true,
    countText(text: string): number {
      if (text.length === 0) return 0;
      return countPieces(loadEncoder(encoding), text);
    },
  });
}

function own(counter: TokenCounter): TokenCounter {
  ownCounters.add(counter);
  return counter;
}

/**
 * A counter that never loads a table on the calling thread's first count: until the table read in
 * the background ({@link preloadEncoding}) is ready, `countText` returns {@link estimateTokens} and
 * `exact` is false, so an editor can show a labelled estimate at once and the exact count a moment
 * later (when `ready` settles). Running from sources (no prebuilt table) the table is built in a
 * later turn. When the table cannot be read, counts load synchronously and throw with the file name.
 */
export function createDeferredCounter(encoding: EncodingName): TokenCounter {
  let failed = false;
  const ready = preloadEncoding(encoding)
    .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
    .then(() => {
      if (!encoders.has(encoding)) loadEncoder(encoding);
    })
    .catch(() => {
      failed = true;
    });
  return own({
    encoding,
    get exact(): boolean {
      return encoders.has(encoding) || failed;
    },
    // Estimates (rounded up per text) do not add up line by line; exact counts do.
    get lineAdditive(): boolean {
      return encoders.has(encoding) || failed;
    },
    ready,
    countText(text: string): number {
      if (text.length === 0) return 0;
      if (!encoders.has(encoding) && !failed) return estimateTokens(text);
      return countPieces(loadEncoder(encoding), text);
    },
  });
}

/** Deferred counter for a model id (see {@link encodingForModel}, {@link createDeferredCounter}). */
export function deferredCounterForModel(model?: string, fallback?: EncodingName): TokenCounter {
  return createDeferredCounter(encodingForModel(model, fallback));
}

/** Counter for a model id (see {@link encodingForModel}). */
export function tokenCounterForModel(model?: string, fallback?: EncodingName): TokenCounter {
  return createTokenCounter(encodingForModel(model, fallback));
}
