/**
 * Writing one reply of the loopback model server: a JSON completion, a server-sent-event stream in the
 * shape of OpenAI's `chat.completion.chunk` events, or a fault (status, stall, malformed SSE, reset).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChatRequestBody, CompletionReply, Reply } from './types';

/** Characters per content piece when `chunks` is not given. */
const DEFAULT_CHUNK_CHARS = 16;

/** Writes `reply` to `res` for the request `body`; `id` names the completion. */
export async function respond(res: ServerResponse, body: ChatRequestBody, reply: Reply, id: string): Promise<void> {
  const streamed = body.stream === true;
  switch (reply.type) {
    case 'status': {
      await sleep(reply.delayMs ?? 0);
      const payload =
        reply.body ?? errorBody(reply.message ?? `status ${reply.status}`, errorType(reply.status), reply.code);
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
      if (streamed && reply.ignoresStream !== true) await streamCompletion(res, body, reply, id);
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

async function streamCompletion(
  res: ServerResponse,
  body: ChatRequestBody,
  reply: CompletionReply,
  id: string,
): Promise<void> {
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
    const delta = {
      tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }],
    };
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
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...headers,
  });
  res.flushHeaders();
}

/** Writes one `data:` event; false when the client has gone away. */
function writeEvent(res: ServerResponse, payload: unknown): boolean {
  if (res.destroyed || res.writableEnded) return false;
  res.write(`data: ${JSON.stringify(payload)}\n\n`);
  return true;
}

/** Sends `payload` as a JSON response with `status` (nothing when the client has gone away). */
export function sendJson(
  res: ServerResponse,
  status: number,
  payload: unknown,
  headers?: Record<string, string>,
): void {
  if (res.destroyed) return;
  const text = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** An OpenAI-shaped error body `{error: {message, type, param, code}}`. */
export function errorBody(message: string, type: string, code?: string): unknown {
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

function usageOf(body: ChatRequestBody, reply: CompletionReply, content: string): Record<string, unknown> {
  const prompt = reply.usage?.prompt_tokens ?? Math.ceil(JSON.stringify(body.messages ?? []).length / 4);
  const completion = reply.usage?.completion_tokens ?? Math.ceil(content.length / 4);
  const details = reply.usage?.prompt_tokens_details;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    ...(details ? { prompt_tokens_details: details } : {}),
  };
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

/** The request body as UTF-8 text. */
export function readBody(req: IncomingMessage): Promise<string> {
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
