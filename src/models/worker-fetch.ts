/**
 * A `fetch` whose HTTP work runs in a worker thread, for the `openai` client (`new OpenAI({ fetch })`).
 *
 * A model call at a 1M-token context sends a request body of about 4 MB. Sent from the extension
 * host's thread, the HTTP client copies it, writes it to the socket (on loopback the kernel's TCP
 * work for both ends runs on the writing thread; to a remote server, TLS encryption does) and leaves
 * garbage for that thread's collector: 6-10 ms of the host's time per call (bench/request-path.ts).
 * Here the host copies the body's bytes once into memory it hands over to the worker (a transfer,
 * not a second copy); the worker runs Node's own `fetch` and streams the response's status, headers
 * and body back, and the host builds a standard `Response` from them. What the caller sees is what Node's `fetch`
 * gives: the same statuses, headers and bytes, a body that streams as it arrives, abort through
 * the request's `AbortSignal` (the fetch, or the body being read, fails with the signal's reason;
 * the worker cancels its request), and Node's own errors (`TypeError: fetch failed` with its cause:
 * `ECONNREFUSED`, timeouts, `terminated` for a broken stream) rebuilt with their names, messages,
 * codes and causes, so the `openai` client classifies and retries them as before.
 *
 * The worker starts on the first request, serves every later one, does not keep the process alive
 * while no request is in flight, and is terminated by {@link FetchWorker.dispose}. When it cannot
 * start, its requests and every later one use this thread's `fetch` (logged once); when it fails
 * after it started, its requests in flight fail as a broken connection (`TypeError: fetch failed`,
 * which the client retries) and the next request starts a new worker. Requests it cannot carry (a
 * `Request` object, a streamed, form or blob body) use this thread's `fetch` too.
 */
import { Worker } from 'node:worker_threads';

/** Smallest body buffer kept for reuse, in bytes. */
const MIN_BODY_BUFFER = 64 * 1024;
/** Body buffers kept for reuse (calls in flight at once: the agent's and a summarizer's). */
const MAX_SPARE_BUFFERS = 3;

/** Bytes of a response body the worker sends ahead of what the reader has taken: 1 MiB. */
export const RESPONSE_WINDOW_BYTES = 1024 * 1024;

/** Options of {@link FetchWorker}. */
export interface FetchWorkerOptions {
  /**
   * Whether a request to `url` goes through the worker; the others use {@link fallback}. Default:
   * every request. The extension keeps requests on its own thread where the editor adds to the
   * host's `fetch` (proxy, system certificates), which a worker's `fetch` does not have.
   */
  offThread?: (url: URL) => boolean;
  /** The `fetch` of this thread: for requests kept here, and when the worker cannot run. Default: the global one. */
  fallback?: typeof fetch;
  /** Where the worker's start failure or unexpected exit is reported (one line each). */
  log?: (line: string) => void;
  /** Bytes of a response body sent ahead of the reader; default {@link RESPONSE_WINDOW_BYTES}. */
  windowBytes?: number;
}

/** An error as it crosses the thread boundary: what `describeError` in the worker source keeps. */
interface ErrorShape {
  name?: string;
  message?: string;
  stack?: string;
  /** Own fields with plain values (`code`, `errno`, `syscall`, `address`, `port`, …). */
  fields?: Record<string, string | number | boolean | null>;
  cause?: ErrorShape;
  errors?: ErrorShape[];
  /** A thrown value that is not an error, as text. */
  value?: string;
}

/** Messages from the worker, for request `id`. */
type FromWorker =
  | {
      type: 'head';
      id: number;
      status: number;
      statusText: string;
      headers: [string, string][];
      url: string;
    }
  | { type: 'chunk'; id: number; chunk: Uint8Array }
  | { type: 'end'; id: number }
  /** The request's body buffer, back once the worker's `Request` holds its own copy of the bytes. */
  | { type: 'release'; id: number; buffer: ArrayBuffer }
  | { type: 'error'; id: number; error: ErrorShape }
  /** The worker listens for requests. */
  | { type: 'ready'; id?: undefined };

