/**
 * Hashes of a text's fixed-size windows, for ruling out cheaply that a string occurs in a long text
 * before searching it: a string occurs only where its first (and last) characters do. A tool of
 * speed, not a rule: the scorecard and the summary writer each use it beside their own rules. Pure.
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
    if (text.length < size) return;
    // 31^(size-1), modulo 2^32 as stringHash computes.
    let top = 1;
    for (let i = 1; i < size; i++) top = Math.imul(top, 31);
    let h = stringHash(text, 0, size);
    this.add(h);
    for (let i = size; i < text.length; i++) {
      h = (Math.imul(h - Math.imul(text.charCodeAt(i - size), top), 31) + text.charCodeAt(i)) | 0;
      this.add(h);
    }
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
