/**
 * Hashes of a text's fixed-size windows, for ruling out cheaply that a string occurs in a long text
 * before searching it (a string occurs only where its first and last characters do), and an index of
 * where each window starts, for searching only there. Tools of speed, not rules: the scorecard and
 * the summary writer each use them beside their own rules. Pure.
 */

/** A 32-bit hash of `text.slice(from, to)` (polynomial, base 31, modulo 2^32). */
export function stringHash(text: string, from: number, to: number): number {
  let h = 0;
  for (let i = from; i < to; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  return h;
}

/**
 * A filter of the `stringHash` of every `size`-character window of a text, each hash computed from
 * the one before (rolling: linear in the text whatever the size): {@link has} is false for a hash no
 * window has, and may be true for one it has not (hashes share bits), so it only rules out.
 */
export class WindowHashes {
  /** One bit per hash bucket (the hash's low bits). */
  private readonly bits = new Uint32Array(WINDOW_BUCKETS / 32);
  constructor(text: string, size: number) {
    eachWindowHash(text, size, (h) => this.add(h));
  }
  /** False when no window of the text has the hash `h`. */
  has(h: number): boolean {
    const b = h & (WINDOW_BUCKETS - 1);
    return (this.bits[b >>> 5] & (1 << (b & 31))) !== 0;
  }
  private add(h: number): void {
    const b = h & (WINDOW_BUCKETS - 1);
    this.bits[b >>> 5] |= 1 << (b & 31);
  }
}
/** Buckets of {@link WindowHashes} (a power of two; 256 KB): a 100k-character text sets about 5% of them. */
const WINDOW_BUCKETS = 1 << 21;

/**
 * Calls `take` with the {@link stringHash} of each `size`-character window of `text` and where the
 * window starts, in order; each hash is computed from the one before (rolling: linear in the text).
 */
function eachWindowHash(text: string, size: number, take: (h: number, at: number) => void): void {
  if (text.length < size) return;
  // 31^(size-1), modulo 2^32 as stringHash computes.
  let top = 1;
  for (let i = 1; i < size; i++) top = Math.imul(top, 31);
  let h = stringHash(text, 0, size);
  take(h, 0);
  for (let i = size; i < text.length; i++) {
    h = (Math.imul(h - Math.imul(text.charCodeAt(i - size), top), 31) + text.charCodeAt(i)) | 0;
    take(h, i - size + 1);
  }
}

/**
 * `text.includes(s)` for many strings `s` of a long text, exact: where each `size`-character window
 * of the text starts, chained by its hash bucket. A string of at least `size` characters occurs only
 * where a window hashes like its first `size` characters (and ends where one hashes like its last),
 * so {@link includes} compares it at those places only, taking whichever of the two chains is shorter.
 * Shorter strings are searched in the whole text. Memory: about 12 bytes per character of the text.
 */
export class WindowIndex {
  /** Bucket of a hash: its low bits. */
  private readonly mask: number;
  /** Per bucket: 1 + the last window start in it (0: none). */
  private readonly last: Int32Array;
  /** Per window start: 1 + the window start before it in its bucket (0: none). */
  private readonly before: Int32Array;
  /** Per bucket: windows in it. */
  private readonly count: Int32Array;

  constructor(
    private readonly text: string,
    private readonly size: number,
  ) {
    let buckets = 1 << 10;
    while (buckets < text.length && buckets < 1 << 20) buckets <<= 1;
    this.mask = buckets - 1;
    this.last = new Int32Array(buckets);
    this.count = new Int32Array(buckets);
    this.before = new Int32Array(Math.max(0, text.length - size + 1));
    eachWindowHash(text, size, (h, at) => {
      const b = h & this.mask;
      this.before[at] = this.last[b];
      this.last[b] = at + 1;
      this.count[b]++;
    });
  }

  /** Whether `s` occurs in the text (`text.includes(s)`). */
  includes(s: string): boolean {
    const { size, text } = this;
    if (s.length < size) return text.includes(s);
    if (s.length > text.length) return false;
    const first = stringHash(s, 0, size) & this.mask;
    const lastWindow = stringHash(s, s.length - size, s.length) & this.mask;
    // The rarer of the two windows: a common start (`src/comp…`) is seldom a common end too.
    const [bucket, offset] = this.count[lastWindow] < this.count[first] ? [lastWindow, s.length - size] : [first, 0];
    for (let at = this.last[bucket]; at !== 0; at = this.before[at - 1]) {
      const start = at - 1 - offset;
      if (start >= 0 && text.startsWith(s, start)) return true;
    }
    return false;
  }
}
