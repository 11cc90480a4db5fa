/**
 * Where the first read of a session file starts. A small file is read whole. A large one is read from
 * the agent's last compaction (Claude Code's `compact_boundary` record, Codex's `compacted` record),
 * found by walking the file's lines backwards from its end in bounded pieces: what lies before it is no
 * longer in the agent's context, so it is never read. A file with no compaction in its last
 * {@link FOLLOW_LIMIT_BYTES} is read from the first line that starts within them. The few records
 * before the start that still describe the session (the model, Codex's instructions, window and turn
 * context) are picked up on the way, also in bounded pieces.
 *
 * The walk is written once as a generator of read requests, driven either by synchronous reads (the
 * command line) or by asynchronous ones that leave the host's event loop free between pieces.
 */
import fs from 'node:fs';
import { parseJsonObject } from '../format/json';
import type { WatchedFormat } from './formats';
import { SYNTHETIC_MODEL } from '../transcripts/formats/claude-code';

/** Files up to this size (bytes) are read whole, so their whole history (every compaction) shows. */
export const WHOLE_FILE_BYTES = 8 * 1024 * 1024;
/**
 * Most bytes before the end searched for the last compaction, and so most bytes of the context read on
 * a first follow (bytes). An agent's context after its last compaction is far smaller than this, even
 * with the side data its records carry.
 */
export const FOLLOW_LIMIT_BYTES = 16 * 1024 * 1024;
/** Most bytes before the start searched for the records that name the model and window. */
const CONTEXT_LIMIT_BYTES = 8 * 1024 * 1024;
/** Largest read of the walk (bytes). */
const PIECE_BYTES = 1024 * 1024;
/** First read of a walk (bytes); each next one is twice as large, up to {@link PIECE_BYTES}. */
const FIRST_PIECE_BYTES = 64 * 1024;
/** A line longer than this (bytes) is passed over by the walk, never held whole. */
const MAX_SCANNED_LINE_BYTES = 8 * 1024 * 1024;
/** Most bytes read for a Codex file's first line (its instructions). */
const MAX_HEAD_BYTES = 4 * 1024 * 1024;

/** Where a first read starts and what it found before that point. */
export interface FollowStart {
  /** Byte offset of the first line to read (a line start). */
  offset: number;
  /** Why it starts there: the whole file, the agent's last compaction, or the size limit. */
  reason: 'whole' | 'compaction' | 'limit';
  /**
   * Records from before `offset` that still hold for the session, oldest first: the newest one naming
   * the model, and for Codex the session's first record, its newest turn context and recorded window.
   */
  contextLines: string[];
  /** Bytes read to decide (the walk and the context records). */
  bytesRead: number;
}

/** One read the walk asks for. */
interface ReadRequest {
  position: number;
  length: number;
}

type Walk<T> = Generator<ReadRequest, T, Buffer>;

/** What a backward walk visits: a complete line (without its newline) and its byte offset. */
type Visit = (line: Buffer, start: number) => boolean;

/**
 * Walks the complete lines that end at or before `end`, newest first, down to `end - limit`; stops when
 * `visit` returns true. Holds at most one piece plus one line (lines over
 * {@link MAX_SCANNED_LINE_BYTES} are passed over unvisited).
 * @returns the offset of the line `visit` accepted, and the lowest line start reached
 */
function* backwardLines(end: number, limit: number, visit: Visit): Walk<{ found?: number; lowest: number }> {
  const floor = Math.max(0, end - limit);
  let pos = end;
  let lowest = end;
  /** Bytes from `pos` to the end of the line that starts before `pos` (not yet complete). */
  let carry: Buffer = Buffer.alloc(0);
  let overlong = false;
  let piece = FIRST_PIECE_BYTES;
  while (pos > floor) {
    const length = Math.min(piece, pos - floor);
    piece = Math.min(piece * 2, PIECE_BYTES);
    const read = yield { position: pos - length, length };
    // Shorter than asked: the file was truncated meanwhile; the next read starts again anyway.
    if (read.length < length) return { lowest };
    pos -= length;
    const data = carry.length ? Buffer.concat([read, carry]) : read;
    let lineEnd = data.length;
    let nl = data.lastIndexOf(0x0a, lineEnd - 1);
    while (nl >= 0) {
      const line = data.subarray(nl + 1, lineEnd);
      if (overlong) overlong = false;
      else if (line.length && visit(line, pos + nl + 1)) return { found: pos + nl + 1, lowest: pos + nl + 1 };
      lowest = pos + nl + 1;
      lineEnd = nl;
      nl = lineEnd > 0 ? data.lastIndexOf(0x0a, lineEnd - 1) : -1;
    }
    carry = Buffer.from(data.subarray(0, lineEnd));
    if (carry.length > MAX_SCANNED_LINE_BYTES) {
      carry = Buffer.alloc(0);
      overlong = true;
    }
  }
  if (pos === 0 && !overlong) {
    if (carry.length && visit(carry, 0)) return { found: 0, lowest: 0 };
    lowest = 0;
  }
  return { lowest };
}

