/**
 * The bytes of a Chat Completions request body, assembled from each message's JSON built once.
 *
 * Serialising the whole request on every model call costs time proportional to the context on the
 * extension host (a 1M-token context is a 3.8 MB body: `JSON.stringify`, the HTTP client's string
 * conversion and UTF-8 encoding, about 35 ms a call). Messages never change once appended (a
 * compaction replaces items with new messages, it does not edit them), so each message's UTF-8 JSON
 * is made the first time it is sent and reused: a call then serialises only the small request
 * fields and copies bytes.
 */
import type { ChatMessage } from '../compaction/types';

const COMMA = 0x2c;

/** Caches each message's wire JSON (UTF-8) and assembles request bodies from it. One per conversation. */
export class RequestBodyCache {
  /** Wire JSON by message object; pruned to the messages of the latest request when it grows. */
  private wire = new Map<ChatMessage, Buffer>();
  /** The messages of the latest body, and where each one's JSON ends in {@link buffer}. */
  private last: readonly ChatMessage[] = [];
  private ends: number[] = [];
  /** The latest body, at the start of a buffer with room to grow; the next body is written over it. */
  private buffer: Buffer = Buffer.alloc(0);
  /** The request fields that open the latest body (`{"model":…,"messages":[`). */
  private open: Buffer = Buffer.alloc(0);

  /** Messages whose JSON is cached (for tests and benchmarks). */
  get size(): number {
    return this.wire.size;
  }

  /**
   * The UTF-8 JSON body of a request with `fields` (model, tools, stream, …; any `messages` field
   * is ignored) and `messages`, byte for byte what `JSON.stringify({...fields, messages})` encodes
   * except that `messages` comes last. `messages` must not be changed after they are first sent
   * (the cached JSON would go stale); the caller keeps them immutable.
   *
   * The body is written over the previous one, in the same memory: the messages the previous body
   * began with stay where they are (a conversation grows at its end) and only what follows them is
   * written, so a call costs what is new, not the whole context. The returned bytes are therefore
   * valid until the next call: the HTTP client must have taken them by then (the `openai` client's
   * fetch copies a body when the request is made).
   */
  body(fields: Readonly<Record<string, unknown>>, messages: readonly ChatMessage[]): Buffer {
    const head = JSON.stringify({ ...fields, messages: undefined });
    const open = Buffer.from(`${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"messages":[`, 'utf8');
    // The messages this request shares with the previous one, from the start (none when the
    // request fields changed: they come first).
    let kept = 0;
    if (open.equals(this.open)) {
      const shared = Math.min(messages.length, this.last.length);
      while (kept < shared && messages[kept] === this.last[kept]) kept++;
    }
    const keptEnd = kept > 0 ? this.ends[kept - 1] : open.length;
    // Messages left out of every request since the last prune (compacted away) are let go once
    // they outnumber the ones sent; the prune is linear in messages, so amortised constant per call.
    const prune = this.wire.size > 2 * messages.length + 64;
    const next = prune ? new Map<ChatMessage, Buffer>() : this.wire;
    if (prune) for (let i = 0; i < kept; i++) next.set(messages[i], this.wire.get(messages[i])!);
    const pieces = new Array<Buffer>(messages.length - kept);
    let total = keptEnd + CLOSE.length;
    for (let i = kept; i < messages.length; i++) {
      const m = messages[i];
      let piece = this.wire.get(m);
      if (piece === undefined) {
        piece = Buffer.from(JSON.stringify(m), 'utf8');
        next.set(m, piece);
      } else if (prune) next.set(m, piece);
      pieces[i - kept] = piece;
      total += (i > 0 ? 1 : 0) + piece.length;
    }
    this.wire = next;
    if (total > this.buffer.length) {
      // Room for the conversation to grow by a quarter before the next copy.
      const grown = Buffer.allocUnsafe(total + (total >> 2) + 65_536);
      this.buffer.copy(grown, 0, 0, kept > 0 ? keptEnd : 0);
      this.buffer = grown;
    }
    const out = this.buffer;
    if (kept === 0) open.copy(out, 0);
    const ends = this.ends;
    ends.length = kept;
    let at = keptEnd;
    for (let i = kept; i < messages.length; i++) {
      if (i > 0) out[at++] = COMMA;
      const piece = pieces[i - kept];
      out.set(piece, at);
      at += piece.length;
      ends.push(at);
    }
    CLOSE.copy(out, at);
    this.last = messages.slice();
    this.open = open;
    return out.subarray(0, total);
  }
}

/** The end of every body: the messages list and the object. */
const CLOSE = Buffer.from(']}', 'utf8');
