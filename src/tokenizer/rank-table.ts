/**
 * A byte-pair rank table in typed arrays: token rank by the token's UTF-8 bytes, looked up on a byte
 * range without building any string key.
 *
 * Layout in memory (all little-endian):
 * - `starts` (Uint32Array, ranks + 1 entries): token `r`'s bytes are `bytes[starts[r] .. starts[r+1])`;
 *   a rank with no token (a gap in the encoding) has an empty range.
 * - `slots` (Int32Array, a power of two, at least twice the token count): open addressing with linear
 *   probing on an FNV-1a hash of the bytes; a slot holds rank + 1, 0 when empty.
 * - `bytes` (Uint8Array): every token's bytes, in rank order.
 * Memory is about 4.5 MB for o200k_base (200k tokens), against about 150 MB for js-tiktoken's
 * `Map<string, number>` of comma-joined byte strings.
 *
 * The prebuilt `.bin` files shipped in `dist/ranks/` hold only what the rest is derived from: a header,
 * one byte per rank (the token's length), the tokens' bytes and the pattern (about 1.6 MB for
 * o200k_base instead of 4.3 MB, and they compress to less than half of the full layout in the VSIX:
 * the hash slots are near random). Reading one computes `starts` by a prefix sum and fills `slots` by
 * hashing every token in rank order, exactly as {@link RankTable.fromTiktokenRanks} does, so the table
 * read is the table built, slot for slot.
 */

/** Magic number at the start of a prebuilt table ("CKRT" little-endian) and the format version. */
const MAGIC = 0x54524b43;
const VERSION = 2;
/** Header: magic, version, ranks, slots, bytes length, pattern bytes length (six uint32). */
const HEADER_BYTES = 24;
/** Ranks hashed into the slots per turn of the event loop by {@link RankTable.deserializeInTurns}. */
export const RANKS_PER_TURN = 10_000;

/** A rank table and the pre-tokenizer pattern of its encoding. */
export class RankTable {
  private readonly mask: number;

  /**
   * @param starts byte offsets per rank (ranks + 1 entries), see the module comment.
   * @param slots hash slots (a power of two in length) holding rank + 1.
   * @param bytes the tokens' bytes in rank order.
   * @param pattern the encoding's pre-tokenizer pattern (tiktoken's `pat_str`).
   */
  constructor(
    readonly starts: Uint32Array,
    readonly slots: Int32Array,
    readonly bytes: Uint8Array,
    readonly pattern: string,
  ) {
    if ((slots.length & (slots.length - 1)) !== 0)
      throw new Error(`rank table: slot count ${slots.length} is not a power of two`);
    this.mask = slots.length - 1;
  }

  /** Number of ranks (the highest rank + 1). */
  get size(): number {
    return this.starts.length - 1;
  }

  /** Bytes held by the table's arrays. */
  get byteSize(): number {
    return this.starts.byteLength + this.slots.byteLength + this.bytes.byteLength;
  }

  /** Rank of the token whose bytes are `buf[start .. end)`, or -1 when those bytes are not a token. */
  rank(buf: Uint8Array, start: number, end: number): number {
    let h = 0x811c9dc5;
    for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i], 0x01000193);
    const { slots, starts, bytes, mask } = this;
    const len = end - start;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const v = slots[s];
      if (v === 0) return -1;
      const r = v - 1;
      const b = starts[r];
      if (starts[r + 1] - b !== len) continue;
      let i = 0;
      while (i < len && bytes[b + i] === buf[start + i]) i++;
      if (i === len) return r;
    }
  }

  /** The table as one buffer in the prebuilt format (see the module comment). */
  serialize(): Uint8Array {
    const pat = new TextEncoder().encode(this.pattern);
    const ranks = this.size;
    const out = new Uint8Array(HEADER_BYTES + ranks + this.bytes.length + pat.length);
    const head = new Uint32Array(out.buffer, 0, 6);
    head.set([MAGIC, VERSION, ranks, this.slots.length, this.bytes.length, pat.length]);
    let at = HEADER_BYTES;
    for (let r = 0; r < ranks; r++) {
      const length = this.starts[r + 1] - this.starts[r];
      if (length > 255) throw new Error(`rank table: token ${r} is ${length} bytes, over the 255 the format holds`);
      out[at + r] = length;
    }
    at += ranks;
    out.set(this.bytes, at);
    at += this.bytes.length;
    out.set(pat, at);
    return out;
  }

  /**
   * Reads a prebuilt table: `starts` from the lengths, `slots` hashed in rank order (a few tens of
   * milliseconds for o200k_base, in one go; see {@link deserializeInTurns} for the extension host).
   * `bytes` is a view onto `data`.
   * @throws Error naming `source` when the magic number, version or sizes do not match.
   */
  static deserialize(data: Uint8Array, source: string): RankTable {
    const read = readPrebuilt(data, source);
    fillSlots(read.starts, read.bytes, read.slots, 0, read.starts.length - 1);
    return new RankTable(read.starts, read.slots, read.bytes, read.pattern);
  }

  /**
   * The same table as {@link deserialize}, with the slots filled {@link RANKS_PER_TURN} ranks at a time
   * and `nextTurn` awaited between, so that no turn of the calling thread's event loop is long.
   * @throws Error naming `source` when the magic number, version or sizes do not match.
   */
  static async deserializeInTurns(
    data: Uint8Array,
    source: string,
    nextTurn: () => Promise<void>,
    ranksPerTurn = RANKS_PER_TURN,
  ): Promise<RankTable> {
    const read = readPrebuilt(data, source);
    const ranks = read.starts.length - 1;
    for (let from = 0; from < ranks; from += ranksPerTurn) {
      if (from > 0) await nextTurn();
      fillSlots(read.starts, read.bytes, read.slots, from, Math.min(ranks, from + ranksPerTurn));
    }
    return new RankTable(read.starts, read.slots, read.bytes, read.pattern);
  }

  /**
   * Builds a table from the rank file format of js-tiktoken (`{ pat_str, bpe_ranks }`, where
   * `bpe_ranks` holds lines `"! <first rank> <base64 token> <base64 token> ..."`, ranks consecutive
   * within a line). This is the slow path (about 0.1-0.3 s): products load the prebuilt form.
   * @throws Error when a line is malformed.
   */
  static fromTiktokenRanks(table: { pat_str: string; bpe_ranks: string }): RankTable {
    const lines = table.bpe_ranks.split('\n');
    const tokens: Array<{ rank: number; b64: string }> = [];
    let maxRank = -1;
    let totalBytes = 0;
    for (let li = 0; li < lines.length; li++) {
      const line = lines[li];
      if (line.length === 0) continue;
      const parts = line.split(' ');
      const first = Number.parseInt(parts[1] ?? '', 10);
      if (!Number.isInteger(first) || first < 0) throw new Error(`rank table: line ${li + 1}: no first rank`);
      for (let k = 2; k < parts.length; k++) {
        const b64 = parts[k];
        tokens.push({ rank: first + k - 2, b64 });
        totalBytes += base64Length(b64);
      }
      maxRank = Math.max(maxRank, first + parts.length - 3);
    }
    const bytes = new Uint8Array(totalBytes);
    const lengths = new Uint32Array(maxRank + 1);
    const at = new Uint32Array(maxRank + 1);
    // Tokens are decoded in file order, then laid out in rank order through `starts`.
    const scratch = new Uint8Array(totalBytes);
    let pos = 0;
    for (const t of tokens) {
      const n = decodeBase64(t.b64, scratch, pos);
      at[t.rank] = pos;
      lengths[t.rank] = n;
      pos += n;
    }
    const starts = new Uint32Array(maxRank + 2);
    let out = 0;
    for (let r = 0; r <= maxRank; r++) {
      starts[r] = out;
      bytes.set(scratch.subarray(at[r], at[r] + lengths[r]), out);
      out += lengths[r];
    }
    starts[maxRank + 1] = out;
    let slotCount = 1;
    while (slotCount < tokens.length * 2) slotCount *= 2;
    const slots = new Int32Array(slotCount);
    const built = new RankTable(starts, slots, bytes, table.pat_str);
    fillSlots(starts, bytes, slots, 0, maxRank + 1);
    return built;
  }
}

