/**
 * tiktoken's byte-pair merge, counting tokens of one pre-tokenizer piece given as UTF-8 bytes.
 *
 * The rule (tiktoken's `byte_pair_merge`): a piece that is itself a token is one token; otherwise
 * start from single bytes and repeatedly merge the adjacent pair whose concatenation has the lowest
 * rank (leftmost on ties) until no adjacent pair is a token. Short pieces use a linear scan for the
 * lowest pair (fastest when there are few parts); long pieces use a binary heap keyed by
 * (rank, start byte) over a linked list of parts, O(n log n), so that a single 50,000-character run
 * (minified code, base64) is counted exactly in milliseconds. Both give tiktoken's merge order:
 * the heap's least key is the lowest rank, leftmost on ties.
 */
import type { RankTable } from './rank-table';

/** Pieces of at most this many bytes use the linear scan (measured: faster below, slower above). */
export const LINEAR_MAX_BYTES = 48;

/** No token for this pair. Larger than any rank. */
const NONE = 0x7fffffff;
/** Heap key = rank * 2^32 + start byte: exact in a double for ranks below 2^21. */
const SHIFT = 4294967296;

let starts = new Int32Array(64);
let pairs = new Int32Array(64);
let next = new Int32Array(0);
let prev = new Int32Array(0);
let pairAt = new Int32Array(0);
let heap = new Float64Array(0);

/**
 * Tokens tiktoken makes of the piece whose UTF-8 bytes are `buf[0 .. n)`.
 * @param table the encoding's rank table.
 */
export function countPieceBytes(table: RankTable, buf: Uint8Array, n: number): number {
  if (n <= 1) return n;
  if (table.rank(buf, 0, n) >= 0) return 1;
  return n <= LINEAR_MAX_BYTES ? linearMerge(table, buf, n) : heapMerge(table, buf, n);
}

function linearMerge(table: RankTable, buf: Uint8Array, n: number): number {
  if (starts.length <= n) {
    starts = new Int32Array(n * 2);
    pairs = new Int32Array(n * 2);
  }
  const s = starts;
  const p = pairs;
  for (let i = 0; i <= n; i++) s[i] = i;
  for (let k = 0; k < n - 1; k++) {
    const r = table.rank(buf, k, k + 2);
    p[k] = r < 0 ? NONE : r;
  }
  let parts = n;
  while (parts > 1) {
    let min = NONE;
    let at = -1;
    for (let k = 0; k < parts - 1; k++) {
      if (p[k] < min) {
        min = p[k];
        at = k;
      }
    }
    if (at < 0) break;
    // Remove boundary at + 1: parts at and at + 1 become one.
    for (let k = at + 1; k < parts; k++) s[k] = s[k + 1];
    for (let k = at; k < parts - 2; k++) p[k] = p[k + 1];
    parts--;
    if (at < parts - 1) {
      const r = table.rank(buf, s[at], s[at + 2]);
      p[at] = r < 0 ? NONE : r;
    }
    if (at > 0) {
      const r = table.rank(buf, s[at - 1], s[at + 1]);
      p[at - 1] = r < 0 ? NONE : r;
    }
  }
  return parts;
}

function heapMerge(table: RankTable, buf: Uint8Array, n: number): number {
  if (next.length < n + 1) {
    const cap = n * 2;
    next = new Int32Array(cap);
    prev = new Int32Array(cap);
    pairAt = new Int32Array(cap);
    heap = new Float64Array(cap * 3);
  }
  // Parts are identified by their first byte; next[i] is the first byte of the following part
  // (n at the end), prev[i] that of the previous one (-1 at the start), -2 marks a merged-away part.
  let size = 0;
  for (let i = 0; i < n; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
  }
  for (let i = 0; i < n - 1; i++) {
    const r = table.rank(buf, i, i + 2);
    pairAt[i] = r;
    if (r >= 0) size = push(heap, size, r * SHIFT + i);
  }
  pairAt[n - 1] = -1;
  let parts = n;
  while (size > 0) {
    const key = heap[0];
    size = pop(heap, size);
    const rank = Math.floor(key / SHIFT);
    const i = key - rank * SHIFT;
    // Stale entries: the part was merged away or its pair changed since this entry was pushed.
    if (prev[i] === -2 || pairAt[i] !== rank) continue;
    const j = next[i];
    const after = next[j];
    next[i] = after;
    prev[j] = -2;
    if (after < n) prev[after] = i;
    parts--;
    if (after < n) {
      const r = table.rank(buf, i, next[after]);
      pairAt[i] = r;
      if (r >= 0) size = push(heap, size, r * SHIFT + i);
    } else pairAt[i] = -1;
    const before = prev[i];
    if (before >= 0) {
      const r = table.rank(buf, before, after);
      pairAt[before] = r;
      if (r >= 0) size = push(heap, size, r * SHIFT + before);
    }
  }
  return parts;
}

/** Pushes `key` onto the min-heap `h` of `size` entries; returns the new size. */
function push(h: Float64Array, size: number, key: number): number {
  let i = size;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (h[parent] <= key) break;
    h[i] = h[parent];
    i = parent;
  }
  h[i] = key;
  return size + 1;
}

/** Removes the least entry of the min-heap `h`; returns the new size. */
function pop(h: Float64Array, size: number): number {
  const last = h[--size];
  let i = 0;
  for (;;) {
    let c = 2 * i + 1;
    if (c >= size) break;
    if (c + 1 < size && h[c + 1] < h[c]) c++;
    if (h[c] >= last) break;
    h[i] = h[c];
    i = c;
  }
  h[i] = last;
  return size;
}
