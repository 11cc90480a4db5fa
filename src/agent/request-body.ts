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

  /** Messages whose JSON is cached (for tests and benchmarks). */
  get size(): number {
    return this.wire.size;
  }

  /**
   * The UTF-8 JSON body of a request with `fields` (model, tools, stream, …; any `messages` field
   * is ignored) and `messages`, byte for byte what `JSON.stringify({...fields, messages})` encodes
   * except that `messages` comes last. `messages` must not be changed after they are first sent
   * (the cached JSON would go stale); the caller keeps them immutable.
   */
  body(fields: Readonly<Record<string, unknown>>, messages: readonly ChatMessage[]): Buffer {
    const head = JSON.stringify({ ...fields, messages: undefined });
    const open = Buffer.from(`${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"messages":[`, 'utf8');
    const close = Buffer.from(']}', 'utf8');
    // Messages left out of every request since the last prune (compacted away) are let go once
    // they outnumber the ones sent; the prune is linear in messages, so amortised constant per call.
    const prune = this.wire.size > 2 * messages.length + 64;
    const next = prune ? new Map<ChatMessage, Buffer>() : this.wire;
    const pieces = new Array<Buffer>(messages.length);
    let total = open.length + close.length + Math.max(0, messages.length - 1);
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i];
      let piece = this.wire.get(m);
      if (piece === undefined) {
        piece = Buffer.from(JSON.stringify(m), 'utf8');
        next.set(m, piece);
      } else if (prune) next.set(m, piece);
      pieces[i] = piece;
      total += piece.length;
    }
    this.wire = next;
    const out = Buffer.allocUnsafe(total);
    let at = open.copy(out, 0);
    for (let i = 0; i < pieces.length; i++) {
      if (i > 0) out[at++] = COMMA;
      at += pieces[i].copy(out, at);
    }
    close.copy(out, at);
    return out;
  }
}
