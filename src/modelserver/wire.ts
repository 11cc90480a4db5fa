/**
 * A minimal OpenAI-compatible model server on the loopback interface, for tests and the demo.
 *
 * Serves `POST /v1/chat/completions` (JSON replies, and server-sent events for `stream: true`, ending
 * with `data: [DONE]`, with a usage chunk when `stream_options.include_usage` is set) and
 * `GET /v1/models`. What it answers is decided by a {@link Responder}: ordinary replies (text, streamed
 * chunks with delays, tool calls, any `finish_reason`, a refusal) and faults (an HTTP status with
 * headers, a stall, malformed SSE, a connection reset mid-stream).
 *
 * Binds 127.0.0.1 only; the port is assigned by the OS unless given.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

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

export interface ModelServerOptions {
  responder: Responder;
  /** Port to bind; 0 (default) lets the OS assign one. */
  port?: number;
  /** Model ids listed by `GET /v1/models`. Default `['loopback-model']`. */
  models?: string[];
}

/** A running server. */
export interface ModelServer {
  /** Base URL for an OpenAI client, ending in `/v1`. */
  url: string;
  port: number;
  /** Bodies of chat-completions requests, in arrival order. */
  requests: ChatRequestBody[];
  /** Every request (any path), in arrival order. */
  log: RecordedRequest[];
  /** Stops listening and destroys open connections (stalled ones included). */
  close(): Promise<void>;
}

/** Characters per content piece when `chunks` is not given. */
const DEFAULT_CHUNK_CHARS = 16;

/**
 * Starts the server on 127.0.0.1.
 * @returns The running server once it listens. Rejects when the port cannot be bound.
 */
export async function start(options: ModelServerOptions): Promise<ModelServer> {
  const started = Date.now();
  const requests: ChatRequestBody[] = [];
  const log: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let completions = 0;
  let sequence = 0;

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      // A responder bug must not hang the client: answer 500 when still possible.
      if (!res.headersSent) sendJson(res, 500, errorBody(`model server: ${String(error)}`, 'server_error'));
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    let body: ChatRequestBody | undefined;
    try {
      body = text.length > 0 ? (JSON.parse(text) as ChatRequestBody) : undefined;
    } catch {
      body = undefined;
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    log.push({ method: req.method ?? 'GET', path, headers: { ...req.headers }, body, atMs: Date.now() - started });

    if (req.method === 'GET' && path === '/v1/models') {
      const ids = options.models ?? ['loopback-model'];
      sendJson(res, 200, { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 0, owned_by: 'loopback' })) });
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      sendJson(res, 404, errorBody(`no route for ${req.method ?? ''} ${path}`, 'not_found'));
      return;
    }
    if (body === undefined || typeof body !== 'object') {
      sendJson(res, 400, errorBody('request body is not JSON', 'invalid_request_error'));
      return;
    }
    requests.push(body);
    completions += 1;
    const reply = await options.responder(body, completions);
    sequence += 1;
    await respond(res, body, reply, `chatcmpl-loopback-${sequence}`);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function respond(res: ServerResponse, body: ChatRequestBody, reply: Reply, id: string): Promise<void> {
  const streamed = body.stream === true;
  switch (reply.type) {
    case 'status': {
      await sleep(reply.delayMs ?? 0);
      const payload = reply.body ?? errorBody(reply.message ?? `status ${reply.status}`, errorType(reply.status), reply.code);
      sendJson(res, reply.status, payload, reply.headers);
      return;
    }
    case 'stall': {
      if (streamed && (reply.sendHeaders ?? (reply.chunks ?? []).length > 0)) {
        startSse(res);
        for (const piece of reply.chunks ?? []) {
          await sleep(reply.chunkDelayMs ?? 0);
          if (!writeEvent(res, chunk(id, body, { content: piece }, null))) return;
        }
      }
      // Leave the response open; the client's timeout or the server's close ends it.
      return;
    }
    case 'malformed': {
      if (!streamed) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(reply.raw);
        return;
      }
      startSse(res);
      for (const piece of reply.chunks ?? []) writeEvent(res, chunk(id, body, { content: piece }, null));
      res.end(reply.raw);
      return;
    }
    case 'reset': {
      if (streamed) {
        startSse(res);
        writeEvent(res, chunk(id, body, { role: 'assistant', content: '' }, null));
        for (const piece of reply.chunks ?? []) {
          await sleep(reply.chunkDelayMs ?? 0);
          if (!writeEvent(res, chunk(id, body, { content: piece }, null))) return;
        }
        // Let the written chunks reach the client before the connection drops.
        await sleep(10);
      }
      res.socket?.destroy();
      return;
    }
    default:
      await sleep(reply.delayMs ?? 0);
      if (streamed) await streamCompletion(res, body, reply, id);
      else sendCompletion(res, body, reply, id);
  }
}

