/**
 * One summarizer request over the `openai` client, read into a {@link RawReply}: as one JSON
 * completion, or as a stream of server-sent events with an idle timer (the SDK's timeout ends once
 * the headers arrive, so a body that stalls needs its own).
 */
import type OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParams,
} from 'openai/resources/chat/completions';
import type { RawReply } from './reply';
import type { Watchdog } from './watchdog';

/**
 * Sends `params` without streaming and reads the first choice.
 * @param timeoutMs Milliseconds to wait for the response (per attempt). Throws what the SDK throws.
 */
export async function jsonReply(
  client: OpenAI,
  params: ChatCompletionCreateParams,
  watch: Watchdog,
  timeoutMs: number,
  maxRetries: number,
): Promise<RawReply> {
  const completion = await client.chat.completions.create(
    { ...params, stream: false },
    { signal: watch.signal, timeout: timeoutMs, maxRetries },
  );
  return replyOfCompletion(completion);
}

/** A whole completion's first choice as a {@link RawReply}. */
function replyOfCompletion(completion: ChatCompletion): RawReply {
  const choice = completion.choices[0];
  const message = choice?.message;
  return {
    text: typeof message?.content === 'string' ? message.content : '',
    finishReason: choice?.finish_reason ?? null,
    toolCalls: message?.tool_calls?.length ?? 0,
    refusal: message?.refusal ?? '',
    model: completion.model,
    promptTokens: completion.usage?.prompt_tokens,
    completionTokens: completion.usage?.completion_tokens,
    cachedTokens: completion.usage?.prompt_tokens_details?.cached_tokens,
  };
}

/**
 * Sends `params` streamed and gathers the deltas (each text delta also goes to `onDelta`).
 * A server that answers with one JSON completion (`Content-Type: application/json`) instead of a stream
 * is read as that completion.
 * @param timeoutMs Milliseconds to wait for the headers, and the longest silence between two events;
 *   the watchdog fires `idle` past it. A stream that ends without a finish reason is marked `incomplete`.
 */
export async function streamedReply(
  client: OpenAI,
  params: ChatCompletionCreateParams,
  watch: Watchdog,
  timeoutMs: number,
  maxRetries: number,
  onDelta: ((text: string) => void) | undefined,
): Promise<RawReply> {
  const request = client.chat.completions.create(
    { ...params, stream: true, stream_options: { include_usage: true } },
    { signal: watch.signal, timeout: timeoutMs, maxRetries },
  );
  let stream: AsyncIterable<ChatCompletionChunk>;
  // The editor-model adapter speaks the client's shape without HTTP: it has no response to look at.
  if (typeof (request as Partial<typeof request>).withResponse === 'function') {
    const { data, response } = await request.withResponse();
    // Some OpenAI-compatible servers ignore `stream: true` and answer with one JSON completion; the
    // SDK would read that body as an event stream holding no events.
    if (/^application\/json\b/i.test(response.headers.get('content-type') ?? '')) {
      return replyOfCompletion((await response.json()) as ChatCompletion);
    }
    stream = data;
  } else stream = await request;
  const reply: RawReply = { text: '', finishReason: null, toolCalls: 0, refusal: '' };
  let idle = watch.arm(timeoutMs, 'idle');
  try {
    for await (const chunk of stream) {
      clearTimeout(idle);
      idle = watch.arm(timeoutMs, 'idle');
      if (chunk.model) reply.model = chunk.model;
      if (chunk.usage) {
        reply.promptTokens = chunk.usage.prompt_tokens;
        reply.completionTokens = chunk.usage.completion_tokens;
        reply.cachedTokens = chunk.usage.prompt_tokens_details?.cached_tokens;
      }
      const choice = chunk.choices[0];
      if (choice === undefined) continue;
      const delta = choice.delta;
      if (typeof delta.content === 'string' && delta.content.length > 0) {
        reply.text += delta.content;
        try {
          onDelta?.(delta.content);
        } catch {
          // Progress display must not break the summary.
        }
      }
      if (typeof delta.refusal === 'string') reply.refusal += delta.refusal;
      if (delta.tool_calls !== undefined && delta.tool_calls.length > 0)
        reply.toolCalls += delta.tool_calls.filter((c) => c.id !== undefined).length || 1;
      if (choice.finish_reason) reply.finishReason = choice.finish_reason;
    }
  } finally {
    clearTimeout(idle);
  }
  // The SDK ends iteration quietly when the request is aborted; the watchdog knows why.
  watch.throwIfFired();
  if (reply.finishReason === null) reply.incomplete = true;
  return reply;
}
