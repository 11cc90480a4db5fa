/**
 * A `fetch` for the `openai` client that bounds what a server may stream: a server-sent-events line
 * (one `data:` event) longer than {@link MAX_EVENT_LINE_BYTES} fails the response with an error naming
 * the limit. The SDK's event decoder buffers a line until its newline arrives and rescans the buffer
 * on each network chunk, so one multi-megabyte event costs time quadratic in its size and memory
 * without bound before any of it reaches the agent's own checks. Event streams are read per the
 * WHATWG HTML "server-sent events" format: lines end at LF, CR or CRLF.
 */

/** Longest event line accepted, in bytes: 4 MiB, far above any real chunk (a few hundred bytes to a few kB). */
export const MAX_EVENT_LINE_BYTES = 4 * 1024 * 1024;

/** A server's response that broke a bound. */
export class ResponseBoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResponseBoundError';
  }
}

/**
 * Passes every byte through and errors the body once a line (bytes between line ends) passes
 * `maxLineBytes`. Only `text/event-stream` responses are checked; others pass untouched.
 */
export function boundEventStream(response: Response, maxLineBytes = MAX_EVENT_LINE_BYTES): Response {
  const type = response.headers.get('content-type') ?? '';
  if (!response.body || !/text\/event-stream/i.test(type)) return response;
  let line = 0;
  const bounded = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        for (let i = 0; i < chunk.length; i++) {
          const b = chunk[i];
          if (b === 0x0a || b === 0x0d) line = 0;
          else if (++line > maxLineBytes) {
            controller.error(
              new ResponseBoundError(
                `the server sent one streamed event longer than ${maxLineBytes} bytes; the reply was stopped`,
              ),
            );
            return;
          }
        }
        controller.enqueue(chunk);
      },
    }),
  );
  return new Response(bounded, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** `fetch` (the global one by default) with {@link boundEventStream} applied to every response. */
export function boundedFetch(
  inner: typeof fetch = globalThis.fetch,
  maxLineBytes = MAX_EVENT_LINE_BYTES,
): typeof fetch {
  return async (input, init) => boundEventStream(await inner(input, init), maxLineBytes);
}