/** One request in flight: its promise until the head arrives, then its body's stream. */
interface InFlight {
  resolve(response: Response): void;
  reject(error: unknown): void;
  /** Set once the head has arrived. */
  body?: ReadableStreamDefaultController<Uint8Array>;
  /** Body bytes received and acknowledged to the worker. */
  received: number;
  acked: number;
  /** Body bytes waiting in the stream's queue (not yet read). */
  queued: () => number;
  /** Whether the worker has answered anything for this request (it was started there). */
  answered: boolean;
  /** Runs the request with the fallback `fetch` instead, settling its promise. */
  replay(): void;
  done(): void;
}

/**
 * Owns one worker thread that runs HTTP requests for this thread. Use {@link fetch} where a
 * `fetch` is wanted; {@link dispose} terminates the worker (requests in flight then fail as a
 * connection failure does: `TypeError: fetch failed`).
 */
export class FetchWorker {
  /** A standard `fetch`; its HTTP work runs in the worker (see the module comment). */
  readonly fetch: typeof fetch = (input, init) => {
    // As `fetch` does, a bad request (invalid headers, a policy that throws) is a rejected promise.
    try {
      return this.request(input, init);
    } catch (error) {
      return Promise.reject(error);
    }
  };
  private worker: Worker | undefined;
  /** Set when the worker could not start: every request then uses the fallback. */
  private unavailable = false;
  private disposed = false;
  private nextId = 0;
  private readonly inFlight = new Map<number, InFlight>();
  /** Body buffers the worker handed back, for the next requests' bodies. */
  private spare: ArrayBuffer[] = [];
  private readonly options: FetchWorkerOptions;

  constructor(options: FetchWorkerOptions = {}) {
    this.options = options;
  }

  /** Replaces the options (the extension sets its policy and log on the process's shared instance). */
  configure(options: FetchWorkerOptions): void {
    Object.assign(this.options, options);
  }

  /** Whether the worker thread is running. */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /**
   * Terminates the worker; requests in flight fail. Resolves when the thread has exited. Later
   * requests use the fallback `fetch`.
   */
  async dispose(): Promise<void> {
    this.disposed = true;
    const worker = this.worker;
    this.worker = undefined;
    this.spare = [];
    this.failAll(new Error('the HTTP worker was stopped'));
    if (worker) await worker.terminate();
  }

  private get fallback(): typeof fetch {
    return this.options.fallback ?? globalThis.fetch;
  }

  private request(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const plan = this.disposed || this.unavailable ? undefined : planOf(input, init, (bytes) => this.bodyBuffer(bytes));
    if (!plan || !(this.options.offThread?.(plan.url) ?? true)) return this.fallback(input, init);
    const worker = this.thread();
    if (!worker) return this.fallback(input, init);
    const signal = init?.signal ?? undefined;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = ++this.nextId;
    return new Promise<Response>((resolve, reject) => {
      const onAbort = (): void => {
        worker.postMessage({ type: 'cancel', id });
        this.fail(id, signal!.reason);
      };
      const entry: InFlight = {
        resolve,
        reject,
        received: 0,
        acked: 0,
        queued: () => 0,
        answered: false,
        // The caller's body is intact (the worker got a copy), and valid until this call settles.
        replay: () => void this.fallback(input, init).then(resolve, reject),
        done: () => signal?.removeEventListener('abort', onAbort),
      };
      this.inFlight.set(id, entry);
      if (this.inFlight.size === 1) worker.ref();
      signal?.addEventListener('abort', onAbort, { once: true });
      const { body, transfer } = plan;
      worker.postMessage(
        {
          type: 'fetch',
          id,
          url: plan.url.href,
          method: init?.method ?? 'GET',
          headers: plan.headers,
          body,
          redirect: init?.redirect,
          window: this.options.windowBytes ?? RESPONSE_WINDOW_BYTES,
        },
        transfer,
      );
    });
  }

  /**
   * Memory for a request body of `bytes` bytes: a buffer the worker has handed back (its pages are
   * already mapped: a fresh 4 MB buffer costs this thread about a thousand page faults), else a new
   * one with room to grow by a quarter.
   */
  private bodyBuffer(bytes: number): ArrayBuffer {
    let best = -1;
    for (let i = 0; i < this.spare.length; i++)
      if (this.spare[i].byteLength >= bytes && (best < 0 || this.spare[i].byteLength < this.spare[best].byteLength))
        best = i;
    if (best >= 0) return this.spare.splice(best, 1)[0];
    return new ArrayBuffer(Math.max(MIN_BODY_BUFFER, bytes + (bytes >> 2)));
  }

