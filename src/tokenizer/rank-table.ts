/**
 * A byte-pair rank table in typed arrays: token rank by the token's UTF-8 bytes, looked up on a byte
 * range without building any string key.
 *
 * Layout (all little-endian, also the layout of the prebuilt `.bin` files shipped in `dist/ranks/`):
 * - `starts` (Uint32Array, ranks + 1 entries): token `r`'s bytes are `bytes[starts[r] .. starts[r+1])`;
 *   a rank with no token (a gap in the encoding) has an empty range.
 * - `slots` (Int32Array, a power of two, at least twice the token count): open addressing with linear
 *   probing on an FNV-1a hash of the bytes; a slot holds rank + 1, 0 when empty.
 * - `bytes` (Uint8Array): every token's bytes, in rank order.
 * Memory is about 4.5 MB for o200k_base (200k tokens), against about 150 MB for js-tiktoken's
 * `Map<string, number>` of comma-joined byte strings.
 */

/** Magic number at the start of a prebuilt table ("CKRT" little-endian) and the format version. */
const MAGIC = 0x54524b43;
const VERSION = 1;
/** Header: magic, version, ranks, slots, bytes length, pattern bytes length (six uint32). */
const HEADER_BYTES = 24;

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
    const size = HEADER_BYTES + this.starts.byteLength + this.slots.byteLength + pad4(this.bytes.length) + pat.length;
    const out = new Uint8Array(size);
    const head = new Uint32Array(out.buffer, 0, 6);
    head.set([MAGIC, VERSION, this.size, this.slots.length, this.bytes.length, pat.length]);
    let at = HEADER_BYTES;
    out.set(new Uint8Array(this.starts.buffer, this.starts.byteOffset, this.starts.byteLength), at);
    at += this.starts.byteLength;
    out.set(new Uint8Array(this.slots.buffer, this.slots.byteOffset, this.slots.byteLength), at);
    at += this.slots.byteLength;
    out.set(this.bytes, at);
    at += pad4(this.bytes.length);
    out.set(pat, at);
    return out;
  }

  /**
   * Reads a prebuilt table (views onto `data`, no copy when `data` is 4-byte aligned).
   * @throws Error naming `source` when the magic number, version or sizes do not match.
   */
  static deserialize(data: Uint8Array, source: string): RankTable {
    if (data.byteOffset % 4 !== 0) data = data.slice();
    if (data.length < HEADER_BYTES) throw new Error(`${source}: not a rank table (${data.length} bytes)`);
    const [magic, version, ranks, slotCount, byteCount, patCount] = new Uint32Array(data.buffer, data.byteOffset, 6);
    if (magic !== MAGIC) throw new Error(`${source}: not a rank table (bad magic number)`);
    if (version !== VERSION) throw new Error(`${source}: rank table version ${version}, expected ${VERSION}`);
    const need = HEADER_BYTES + (ranks + 1) * 4 + slotCount * 4 + pad4(byteCount) + patCount;
    if (data.length !== need) throw new Error(`${source}: rank table is ${data.length} bytes, header says ${need}`);
    let at = data.byteOffset + HEADER_BYTES;
    const starts = new Uint32Array(data.buffer, at, ranks + 1);
    at += starts.byteLength;
    const slots = new Int32Array(data.buffer, at, slotCount);
    at += slots.byteLength;
    const bytes = new Uint8Array(data.buffer, at, byteCount);
    at += pad4(byteCount);
    const pattern = new TextDecoder().decode(new Uint8Array(data.buffer, at, patCount));
    return new RankTable(starts, slots, bytes, pattern);
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
    const mask = slotCount - 1;
    for (let r = 0; r <= maxRank; r++) {
      const b = starts[r];
      const e = starts[r + 1];
      if (e === b) continue;
      let h = 0x811c9dc5;
      for (let i = b; i < e; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
      let s = h & mask;
      while (slots[s] !== 0) s = (s + 1) & mask;
      slots[s] = r + 1;
    }
    return built;
  }
}

function pad4(n: number): number {
  return (n + 3) & ~3;
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
