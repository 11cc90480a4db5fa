/**
 * Exact token counting with js-tiktoken, encoding chosen by model, rank tables loaded lazily.
 *
 * Only `js-tiktoken/lite` and the rank table actually used are loaded, and only on the first count,
 * so importing this module (for example at extension activation) costs nothing.
 */
/** The part of js-tiktoken's encoder the meter uses. */
interface Encoder {
  encode(text: string, allowedSpecial?: string[] | 'all', disallowedSpecial?: string[] | 'all'): number[];
}
type EncoderCtor = new (ranks: unknown) => Encoder;

/** Encodings the meter can use. */
export type EncodingName = 'o200k_base' | 'cl100k_base';

/** Counts tokens of plain text with one encoding. */
export interface TokenCounter {
  readonly encoding: EncodingName;
  /** Number of tokens of `text` (special-token strings are counted as ordinary text). */
  countText(text: string): number;
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
 * The rank table module of `name`. The bundles (extension, command-line tool) ship the tables as
 * separate files in `dist/ranks/`, loaded only here: bundled in, they made the extension 4 times
 * larger and slowed its load in the extension host by about 2 s. From sources (tests, benchmarks)
 * they come from the js-tiktoken package.
 */
function loadRankModule(name: EncodingName): { default?: unknown } {
  // A computed path keeps the bundler from inlining the table.
  const shipped = `${__dirname}/ranks/${name}.cjs`;
  const load = require as (id: string) => unknown;
  try {
    return load(shipped) as { default?: unknown };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
  }
  return load(`js-tiktoken/ranks/${name}`) as { default?: unknown };
}

interface LoadedEncoding {
  encoder: Encoder;
  /**
   * js-tiktoken's rank table: token rank by the token's UTF-8 bytes joined with commas ("104,105").
   * Undefined when this js-tiktoken build does not expose it; pieces are then encoded with `encode`.
   */
  ranks: Map<string, number> | undefined;
  /** The encoding's pre-tokenizer pattern (tiktoken's `pat_str`, groups made non-capturing). */
  pieces: RegExp;
  /** Token count per pre-tokenizer piece, shared by every counter of this encoding. */
  cache: Map<string, number>;
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

function loadEncoder(name: EncodingName): LoadedEncoding {
  let enc = encoders.get(name);
  if (!enc) {
    // Loaded on first use only: the rank tables are megabytes of data.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Tiktoken: Ctor } = require('js-tiktoken/lite') as { Tiktoken: EncoderCtor };
    const mod = loadRankModule(name);
    // The CommonJS build exports the table itself; an ES module build puts it on `default`.
    const table = (mod.default ?? mod) as { pat_str: string };
    const encoder = new Ctor(table);
    enc = { encoder, ranks: rankMapOf(encoder), pieces: new RegExp(nonCapturing(table.pat_str), 'gu'), cache: new Map() };
    encoders.set(name, enc);
  }
  return enc;
}

/**
 * js-tiktoken's rank table, when its build exposes it (an internal field of `Tiktoken`) and merging
 * with it reproduces `encode` on probe texts; otherwise undefined, and `encode` is used per piece.
 */
function rankMapOf(encoder: Encoder): Map<string, number> | undefined {
  const ranks = (encoder as unknown as { rankMap?: unknown }).rankMap;
  if (!(ranks instanceof Map) || ranks.size < 1000 || typeof ranks.get('104,105') !== 'number') return undefined;
  const map = ranks as Map<string, number>;
  for (const probe of [' tokenizer', 'Übergrößenträger', ' 日本語のテキスト', 'xyzzyqwv', '🙂🙂', '\n\n\t ']) {
    if (mergeCount(utf8(probe), map) !== encoder.encode(probe, [], []).length) return undefined;
  }
  return map;
}

/** UTF-8 bytes of `text` (a plain array: pieces are short, and `join` builds rank keys). */
function utf8(text: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else {
      if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length) {
        const d = text.charCodeAt(i + 1);
        if (d >= 0xdc00 && d < 0xe000) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
          out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
          continue;
        }
      }
      // Lone surrogates become U+FFFD, as TextEncoder writes them.
      if (c >= 0xd800 && c < 0xe000) c = 0xfffd;
      out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
  }
  return out;
}

function rankOf(bytes: readonly number[], start: number, end: number, ranks: Map<string, number>): number {
  let key = String(bytes[start]);
  for (let i = start + 1; i < end; i++) key += `,${bytes[i]}`;
  return ranks.get(key) ?? Infinity;
}