  /** Keeps a body buffer the worker handed back, the largest {@link MAX_SPARE_BUFFERS} of them. */
  private release(buffer: ArrayBuffer): void {
    this.spare.push(buffer);
    if (this.spare.length > MAX_SPARE_BUFFERS) {
      this.spare.sort((a, b) => b.byteLength - a.byteLength);
      this.spare.length = MAX_SPARE_BUFFERS;
    }
  }

  /** The running worker, started on first use; undefined when it cannot start. */
  private thread(): Worker | undefined {
    if (this.worker) return this.worker;
    let worker: Worker;
    try {
      worker = new Worker(WORKER_SOURCE, { eval: true, name: 'ContextKeeper HTTP' });
    } catch (error) {
      this.unavailable = true;
      this.options.log?.(
        `HTTP requests run on this thread: the HTTP worker could not start (${(error as Error).message ?? error}).`,
      );
      return undefined;
    }
    let ready = false;
    worker.on('message', (m: FromWorker) => {
      if (m.type === 'ready') ready = true;
      else this.receive(worker, m);
    });
    worker.on('error', (error: Error) => {
      if (!ready) this.unavailable = true;
      this.options.log?.(
        ready
          ? `The HTTP worker failed (${error.message}); requests in flight fail and the next starts a new worker.`
          : `HTTP requests run on this thread: the HTTP worker could not start (${error.message}).`,
      );
    });
    worker.on('exit', (code) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      if (!ready) {
        // A worker that never started ran none of its requests: they run here instead, as will every later one.
        if (!this.unavailable)
          this.options.log?.(`HTTP requests run on this thread: the HTTP worker exited (code ${code}) as it started.`);
        this.unavailable = true;
        this.replayAll();
      }
      this.failAll(new Error('the HTTP worker stopped'));
    });
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private receive(worker: Worker, m: Exclude<FromWorker, { type: 'ready' }>): void {
    if (m.type === 'release') return this.release(m.buffer);
    const entry = this.inFlight.get(m.id);
    if (!entry) return;
    entry.answered = true;
    switch (m.type) {
      case 'head':
        try {
          entry.resolve(this.response(worker, m, entry));
        } catch (error) {
          // A status the Response constructor refuses (outside 200-599).
          worker.postMessage({ type: 'cancel', id: m.id });
          this.fail(m.id, new TypeError('fetch failed', { cause: error }));
        }
        return;
      case 'chunk':
        entry.received += m.chunk.byteLength;
        entry.body?.enqueue(m.chunk);
        return;
      case 'end':
        this.finish(m.id);
        entry.body?.close();
        return;
      case 'error':
        this.fail(m.id, rebuildError(m.error));
        return;
    }
  }

  /** The `Response` for a head: its body streams the chunks that follow, read with flow control. */
  private response(worker: Worker, head: FromWorker & { type: 'head' }, entry: InFlight): Response {
    const window = this.options.windowBytes ?? RESPONSE_WINDOW_BYTES;
    const id = head.id;
    // Statuses that carry no body (the Response constructor refuses one for them).
    const nullBody = head.status === 101 || head.status === 204 || head.status === 205 || head.status === 304;
    let stream: ReadableStream<Uint8Array> | null = null;
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
    if (!nullBody) {
      stream = new ReadableStream<Uint8Array>(
        {
          start: (c) => {
            controller = c;
          },
          pull: () => {
            // Read bytes are acknowledged in halves of the window: the worker sends at most a window
            // ahead, so a reader that stops holds the server back instead of filling this heap.
            const read = entry.received - entry.queued();
            if (read - entry.acked >= window / 2) {
              entry.acked = read;
              worker.postMessage({ type: 'ack', id, bytes: read });
            }
          },
          cancel: () => {
            if (!this.inFlight.has(id)) return;
            this.finish(id);
            worker.postMessage({ type: 'cancel', id });
          },
        },
        new ByteLengthQueuingStrategy({ highWaterMark: window }),
      );
    }
    const response = new Response(stream, {
      status: head.status,
      statusText: head.statusText,
      headers: head.headers,
    });
    if (controller) {
      const body = controller;
      entry.body = body;
      entry.queued = () => window - (body.desiredSize ?? 0);
    } else {
      this.finish(id);
      worker.postMessage({ type: 'cancel', id });
    }
    // A constructed Response has no URL; the client's log lines name it.
    Object.defineProperty(response, 'url', { value: head.url });
    return response;
  }