function sendCompletion(res: ServerResponse, body: ChatRequestBody, reply: CompletionReply, id: string): void {
  const content = reply.content !== undefined ? reply.content : (reply.chunks ?? []).join('');
  const message: Record<string, unknown> = {
    role: 'assistant',
    content,
    refusal: reply.refusal ?? null,
  };
  if (reply.reasoningContent !== undefined) message['reasoning_content'] = reply.reasoningContent;
  if (reply.toolCalls !== undefined && reply.toolCalls.length > 0) {
    message['tool_calls'] = reply.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  sendJson(
    res,
    200,
    {
      id,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: reply.model ?? body.model ?? 'loopback-model',
      choices: [{ index: 0, message, finish_reason: finishReason(reply), logprobs: null }],
      usage: usageOf(body, reply, content ?? ''),
    },
    reply.headers,
  );
}

async function streamCompletion(res: ServerResponse, body: ChatRequestBody, reply: CompletionReply, id: string): Promise<void> {
  const content = reply.content !== undefined ? reply.content : (reply.chunks ?? []).join('');
  const pieces = reply.chunks ?? splitPieces(content ?? '');
  const model = reply.model ?? body.model ?? 'loopback-model';
  startSse(res, reply.headers);
  const delay = reply.chunkDelayMs ?? 0;
  if (!writeEvent(res, chunk(id, body, { role: 'assistant', content: '' }, null, model))) return;
  if (reply.reasoningContent !== undefined) {
    if (!writeEvent(res, chunk(id, body, { reasoning_content: reply.reasoningContent }, null, model))) return;
  }
  for (const piece of pieces) {
    await sleep(delay);
    if (!writeEvent(res, chunk(id, body, { content: piece }, null, model))) return;
  }
  if (reply.refusal !== undefined) {
    if (!writeEvent(res, chunk(id, body, { refusal: reply.refusal }, null, model))) return;
  }
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    const delta = { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }] };
    if (!writeEvent(res, chunk(id, body, delta, null, model))) return;
  }
  if (!writeEvent(res, chunk(id, body, {}, finishReason(reply), model))) return;
  if (body.stream_options?.include_usage === true) {
    const usage = usageOf(body, reply, content ?? '');
    writeEvent(res, { id, object: 'chat.completion.chunk', created: nowSeconds(), model, choices: [], usage });
  }
  res.end('data: [DONE]\n\n');
}

function chunk(
  id: string,
  body: ChatRequestBody,
  delta: Record<string, unknown>,
  finish: string | null,
  model?: string,
): Record<string, unknown> {
  return {
    id,
    object: 'chat.completion.chunk',
    created: nowSeconds(),
    model: model ?? body.model ?? 'loopback-model',
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  };
}

function startSse(res: ServerResponse, headers?: Record<string, string>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...headers });
  res.flushHeaders();
}

/** Writes one `data:` event; false when the client has gone away. */
function writeEvent(res: ServerResponse, payload: unknown): boolean {
  if (res.destroyed || res.writableEnded) return false;
  res.write(`data: ${JSON.stringify(payload)}\n\n`);
  return true;
}

function sendJson(res: ServerResponse, status: number, payload: unknown, headers?: Record<string, string>): void {
  if (res.destroyed) return;
  const text = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function errorBody(message: string, type: string, code?: string): unknown {
  return { error: { message, type, param: null, code: code ?? null } };
}

function errorType(status: number): string {
  if (status === 429) return 'rate_limit_exceeded';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function finishReason(reply: CompletionReply): string {
  if (reply.finishReason !== undefined) return reply.finishReason;
  return reply.toolCalls !== undefined && reply.toolCalls.length > 0 ? 'tool_calls' : 'stop';
}

function usageOf(body: ChatRequestBody, reply: CompletionReply, content: string): Record<string, number> {
  const prompt = reply.usage?.prompt_tokens ?? Math.ceil(JSON.stringify(body.messages ?? []).length / 4);
  const completion = reply.usage?.completion_tokens ?? Math.ceil(content.length / 4);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** Splits text into pieces of about {@link DEFAULT_CHUNK_CHARS} without splitting a surrogate pair. */
function splitPieces(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + DEFAULT_CHUNK_CHARS);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end += 1;
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
