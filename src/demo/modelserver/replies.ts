/**
 * Builders for the loopback model server's replies, and a responder that plays a fixed script.
 */
import type { CompletionReply, Reply, Responder, ReplyToolCall } from './wire';

/** A normal text reply (`finish_reason: stop`). */
export function text(content: string, extra: Omit<CompletionReply, 'type' | 'content'> = {}): CompletionReply {
  return { ...extra, content };
}

/** A text reply streamed in the given pieces, `delayMs` apart. */
export function chunked(
  pieces: string[],
  delayMs = 0,
  extra: Omit<CompletionReply, 'type' | 'chunks'> = {},
): CompletionReply {
  return { ...extra, chunks: pieces, chunkDelayMs: delayMs };
}

/** An assistant message with tool calls (`finish_reason: tool_calls`, `content: null`). */
export function toolCalls(calls: ReplyToolCall[], content: string | null = null): CompletionReply {
  return { content, toolCalls: calls };
}

/** A reply whose message carries the `refusal` field. */
export function refusal(reason: string): CompletionReply {
  return { content: null, refusal: reason };
}

/** An HTTP error; `retryAfterSeconds` adds a `Retry-After` header. */
export function status(code: number, message?: string, retryAfterSeconds?: number): Reply {
  const headers: Record<string, string> = {};
  if (retryAfterSeconds !== undefined) headers['retry-after'] = String(retryAfterSeconds);
  return { type: 'status', status: code, message: message ?? `status ${code}`, headers };
}

/** A 400 `context_length_exceeded` error, as OpenAI returns it for oversized prompts. */
export function contextLengthExceeded(promptTokens: number, window: number): Reply {
  return {
    type: 'status',
    status: 400,
    code: 'context_length_exceeded',
    message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${promptTokens} tokens.`,
  };
}

/**
 * Never finishes. With `chunks` (or `sendHeaders`), a streamed request gets the headers and the chunks
 * first; otherwise nothing at all is sent.
 */
export function stall(chunks: string[] = [], sendHeaders?: boolean): Reply {
  return { type: 'stall', chunks, sendHeaders };
}

/** Valid chunks, then a `data:` line that is not JSON. */
export function malformedSse(chunks: string[] = [], raw = 'data: {"id": "broken", "choices": [\n\n'): Reply {
  return { type: 'malformed', chunks, raw };
}

/** Valid chunks, then the TCP connection is destroyed. */
export function reset(chunks: string[] = [], chunkDelayMs = 0): Reply {
  return { type: 'reset', chunks, chunkDelayMs };
}

/**
 * A responder that answers request `n` with `replies[n - 1]`, repeating the last reply once the script
 * is exhausted. Throws (answered as HTTP 500 by the server) when `replies` is empty.
 */
export function scripted(replies: Reply[]): Responder {
  return (_body, count) => {
    const reply = replies[Math.min(count, replies.length) - 1];
    if (reply === undefined) throw new Error('empty reply script');
    return reply;
  };
}