  /** Ends request `id` with `error`: its promise rejects, or its body's stream errors. */
  private fail(id: number, error: unknown): void {
    const entry = this.inFlight.get(id);
    if (!entry) return;
    this.finish(id);
    if (entry.body) entry.body.error(error);
    else entry.reject(error);
  }

  private finish(id: number): void {
    const entry = this.inFlight.get(id);
    if (!entry) return;
    this.inFlight.delete(id);
    entry.done();
    if (this.inFlight.size === 0) this.worker?.unref();
  }

  /** Runs every request in flight that the worker never answered with the fallback `fetch`. */
  private replayAll(): void {
    for (const [id, entry] of [...this.inFlight]) {
      if (entry.answered) continue;
      this.finish(id);
      entry.replay();
    }
  }

  /** Fails every request in flight as a broken connection (the client may retry it). */
  private failAll(cause: Error): void {
    for (const [id, entry] of [...this.inFlight])
      this.fail(id, entry.body ? new TypeError('terminated', { cause }) : new TypeError('fetch failed', { cause }));
  }
}

/** A request the worker can carry: its URL, headers as pairs, and its body as posted. */
interface Plan {
  url: URL;
  headers: [string, string][];
  body: string | Uint8Array | undefined;
  transfer: ArrayBuffer[];
}

/**
 * How `input`/`init` cross to the worker, or undefined when they cannot (a `Request` object, a
 * body other than text or bytes, an `init` option this module does not carry). Byte bodies are
 * copied once into memory from `allocate`, which is transferred: the caller keeps its buffer (the
 * request body cache writes the next body over it).
 */
function planOf(
  input: string | URL | Request,
  init: RequestInit | undefined,
  allocate: (bytes: number) => ArrayBuffer,
): Plan | undefined {
  if (typeof input !== 'string' && !(input instanceof URL)) return undefined;
  if (init) {
    for (const key of Object.keys(init))
      if (!CARRIED_OPTIONS.has(key) && (init as Record<string, unknown>)[key] !== undefined) return undefined;
  }
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const raw = init?.body;
  let body: string | Uint8Array | undefined;
  const transfer: ArrayBuffer[] = [];
  if (raw === undefined || raw === null) body = undefined;
  else if (typeof raw === 'string') body = raw;
  else if (ArrayBuffer.isView(raw) || raw instanceof ArrayBuffer) {
    const view =
      raw instanceof ArrayBuffer ? new Uint8Array(raw) : new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength);
    const own = new Uint8Array(allocate(view.byteLength), 0, view.byteLength);
    own.set(view);
    body = own;
    transfer.push(own.buffer);
  } else return undefined;
  const headers: [string, string][] = [];
  new Headers(init?.headers).forEach((value, name) => headers.push([name, value]));
  return { url, headers, body, transfer };
}

/** `RequestInit` fields the worker carries (`signal` stays here and cancels through a message). */
const CARRIED_OPTIONS = new Set(['method', 'headers', 'body', 'signal', 'redirect', 'duplex']);

/** Error constructors rebuilt by name, so `instanceof` and `String(error)` read as in the worker. */
const ERROR_TYPES: Record<string, new (message?: string, options?: { cause?: unknown }) => Error> = {
  Error,
  TypeError,
  RangeError,
  SyntaxError,
  ReferenceError,
};

