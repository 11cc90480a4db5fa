/**
 * Reads a growing JSONL file incrementally: each {@link FileTail.poll} reads only the bytes appended
 * since the last one and returns the complete lines among them. A half-written last line is held back
 * until its newline arrives. A file that was replaced (another inode) or truncated (shorter than what
 * was read) is read again from the start, and the caller is told so it can reset its state.
 * {@link FileTail.pollAsync} reads the same way in pieces, handing the lines of each piece over as it
 * goes, so a large read never holds the host's event loop for more than one piece.
 */
import fs from 'node:fs';

/** What one {@link FileTail.poll} found. */
export interface TailChunk {
  /** Complete new lines (without the newline), in file order; blank lines are dropped. */
  lines: string[];
  /** True when the file was replaced or truncated and `lines` start again from its first line. */
  restarted: boolean;
  /** Bytes read by this poll (the appended bytes only, unless `restarted`). */
  bytesRead: number;
}

/** What one {@link FileTail.pollAsync} found; its lines went to the caller piece by piece. */
export interface TailRead {
  /** True when the file was replaced or truncated since the last read: nothing was read. */
  replaced: boolean;
  /** Complete lines handed over. */
  lines: number;
  /** Bytes read. */
  bytesRead: number;
}

/** Largest single read of {@link FileTail.poll}, in bytes: bounds memory on a large first read. */
const READ_CHUNK = 4 * 1024 * 1024;
/** One piece of {@link FileTail.pollAsync} (bytes): bounds the work between two turns of the event loop. */
const ASYNC_PIECE = 1024 * 1024;
/**
 * Longest line kept (bytes). A longer one cannot be a record anyone reads whole (it would be near the
 * engine's string limit): it is dropped as it streams past and handed over as {@link OVERLONG_LINE},
 * which is not JSON and so is counted as a bad line.
 */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;
/** Stands for a line over {@link MAX_LINE_BYTES}. */
export const OVERLONG_LINE = '<line too long to read>';

/** Identity and size of a file, as `fs.Stats` gives them. */
export interface FileIdentity {
  ino: number;
  size: number;
}

/**
 * Incremental reader of one file. Not thread-safe; one poll at a time. Throws the file system's
 * error (ENOENT, EACCES) from {@link poll} when the file cannot be opened.
 */
export class FileTail {
  private offset = 0;
  private inode: number | undefined;
  /** The start of a line whose newline has not been read yet, in pieces. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** True while the line being read is over {@link MAX_LINE_BYTES} (its bytes are dropped). */
  private overlong = false;
  /** Total bytes read since construction (for measuring that reads stay proportional to appends). */
  totalBytesRead = 0;

  /** @param startAt byte offset to start from (0 reads the whole file on the first poll) */
  constructor(
    readonly file: string,
    startAt = 0,
  ) {
    this.offset = startAt;
  }

  /** Byte offset up to which complete lines have been returned. */
  get position(): number {
    return this.offset - this.pendingBytes;
  }

  /** True when `st` is another file than the one read, or shorter than what was read. */
  replacedBy(st: FileIdentity): boolean {
    return (this.inode !== undefined && st.ino !== this.inode) || st.size < this.offset;
  }

  /** Reads from `offset` (a line start) of the file with inode `ino` on the next poll, forgetting the rest. */
  restartAt(offset: number, ino: number): void {
    this.offset = offset;
    this.inode = ino;
    this.clearPending();
  }

  /** Reads what was appended since the last poll. */
  poll(): TailChunk {
    const fd = fs.openSync(this.file, 'r');
    try {
      const st = fs.fstatSync(fd);
      let restarted = false;
      if (this.replacedBy(st)) {
        this.offset = 0;
        this.clearPending();
        restarted = this.inode !== undefined || this.totalBytesRead > 0;
      }
      this.inode = st.ino;
      const lines: string[] = [];
      let bytesRead = 0;
      while (this.offset < st.size) {
        const want = Math.min(READ_CHUNK, st.size - this.offset);
        const buf = Buffer.allocUnsafe(want);
        const n = fs.readSync(fd, buf, 0, want, this.offset);
        if (n <= 0) break;
        this.offset += n;
        bytesRead += n;
        for (const line of this.take(buf.subarray(0, n))) lines.push(line);
      }
      this.totalBytesRead += bytesRead;
      return { lines, restarted, bytesRead };
    } finally {
      fs.closeSync(fd);
    }
  }

  /**
   * Reads what was appended since the last read, asynchronously, in pieces of at most 1 MiB; the
   * complete lines of each piece go to `onLines` as soon as it is read. When the file was replaced or
   * truncated nothing is read (`replaced`): the caller decides where to start again ({@link restartAt}).
   * @throws the file system's error (ENOENT, EACCES) when the file cannot be opened or read
   */
  async pollAsync(onLines: (lines: string[]) => void): Promise<TailRead> {
    const handle = await fs.promises.open(this.file, 'r');
    try {
      const st = await handle.stat();
      if (this.replacedBy(st)) return { replaced: true, lines: 0, bytesRead: 0 };
      this.inode = st.ino;
      let bytesRead = 0;
      let count = 0;
      const buf = Buffer.allocUnsafe(Math.min(ASYNC_PIECE, Math.max(1, st.size - this.offset)));
      while (this.offset < st.size) {
        const want = Math.min(buf.length, st.size - this.offset);
        const { bytesRead: n } = await handle.read(buf, 0, want, this.offset);
        if (n <= 0) break;
        this.offset += n;
        bytesRead += n;
        this.totalBytesRead += n;
        const lines = this.take(buf.subarray(0, n));
        count += lines.length;
        if (lines.length) onLines(lines);
      }
      return { replaced: false, lines: count, bytesRead };
    } finally {
      await handle.close();
    }
  }

  private clearPending(): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.overlong = false;
  }

  /** The complete lines `bytes` ends (with what was held back before them); keeps a copy of the rest. */
  private take(bytes: Buffer): string[] {
    const lines: string[] = [];
    const first = bytes.indexOf(0x0a);
    if (first < 0) {
      this.hold(bytes);
      return lines;
    }
    let from = 0;
    if (this.pendingBytes || this.overlong) {
      // The held-back line ends in this piece.
      if (this.overlong || this.pendingBytes + first > MAX_LINE_BYTES) lines.push(OVERLONG_LINE);
      else splitLines(Buffer.concat([...this.pending, bytes.subarray(0, first)]), lines);
      this.clearPending();
      from = first + 1;
    }
    const last = bytes.lastIndexOf(0x0a);
    if (last >= from) splitLines(bytes.subarray(from, last), lines);
    this.hold(bytes.subarray(last + 1));
    return lines;
  }

  /** Keeps the start of a line whose newline is still to come (a copy: the read buffer is reused). */
  private hold(rest: Buffer): void {
    if (!rest.length || this.overlong) return;
    if (this.pendingBytes + rest.length > MAX_LINE_BYTES) {
      this.pending = [];
      this.pendingBytes = 0;
      this.overlong = true;
      return;
    }
    this.pending.push(Buffer.from(rest));
    this.pendingBytes += rest.length;
  }
}

/** Adds the lines of `bytes` (no trailing partial line) to `out`: without `\r`, blank ones dropped. */
function splitLines(bytes: Buffer, out: string[]): void {
  if (!bytes.length) return;
  for (const raw of bytes.toString('utf8').split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() !== '') out.push(line);
  }
}
