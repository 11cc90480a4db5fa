/**
 * What the loopback model server receives and answers: the request body as received, and the
 * replies a {@link Responder} can choose (ordinary completions and faults).
 */

/** The JSON body of a chat-completions request, as received. */
export interface ChatRequestBody {
  model?: string;
  messages?: unknown[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: unknown[];
  [field: string]: unknown;
}

/** One request as the server saw it. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or `undefined` when the body was not JSON. */
  body: ChatRequestBody | undefined;
  /** Milliseconds since the server started. */
  atMs: number;
}

/** A tool call the model makes. `arguments` is the JSON text, as in the API. */
export interface ReplyToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** Token usage reported with a reply; estimated (characters / 4) when absent. */
export interface ReplyUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** OpenAI's breakdown of the prompt tokens: `cached_tokens` were read from the provider's prompt cache. */
  prompt_tokens_details?: { cached_tokens: number };
}

/** An ordinary completion (HTTP 200). */
export interface CompletionReply {
  type?: 'completion';
  /** Message text; `null` for none. Default `''`. */
  content?: string | null;
  /**
   * For streamed requests: the content pieces, one SSE chunk each (they should join to `content`;
   * when `content` is absent it is their concatenation). Default: `content` in pieces of ~16 characters.
   */
  chunks?: string[];
  /** Delay before each streamed chunk, in milliseconds. Default 0. */
  chunkDelayMs?: number;
  /** Delay before the response starts, in milliseconds. Default 0. */
  delayMs?: number;
  toolCalls?: ReplyToolCall[];
  /** Default `stop`, or `tool_calls` when there are tool calls. */
  finishReason?: 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';
  /** The `refusal` field of the message. */
  refusal?: string;
  /** DeepSeek-style reasoning text, sent as `reasoning_content`. */
  reasoningContent?: string;
  usage?: ReplyUsage;
  /** Model name in the reply. Default: the request's `model`. */
  model?: string;
  headers?: Record<string, string>;
  /** Answer a streamed request with one JSON completion, as some OpenAI-compatible servers do. */
  ignoresStream?: boolean;
}

/** An HTTP error status (429 with `Retry-After`, 500, 400 context-length errors…). */
export interface StatusReply {
  type: 'status';
  status: number;
  /** JSON body; default `{error: {message, type, code}}` built from `message`. */
  body?: unknown;
  message?: string;
  /** Error code in the default body (for example `context_length_exceeded`). */
  code?: string;
  headers?: Record<string, string>;
  delayMs?: number;
}

/**
 * Never finishes. For a streamed request with `sendHeaders` (default: when `chunks` is non-empty), the
 * status, headers and `chunks` are sent first; otherwise nothing is sent. The connection stays open
 * until the client gives up or the server closes.
 */
export interface StallReply {
  type: 'stall';
  chunks?: string[];
  chunkDelayMs?: number;
  sendHeaders?: boolean;
}

/** Sends `chunks` as valid SSE, then `raw` verbatim (for example `data: {not json\n\n`), then ends. */
export interface MalformedReply {
  type: 'malformed';
  chunks?: string[];
  /** Raw bytes written after the valid chunks. For a JSON request: the whole (invalid) 200 body. */
  raw: string;
}

/** Sends `chunks` as valid SSE (or nothing for a JSON request), then destroys the TCP connection. */
export interface ResetReply {
  type: 'reset';
  chunks?: string[];
  chunkDelayMs?: number;
}

/** What the server answers to one chat-completions request. */
export type Reply = CompletionReply | StatusReply | StallReply | MalformedReply | ResetReply;

/**
 * Decides the reply to a request.
 * @param body The parsed request body.
 * @param count 1-based number of this chat-completions request since the server started.
 */
export type Responder = (body: ChatRequestBody, count: number) => Reply | Promise<Reply>;
