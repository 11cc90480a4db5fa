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
import type { ChatRequestBody, RecordedRequest, Responder } from './types';
import { errorBody, readBody, respond, sendJson } from './respond';
import { parseJsonOrUndefined } from '../../format/json';

export type * from './types';

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
    const body = text.length > 0 ? (parseJsonOrUndefined(text) as ChatRequestBody | undefined) : undefined;
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    log.push({ method: req.method ?? 'GET', path, headers: { ...req.headers }, body, atMs: Date.now() - started });

    if (req.method === 'GET' && path === '/v1/models') {
      const ids = options.models ?? ['loopback-model'];
      sendJson(res, 200, {
        object: 'list',
        data: ids.map((id) => ({ id, object: 'model', created: 0, owned_by: 'loopback' })),
      });
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
