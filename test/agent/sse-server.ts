/** A loopback server that answers chat-completions requests with hand-written SSE chunks, for wire shapes the scripted model server does not produce. */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One `chat.completion.chunk` event with a single choice carrying `delta`. */
export function chunk(delta: unknown, finish: string | null = null): string {
  return `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

/**
 * Starts a server on 127.0.0.1; `write(res, n)` writes the body of the n-th (1-based) request after
 * the SSE headers and ends it unless it returns false. Returns the `/v1` base URL, the request
 * bodies, and `close`.
 */
export async function sseServer(
  write: (res: ServerResponse, n: number) => void | false | Promise<void | false>,
): Promise<{ url: string; bodies: unknown[]; close: () => Promise<void> }> {
  const bodies: unknown[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      bodies.push(JSON.parse(body));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      void Promise.resolve(write(res, bodies.length)).then((keep) => {
        if (keep !== false && !res.writableEnded) res.end('data: [DONE]\n\n');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