/** An error from the worker rebuilt on this thread: name, message, fields, cause and stack as there. */
export function rebuildError(shape: ErrorShape): unknown {
  if (shape.value !== undefined) return shape.value;
  const name = shape.name ?? 'Error';
  const message = shape.message ?? '';
  const options = shape.cause !== undefined ? { cause: rebuildError(shape.cause) } : undefined;
  let error: Error;
  if (name === 'AbortError' || name === 'TimeoutError') error = new DOMException(message, name);
  else if (name === 'AggregateError')
    error = new AggregateError((shape.errors ?? []).map(rebuildError), message, options);
  else {
    const Type = ERROR_TYPES[name] ?? Error;
    error = new Type(message, options);
    if (!(name in ERROR_TYPES)) error.name = name;
  }
  for (const [key, value] of Object.entries(shape.fields ?? {}))
    if (key !== 'name' && key !== 'message') (error as unknown as Record<string, unknown>)[key] = value;
  if (shape.stack !== undefined) {
    try {
      error.stack = shape.stack;
    } catch {
      // A DOMException's stack may be read-only; its own is then kept.
    }
  }
  return error;
}

// CommonJS source of the worker. Requests by id: `fetch` runs Node's fetch and posts `head`, body
// `chunk`s (each a copy of its own, transferred) and `end`, or `error`; `cancel` aborts it; `ack`
// lets the body run a window ahead of the bytes the host has read.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const live = new Map();
parentPort.on('message', (m) => {
  const r = live.get(m.id);
  if (m.type === 'fetch') run(m);
  else if (m.type === 'cancel' && r) {
    live.delete(m.id);
    r.controller.abort();
    if (r.resume) r.resume();
  } else if (m.type === 'ack' && r) {
    r.acked = m.bytes;
    if (r.resume) r.resume();
  }
});
function describeError(e, depth) {
  if (typeof e !== 'object' || e === null) return { value: String(e) };
  const shape = {
    name: String(e.name ?? 'Error'),
    message: String(e.message ?? ''),
    stack: typeof e.stack === 'string' ? e.stack : undefined,
    fields: {},
  };
  for (const key of Object.keys(e)) {
    const v = e[key];
    if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') shape.fields[key] = v;
  }
  if (depth < 5 && e.cause !== undefined) shape.cause = describeError(e.cause, depth + 1);
  if (depth < 5 && Array.isArray(e.errors))
    shape.errors = e.errors.slice(0, 8).map((x) => describeError(x, depth + 1));
  return shape;
}
async function run(m) {
  const r = { controller: new AbortController(), sent: 0, acked: 0, resume: undefined };
  live.set(m.id, r);
  try {
    let pending;
    try {
      // fetch() makes its Request before it returns, and a Request copies a byte body (WHATWG Fetch,
      // "extract a body"): the host's buffer goes back at once.
      pending = fetch(m.url, {
        method: m.method,
        headers: m.headers,
        body: m.body,
        redirect: m.redirect,
        signal: r.controller.signal,
      });
    } finally {
      if (m.body instanceof Uint8Array)
        parentPort.postMessage({ type: 'release', id: m.id, buffer: m.body.buffer }, [m.body.buffer]);
    }
    const response = await pending;
    if (!live.has(m.id)) return void response.body?.cancel().catch(() => {});
    parentPort.postMessage({
      type: 'head',
      id: m.id,
      status: response.status,
      statusText: response.statusText,
      headers: [...response.headers],
      url: response.url,
    });
    if (response.body) {
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (!live.has(m.id)) return void reader.cancel().catch(() => {});
        const chunk = value.slice();
        r.sent += chunk.byteLength;
        parentPort.postMessage({ type: 'chunk', id: m.id, chunk }, [chunk.buffer]);
        while (r.sent - r.acked > m.window && live.has(m.id)) await new Promise((resume) => (r.resume = resume));
        r.resume = undefined;
        if (!live.has(m.id)) return void reader.cancel().catch(() => {});
      }
    }
    if (live.has(m.id)) parentPort.postMessage({ type: 'end', id: m.id });
  } catch (error) {
    if (live.has(m.id)) parentPort.postMessage({ type: 'error', id: m.id, error: describeError(error, 0) });
  } finally {
    live.delete(m.id);
  }
}
parentPort.postMessage({ type: 'ready' });
`;

let shared: FetchWorker | undefined;

/**
 * The process's shared {@link FetchWorker}: the agent's and the summarizer's clients use it, so one
 * worker thread carries every model call. The extension sets its policy with `configure` and
 * disposes it on deactivation; in the command-line tool it ends with the process.
 */
export function sharedFetchWorker(): FetchWorker {
  return (shared ??= new FetchWorker());
}