/**
 * Number of tokens tiktoken's byte-pair merge makes of one piece: a piece that is itself a token
 * is one; otherwise adjacent parts are merged, lowest rank first (leftmost on ties), until no
 * adjacent pair is a token. Only the pairs next to a merge are looked up again.
 */
function mergeCount(bytes: readonly number[], ranks: Map<string, number>): number {
  const n = bytes.length;
  if (n <= 1) return n;
  if (rankOf(bytes, 0, n, ranks) !== Infinity) return 1;
  // starts[k]: first byte of part k (starts[parts] = n); pair[k]: rank of parts k and k+1 merged.
  const starts: number[] = [];
  for (let i = 0; i <= n; i++) starts.push(i);
  const pair: number[] = [];
  for (let k = 0; k < n - 1; k++) pair.push(rankOf(bytes, k, k + 2, ranks));
  let parts = n;
  while (parts > 1) {
    let min = Infinity;
    let at = -1;
    for (let k = 0; k < parts - 1; k++) {
      if (pair[k] < min) {
        min = pair[k];
        at = k;
      }
    }
    if (at < 0) break;
    starts.splice(at + 1, 1);
    pair.splice(at, 1);
    parts--;
    if (at < parts - 1) pair[at] = rankOf(bytes, starts[at], starts[at + 2], ranks);
    if (at > 0) pair[at - 1] = rankOf(bytes, starts[at - 1], starts[at + 1], ranks);
  }
  return parts;
}

/** Tokens of one pre-tokenizer piece. */
function pieceTokens(enc: LoadedEncoding, piece: string): number {
  return enc.ranks ? mergeCount(utf8(piece), enc.ranks) : enc.encoder.encode(piece, [], []).length;
}

/**
 * Pieces longer than this many characters are encoded without caching (long pieces rarely repeat).
 */
const MAX_CACHED_PIECE = 48;
/** The piece cache is cleared when it grows past this many entries (a few MB). */
const MAX_CACHE_ENTRIES = 200_000;

/**
 * Counts tokens exactly, piece by piece. tiktoken encodes text by splitting it with the encoding's
 * pre-tokenizer pattern and running byte-pair merges on each piece independently, so the count of a
 * text is the sum of the counts of its pieces. Code and prose repeat the same pieces (identifiers,
 * keywords, words) constantly; caching per piece skips most merges and allocations. Measured on
 * the recorded transcripts: several times faster than calling `encode` on the whole text.
 */
function countPieces(enc: LoadedEncoding, text: string): number {
  const pieces = text.match(enc.pieces);
  if (pieces === null) return 0;
  const cache = enc.cache;
  let total = 0;
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i];
    if (piece.length > MAX_CACHED_PIECE) {
      total += piece.length > MAX_EXACT_PIECE ? longPieceTokens(enc, piece) : pieceTokens(enc, piece);
      continue;
    }
    let n = cache.get(piece);
    if (n === undefined) {
      n = pieceTokens(enc, piece);
      if (cache.size >= MAX_CACHE_ENTRIES) cache.clear();
      cache.set(piece, n);
    }
    total += n;
  }
  return total;
}

/**
 * Byte-pair merging is quadratic in the length of one piece, and a single unbroken run (minified
 * code, base64 pasted as text, a line of 100k identical characters) is one piece: counted whole it
 * takes seconds to minutes. Pieces longer than this many characters are counted in chunks instead;
 * a merge never spans a chunk boundary, so the count is at most one token per chunk above the exact
 * one (under 0.1 % for such text). Every other piece is counted exactly.
 */
export const MAX_EXACT_PIECE = 2048;

function longPieceTokens(enc: LoadedEncoding, piece: string): number {
  let total = 0;
  for (let start = 0; start < piece.length; start += MAX_EXACT_PIECE) {
    let end = Math.min(piece.length, start + MAX_EXACT_PIECE);
    // Never cut a surrogate pair: a lone half would be counted as a replacement character.
    const code = piece.charCodeAt(end - 1);
    if (end < piece.length && code >= 0xd800 && code <= 0xdbff) end++;
    total += pieceTokens(enc, piece.slice(start, end));
    start = end - MAX_EXACT_PIECE;
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

/** Creates a counter for `encoding`. The rank table loads on the first call to `countText`. */
export function createTokenCounter(encoding: EncodingName): TokenCounter {
  return {
    encoding,
    countText(text: string): number {
      if (text.length === 0) return 0;
      return countPieces(loadEncoder(encoding), text);
    },
  };
}

/** Counter for a model id (see {@link encodingForModel}). */
export function tokenCounterForModel(model?: string, fallback?: EncodingName): TokenCounter {
  return createTokenCounter(encodingForModel(model, fallback));
}