/**
 * Hashes the tokens of ranks `from .. to` into `slots` (a power of two in length), in rank order: the
 * same order gives the same slots, whoever fills them.
 */
function fillSlots(starts: Uint32Array, bytes: Uint8Array, slots: Int32Array, from: number, to: number): void {
  const mask = slots.length - 1;
  for (let r = from; r < to; r++) {
    const b = starts[r];
    const e = starts[r + 1];
    if (e === b) continue;
    let h = 0x811c9dc5;
    for (let i = b; i < e; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
    let s = h & mask;
    while (slots[s] !== 0) s = (s + 1) & mask;
    slots[s] = r + 1;
  }
}

/** The parts of a prebuilt table, with `starts` computed and `slots` allocated empty. */
function readPrebuilt(
  data: Uint8Array,
  source: string,
): { starts: Uint32Array; slots: Int32Array; bytes: Uint8Array; pattern: string } {
  if (data.byteOffset % 4 !== 0) data = data.slice();
  if (data.length < HEADER_BYTES) throw new Error(`${source}: not a rank table (${data.length} bytes)`);
  const [magic, version, ranks, slotCount, byteCount, patCount] = new Uint32Array(data.buffer, data.byteOffset, 6);
  if (magic !== MAGIC) throw new Error(`${source}: not a rank table (bad magic number)`);
  if (version !== VERSION) throw new Error(`${source}: rank table version ${version}, expected ${VERSION}`);
  const need = HEADER_BYTES + ranks + byteCount + patCount;
  if (data.length !== need) throw new Error(`${source}: rank table is ${data.length} bytes, header says ${need}`);
  if (slotCount < ranks || (slotCount & (slotCount - 1)) !== 0)
    throw new Error(`${source}: rank table has ${slotCount} slots for ${ranks} ranks`);
  let at = data.byteOffset + HEADER_BYTES;
  const starts = new Uint32Array(ranks + 1);
  let total = 0;
  for (let r = 0; r < ranks; r++) {
    starts[r] = total;
    total += data[HEADER_BYTES + r];
  }
  starts[ranks] = total;
  if (total !== byteCount) throw new Error(`${source}: rank table lengths sum to ${total}, header says ${byteCount}`);
  at += ranks;
  const bytes = new Uint8Array(data.buffer, at, byteCount);
  at += byteCount;
  const pattern = new TextDecoder().decode(new Uint8Array(data.buffer, at, patCount));
  return { starts, slots: new Int32Array(slotCount), bytes, pattern };
}

const B64 = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) B64['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;

/** Decoded length of standard base64 `s` (with `=` padding). */
function base64Length(s: string): number {
  let pad = 0;
  if (s.endsWith('==')) pad = 2;
  else if (s.endsWith('=')) pad = 1;
  return (s.length / 4) * 3 - pad;
}

/** Decodes standard base64 `s` into `out` at `at`; returns the number of bytes written. */
function decodeBase64(s: string, out: Uint8Array, at: number): number {
  let bits = 0;
  let acc = 0;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 61) break; // '='
    const v = c < 128 ? B64[c] : -1;
    if (v < 0) throw new Error(`rank table: bad base64 token "${s}"`);
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[at + n++] = (acc >> bits) & 0xff;
    }
  }
  return n;
}
