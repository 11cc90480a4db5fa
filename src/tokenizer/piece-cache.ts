/**
 * Token counts of recently seen pre-tokenizer pieces, keyed by the piece's characters read in place
 * from the text being counted: no substring, no string hashing by the engine. Code and prose repeat
 * the same pieces (identifiers, keywords, indentation) constantly, so most pieces are found here and
 * skip the byte-pair merge.
 *
 * Memory is fixed when created: an open-addressing table of {@link SLOTS} slots and a character
 * store of {@link CHARS} UTF-16 code units, about 1.7 MB in all. When either fills, the cache starts
 * over (cheaper than tracking recency; a full cache holds tens of thousands of distinct pieces).
 */

/** Pieces longer than this many UTF-16 code units are not cached (long pieces rarely repeat). */
export const MAX_CACHED_CHARS = 48;
/** Slots (a power of two); entries are kept below half of them so probes stay short. */
const SLOTS = 1 << 16;
const MAX_ENTRIES = SLOTS >> 1;
/** Character store size in UTF-16 code units (2 bytes each). */
const CHARS = 1 << 19;

/** A bounded map from a piece's characters to its token count. */
export class PieceCache {
  /** Entry index + 1 per slot, 0 when empty. */
  private readonly slots = new Int32Array(SLOTS);
  private readonly hashes = new Int32Array(MAX_ENTRIES);
  private readonly starts = new Int32Array(MAX_ENTRIES);
  private readonly lengths = new Uint8Array(MAX_ENTRIES);
  private readonly counts = new Int32Array(MAX_ENTRIES);
  private readonly chars = new Uint16Array(CHARS);
  private entries = 0;
  private used = 0;
  /** Slot and hash of the last {@link get} that missed, for the {@link set} that follows it. */
  private missSlot = -1;
  private missHash = 0;

  /** Bytes held (fixed). */
  get byteSize(): number {
    return (
      this.slots.byteLength +
      this.hashes.byteLength +
      this.starts.byteLength +
      this.lengths.byteLength +
      this.counts.byteLength +
      this.chars.byteLength
    );
  }

  /** Number of pieces held. */
  get size(): number {
    return this.entries;
  }

  /**
   * Count of the piece `text[start .. end)` (at most {@link MAX_CACHED_CHARS} code units), or -1 when
   * it is not held; a miss remembers where the piece goes, for {@link set} right after.
   */
  get(text: string, start: number, end: number): number {
    let h = 0x811c9dc5;
    for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    const len = end - start;
    const { slots, hashes, lengths, starts, chars } = this;
    for (let s = h & (SLOTS - 1); ; s = (s + 1) & (SLOTS - 1)) {
      const v = slots[s];
      if (v === 0) {
        this.missSlot = s;
        this.missHash = h;
        return -1;
      }
      const e = v - 1;
      if (hashes[e] !== h || lengths[e] !== len) continue;
      const b = starts[e];
      let i = 0;
      while (i < len && chars[b + i] === text.charCodeAt(start + i)) i++;
      if (i === len) return this.counts[e];
    }
  }

  /** Stores `count` for the piece `text[start .. end)` of the {@link get} that just missed it. */
  set(text: string, start: number, end: number, count: number): void {
    const len = end - start;
    if (this.entries >= MAX_ENTRIES || this.used + len > CHARS) {
      this.clear();
      // The slot found by the miss belongs to the table just emptied: find it again.
      this.get(text, start, end);
    }
    const e = this.entries++;
    this.hashes[e] = this.missHash;
    this.starts[e] = this.used;
    this.lengths[e] = len;
    this.counts[e] = count;
    for (let i = 0; i < len; i++) this.chars[this.used + i] = text.charCodeAt(start + i);
    this.used += len;
    this.slots[this.missSlot] = e + 1;
  }

  /** Forgets every piece. */
  clear(): void {
    this.slots.fill(0);
    this.entries = 0;
    this.used = 0;
  }
}
