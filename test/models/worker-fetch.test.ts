import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import threads, { type WorkerOptions } from 'node:worker_threads';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { start, type Reply } from '../../src/demo/modelserver/wire';
import { chunked, reset, scripted, stall, status } from '../../src/demo/modelserver/replies';
import { FetchWorker } from '../../src/models/worker-fetch';
import { boundedFetch } from '../../src/models/bounded-fetch';
import { sseServer, chunk } from '../agent/sse-server';

/** A worker whose requests must all go through the thread: its fallback fails the test. */
function worker(t: TestContext, windowBytes?: number): FetchWorker {
  const w = new FetchWorker({
    windowBytes,
    fallback: () => Promise.reject(new Error('the request did not go through the worker')),
  });
  t.after(() => w.dispose());
  return w;
}

async function server(t: TestContext, replies: Reply[]) {
  const s = await start({ responder: scripted(replies), models: ['m'] });
  t.after(() => s.close());
  return s;
}

/** Streams one chat completion with `fetch`; the text, or the error as the caller sees it. */
async function call(
  baseURL: string,
  fetch: typeof globalThis.fetch,
  options: {
    body?: Uint8Array;
    timeout?: number;
    signal?: AbortSignal;
    onDelta?: (text: string) => void;
    maxRetries?: number;
  } = {},
): Promise<{ text: string } | { error: ReturnType<typeof describe> }> {
  const client = new OpenAI({
    baseURL,
    apiKey: 'k',
    maxRetries: options.maxRetries ?? 0,
    fetch,
    timeout: options.timeout,
  });
  let text = '';
  try {
    const stream = await client.chat.completions.create(
      { model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true },
      {
        signal: options.signal,
        ...(options.body ? { body: options.body, headers: { 'content-type': 'application/json' } } : {}),
      },
    );
    for await (const c of stream) {
      const delta = c.choices[0]?.delta?.content ?? '';
      text += delta;
      options.onDelta?.(delta);
    }
    return { text };
  } catch (error) {
    return { error: describe(error) };
  }
}

/** An error's class, message, status and cause chain (messages and codes): what users and retries read. */
function describe(error: unknown): { kind: string; text: string; status?: number; causes: string[] } {
  const causes: string[] = [];
  let cause = (error as { cause?: unknown }).cause;
  for (let depth = 0; cause !== undefined && depth < 4; depth++) {
    const e = cause as { name?: string; message?: string; code?: string; cause?: unknown };
    causes.push(`${e.name}: ${e.message} (${e.code ?? ''})`);
    cause = e.cause;
  }
  return {
    kind: (error as Error).constructor.name,
    text: String(error),
    status: (error as { status?: number }).status,
    causes,
  };
}

test('a streamed reply arrives intact through the worker, and a byte body reaches the server byte for byte', async (t) => {
  const pieces = Array.from({ length: 300 }, (_, i) => `piece ${i} ünïcödé ✓; `);
  const s = await server(t, [chunked(pieces), chunked(['second'])]);
  const w = worker(t);
  const big = JSON.stringify({
    model: 'm',
    stream: true,
    messages: [{ role: 'user', content: 'x'.repeat(3_000_000) }],
  });
  const first = await call(s.url, boundedFetch(w.fetch), { body: Buffer.from(big, 'utf8') });
  assert.deepEqual(first, { text: pieces.join('') });
  assert.equal(w.running, true);
  // A smaller body in the buffer the first one used: only its own bytes are sent.
  const small = JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'short' }] });
  assert.deepEqual(await call(s.url, w.fetch, { body: Buffer.from(small, 'utf8') }), { text: 'second' });
  assert.equal(JSON.stringify(s.requests[0]), big);
  assert.equal(JSON.stringify(s.requests[1]), small);
});

test('bodies of calls in flight at once each reach the server whole, while their buffers are reused', async (t) => {
  const s = await server(t, [chunked(['a']), chunked(['b']), chunked(['c']), chunked(['d'])]);
  const w = worker(t);
  const bodies = ['a', 'b', 'c', 'd'].map((c) =>
    JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: c.repeat(2_000_000) }] }),
  );
  // Two rounds: the second one's bodies go into the buffers the first round's handed back.
  for (const round of [bodies.slice(0, 2), bodies.slice(2)])
    await Promise.all(round.map((body) => call(s.url, w.fetch, { body: Buffer.from(body, 'utf8') })));
  assert.deepEqual(s.requests.map((r) => JSON.stringify(r)).sort(), [...bodies].sort());
});

test('a reply far larger than the flow-control window streams through whole', async (t) => {
  const pieces = Array.from({ length: 2_000 }, (_, i) => `line ${i} `.padEnd(100, '.'));
  const s = await server(t, [chunked(pieces)]);
  const w = worker(t, 4_096);
  assert.deepEqual(await call(s.url, w.fetch), { text: pieces.join('') });
});