/** The first line of the file (up to {@link MAX_HEAD_BYTES}), or undefined when it is longer. */
function* firstLine(size: number): Walk<Buffer | undefined> {
  let have = Buffer.alloc(0);
  let next = FIRST_PIECE_BYTES;
  while (have.length < Math.min(size, MAX_HEAD_BYTES)) {
    const length = Math.min(next, size - have.length, MAX_HEAD_BYTES - have.length);
    next = Math.min(next * 2, PIECE_BYTES);
    const piece = yield { position: have.length, length };
    if (!piece.length) break;
    const nl = piece.indexOf(0x0a);
    if (nl >= 0) return Buffer.concat([have, piece.subarray(0, nl)]);
    have = Buffer.concat([have, piece]);
  }
  return have.length === size ? have : undefined;
}

/** The byte pattern a compaction record holds, and the test of the parsed record. */
function isCompactionLine(line: Buffer, format: WatchedFormat): boolean {
  const marker = format === 'claude-code' ? '"compact_boundary"' : '"compacted"';
  const at = line.indexOf(marker);
  // Inside a JSON string the quotes would be escaped: a cheap test before parsing the line.
  if (at < 0 || (at > 0 && line[at - 1] === 0x5c)) return false;
  const rec = parseJsonObject(line.toString('utf8'));
  if (!rec) return false;
  return format === 'claude-code'
    ? rec.type === 'system' && rec.subtype === 'compact_boundary'
    : rec.type === 'compacted';
}

/** The kinds of record before the start that still describe the session, newest of each kind wanted. */
function contextKinds(format: WatchedFormat): ((rec: Record<string, unknown>) => boolean)[] {
  if (format === 'claude-code') {
    // A synthetic reply (an interruption, an API error written by the agent) names no real model.
    const model = (r: Record<string, unknown>) => (r.message as Record<string, unknown> | undefined)?.model;
    return [
      (r) =>
        r.type === 'assistant' &&
        typeof model(r) === 'string' &&
        model(r) !== SYNTHETIC_MODEL &&
        r.isSidechain !== true,
    ];
  }
  const payload = (r: Record<string, unknown>) => r.payload as Record<string, unknown> | undefined;
  return [
    (r) => r.type === 'turn_context',
    (r) => {
      const p = payload(r);
      return (
        p?.type === 'token_count' &&
        typeof (p.info as Record<string, unknown> | undefined)?.model_context_window === 'number'
      );
    },
  ];
}

/** Quick byte tests before a line is parsed for {@link contextKinds}. */
const CONTEXT_BYTES: Record<WatchedFormat, string[]> = {
  'claude-code': ['"model"'],
  codex: ['"turn_context"', '"model_context_window"'],
};

function* locate(size: number, format: WatchedFormat): Walk<FollowStart> {
  if (size <= WHOLE_FILE_BYTES) return { offset: 0, reason: 'whole', contextLines: [], bytesRead: 0 };
  const walk = backwardLines(size, FOLLOW_LIMIT_BYTES, (line) => isCompactionLine(line, format));
  const { found, lowest } = yield* walk;
  const offset = found ?? lowest;
  const reason = found !== undefined ? 'compaction' : 'limit';
  const contextLines: string[] = [];
  if (offset > 0) {
    const kinds = contextKinds(format);
    const wanted = new Set(kinds.keys());
    yield* backwardLines(offset, CONTEXT_LIMIT_BYTES, (line) => {
      if (!CONTEXT_BYTES[format].some((b) => line.includes(b))) return false;
      const text = line.toString('utf8');
      const rec = parseJsonObject(text);
      if (!rec) return false;
      for (const k of wanted) {
        if (kinds[k](rec)) {
          wanted.delete(k);
          contextLines.unshift(text);
        }
      }
      return wanted.size === 0;
    });
    if (format === 'codex') {
      const head = yield* firstLine(size);
      if (head) contextLines.unshift(head.toString('utf8'));
    }
  }
  return { offset, reason, contextLines, bytesRead: 0 };
}

/**
 * Where to start the first read of `file` (see the module comment), reading synchronously.
 * @param size the file's size in bytes, as just seen
 * @throws the file system's error when the file cannot be read
 */
export function findFollowStartSync(file: string, format: WatchedFormat, size: number): FollowStart {
  const count = { bytes: 0 };
  const walk = locate(size, format);
  const fd = fs.openSync(file, 'r');
  try {
    let step = walk.next(Buffer.alloc(0));
    while (!step.done) {
      const buf = Buffer.allocUnsafe(step.value.length);
      const n = fs.readSync(fd, buf, 0, step.value.length, step.value.position);
      count.bytes += n;
      step = walk.next(buf.subarray(0, n));
    }
    return { ...step.value, bytesRead: count.bytes };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Where to start the first read of `file` (see the module comment). Each piece is read
 * asynchronously, so the event loop runs between pieces; the work per piece is a search of at most
 * one piece and one line.
 * @param size the file's size in bytes, as just seen
 * @throws the file system's error when the file cannot be read
 */
export async function findFollowStart(file: string, format: WatchedFormat, size: number): Promise<FollowStart> {
  const count = { bytes: 0 };
  const walk = locate(size, format);
  let step = walk.next(Buffer.alloc(0));
  if (step.done) return step.value;
  const handle = await fs.promises.open(file, 'r');
  try {
    while (!step.done) {
      const buf = Buffer.allocUnsafe(step.value.length);
      const { bytesRead } = await handle.read(buf, 0, step.value.length, step.value.position);
      count.bytes += bytesRead;
      step = walk.next(buf.subarray(0, bytesRead));
    }
    return { ...step.value, bytesRead: count.bytes };
  } finally {
    await handle.close();
  }
}
