/**
 * Reads a growing JSONL file incrementally: each {@link FileTail.poll} reads only the bytes appended
 * since the last one and returns the complete lines among them. A half-written last line is held back
 * until its newline arrives. A file that was replaced (another inode) or truncated (shorter than what
 * was read) is read again from the start, and the caller is told so it can reset its state.
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

/** Largest single read, in bytes: bounds memory on a first read of a very large file. */
const READ_CHUNK = 4 * 1024 * 1024;

/**
 * Incremental reader of one file. Not thread-safe; one poll at a time. Throws the file system's
 * error (ENOENT, EACCES) from {@link poll} when the file cannot be opened.
 */
export class FileTail {
  private offset = 0;
  private inode: number | undefined;
  private pending: Buffer = Buffer.alloc(0);
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
    return this.offset - this.pending.length;
  }

  /** Reads what was appended since the last poll. */
  poll(): TailChunk {
    const fd = fs.openSync(this.file, 'r');
    try {
      const st = fs.fstatSync(fd);
      let restarted = false;
      if ((this.inode !== undefined && st.ino !== this.inode) || st.size < this.offset) {
        this.offset = 0;
        this.pending = Buffer.alloc(0);
        restarted = this.inode !== undefined || this.totalBytesRead > 0;
      }
      this.inode = st.ino;
      const parts: Buffer[] = this.pending.length ? [this.pending] : [];
      let bytesRead = 0;
      while (this.offset < st.size) {
        const want = Math.min(READ_CHUNK, st.size - this.offset);
        const buf = Buffer.allocUnsafe(want);
        const n = fs.readSync(fd, buf, 0, want, this.offset);
        if (n <= 0) break;
        parts.push(n === want ? buf : buf.subarray(0, n));
        this.offset += n;
        bytesRead += n;
      }
      this.totalBytesRead += bytesRead;
      const all = parts.length === 1 ? parts[0] : Buffer.concat(parts);
      const lastNewline = all.lastIndexOf(0x0a);
      if (lastNewline < 0) {
        this.pending = all;
        return { lines: [], restarted, bytesRead };
      }
      // Copy the held-back tail so the large buffer can be freed.
      this.pending = Buffer.from(all.subarray(lastNewline + 1));
      const lines = all
        .subarray(0, lastNewline)
        .toString('utf8')
        .split('\n')
        .map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l))
        .filter((l) => l.trim() !== '');
      return { lines, restarted, bytesRead };
    } finally {
      fs.closeSync(fd);
    }
  }
}