test('abort mid-stream ends the reply at once, as with the plain fetch, and the worker closes the connection', async (t) => {
  const w = worker(t);
  const outcomes = [];
  for (const fetch of [globalThis.fetch, w.fetch]) {
    let closed!: () => void;
    const serverSawClose = new Promise<void>((resolve) => (closed = resolve));
    const s = await sseServer((res) => {
      res.on('close', () => closed());
      res.write(chunk({ content: 'first' }));
      return false; // never ends
    });
    t.after(() => s.close());
    const controller = new AbortController();
    outcomes.push(
      await call(s.url, fetch, {
        signal: controller.signal,
        onDelta: (d) => {
          if (d === 'first') controller.abort();
        },
      }),
    );
    const waited = await Promise.race([
      serverSawClose.then(() => 'closed'),
      new Promise((resolve) => setTimeout(() => resolve('still open after 5 s'), 5_000)),
    ]);
    assert.equal(waited, 'closed');
  }
  // The SDK ends a stream its caller aborted without an error: the text so far is what was read.
  assert.deepEqual(outcomes[0], { text: 'first' });
  assert.deepEqual(outcomes[1], outcomes[0]);
});

test('abort before the response ends the call with the same error as the plain fetch', async (t) => {
  const s = await server(t, [stall()]);
  const w = worker(t);
  const outcomes = [];
  for (const fetch of [globalThis.fetch, w.fetch]) {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    outcomes.push(await call(s.url, fetch, { signal: controller.signal }));
  }
  assert.equal('error' in outcomes[0] && outcomes[0].error.kind, 'APIUserAbortError');
  assert.deepEqual(outcomes[1], outcomes[0]);
});

test('server errors, a refused connection, a reset stream and a timeout read as they do with the plain fetch', async (t) => {
  const w = worker(t);
  const refused = await new Promise<number>((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const port = (probe.address() as AddressInfo).port;
      probe.close(() => resolve(port));
    });
  });
  const cases: { name: string; replies?: Reply[]; url?: string; timeout?: number }[] = [
    { name: 'HTTP 500', replies: [status(500, 'the model server failed')] },
    { name: 'HTTP 429', replies: [status(429, 'slow down', 3)] },
    { name: 'refused', url: `http://127.0.0.1:${refused}/v1` },
    { name: 'reset mid-stream', replies: [reset(['part one, ', 'part two'])] },
    { name: 'timeout', replies: [stall()], timeout: 200 },
  ];
  for (const c of cases) {
    const outcomes = [];
    for (const fetch of [globalThis.fetch, w.fetch]) {
      const url = c.url ?? (await server(t, c.replies!)).url;
      outcomes.push(await call(url, fetch, { timeout: c.timeout }));
    }
    assert.ok('error' in outcomes[0], `${c.name}: the plain fetch failed too`);
    assert.deepEqual(outcomes[1], outcomes[0], c.name);
  }
});

test("the client's retry after a server error goes through the worker again, and the retried reply arrives", async (t) => {
  const s = await server(t, [status(503, 'overloaded'), chunked(['after ', 'a retry'])]);
  const w = worker(t);
  const client = { maxRetries: 1 };
  assert.deepEqual(await call(s.url, w.fetch, client), { text: 'after a retry' });
  assert.equal(s.requests.length, 2);
});

test('dispose terminates the worker; a request in flight fails as a broken connection, later ones use the fallback', async (t) => {
  const s = await server(t, [stall(), chunked(['after'])]);
  let fallbackCalls = 0;
  const w = new FetchWorker({
    fallback: (input, init) => {
      fallbackCalls++;
      return globalThis.fetch(input, init);
    },
  });
  t.after(() => w.dispose());
  const pending = call(s.url, w.fetch);
  while (s.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(w.running, true);
  await w.dispose();
  assert.equal(w.running, false);
  const outcome = await pending;
  assert.ok('error' in outcome);
  assert.equal(outcome.error.kind, 'APIConnectionError');
  assert.deepEqual(await call(s.url, w.fetch), { text: 'after' });
  assert.equal(fallbackCalls, 1);
});

test('requests the policy keeps on this thread use the fallback, and the worker is not started', async (t) => {
  const s = await server(t, [chunked(['here'])]);
  let fallbackCalls = 0;
  const w = new FetchWorker({
    offThread: (url) => url.hostname !== '127.0.0.1',
    fallback: (input, init) => {
      fallbackCalls++;
      return globalThis.fetch(input, init);
    },
  });
  t.after(() => w.dispose());
  assert.deepEqual(await call(s.url, w.fetch), { text: 'here' });
  assert.equal(fallbackCalls, 1);
  assert.equal(w.running, false);
});

test('a worker that cannot start: its requests and the later ones run on this thread, logged once', async (t) => {
  const s = await server(t, [chunked(['first']), chunked(['second'])]);
  const real = threads.Worker;
  // A worker whose script fails before it listens (as one refused by its environment would).
  class Broken extends real {
    constructor(_source: string, options?: WorkerOptions) {
      super('throw new Error("threads are not allowed here")', { ...options, eval: true });
    }
  }
  (threads as unknown as { Worker: unknown }).Worker = Broken;
  t.after(() => ((threads as unknown as { Worker: unknown }).Worker = real));
  const lines: string[] = [];
  const w = new FetchWorker({ log: (line) => lines.push(line) });
  t.after(() => w.dispose());
  assert.deepEqual(await call(s.url, w.fetch), { text: 'first' });
  assert.deepEqual(await call(s.url, w.fetch), { text: 'second' });
  assert.equal(w.running, false);
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.match(
    lines[0],
    /HTTP requests run on this thread: the HTTP worker could not start \(threads are not allowed here\)/,
  );
});
