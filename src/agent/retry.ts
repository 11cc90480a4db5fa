/**
 * Retries of the agent's model call, under the product's control rather than the SDK's: the `openai`
 * client honours any `Retry-After` a 429 or 5xx answer names, without an upper bound and in a sleep
 * that does not look at the abort signal, so Cancel could not end a wait of an hour. Here every wait is
 * abortable, bounded, and announced with its reason and length.
 *
 * Rules follow the `openai` SDK's own (`shouldRetry`, `retryRequest`): retry on HTTP 408, 409, 429 and
 * 5xx and on connection failures; obey an `x-should-retry: true|false` header; wait what
 * `retry-after-ms` (milliseconds) or `Retry-After` (seconds or an HTTP date, RFC 9110 §10.2.3) names,
 * else back off exponentially from 0.5 s to at most 8 s with up to 25% jitter.
 */

/** Longest wait a server may ask for before one retry, in milliseconds; longer requests fail the call. */
export const DEFAULT_MAX_RETRY_WAIT_MS = 60_000;

/** One announced wait before a retry. */
export interface RetryWait {
  /** 1-based number of the retry that follows the wait. */
  attempt: number;
  maxRetries: number;
  /** Length of the wait, in milliseconds. */
  delayMs: number;
  /** Why: the HTTP status and the server's message, or the connection failure. */
  reason: string;
  /** True when the server named the wait (`Retry-After`); false for the default back-off. */
  serverAsked: boolean;
}

/** A failed call the server told us to retry only after longer than we wait. */
export class RetryWaitTooLongError extends Error {
  constructor(
    readonly requestedMs: number,
    readonly maxWaitMs: number,
    override readonly cause: unknown,
    reason: string,
  ) {
    super(
      `The server asked to wait ${formatWait(requestedMs)} before retrying (${reason}); ContextKeeper waits at most ${formatWait(maxWaitMs)}. Try again later.`,
    );
    this.name = 'RetryWaitTooLongError';
  }
}

/** `ms` as "20 s", "1.5 s", "4 min", "1 h 2 min" for messages. */
export function formatWait(ms: number): string {
  if (!Number.isFinite(ms)) return 'an unbounded time';
  const s = ms / 1000;
  if (s < 10) return `${Math.round(s * 10) / 10} s`;
  if (s < 120) return `${Math.round(s)} s`;
  const min = Math.round(s / 60);
  return min < 120 ? `${min} min` : `${Math.floor(min / 60)} h ${min % 60} min`;
}

interface ErrorShape {
  status?: unknown;
  headers?: unknown;
  message?: unknown;
  name?: unknown;
}

function header(error: ErrorShape, name: string): string | undefined {
  const headers = error.headers;
  if (!headers || typeof headers !== 'object') return undefined;
  if (typeof (headers as { get?: unknown }).get === 'function') {
    const value = (headers as { get(n: string): string | null }).get(name);
    return value ?? undefined;
  }
  const value = (headers as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Whether a failed call may be retried: true for HTTP 408, 409, 429 and 5xx and for connection
 * failures (the SDK's `APIConnectionError`, `APIConnectionTimeoutError`), false for other statuses,
 * for aborts and for errors that are not the client's. An `x-should-retry` header decides when present.
 */
export function isRetryable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const e = error as ErrorShape;
  if (e.name === 'AbortError' || e.name === 'APIUserAbortError') return false;
  const should = header(e, 'x-should-retry');
  if (should === 'true') return true;
  if (should === 'false') return false;
  if (typeof e.status === 'number') return e.status === 408 || e.status === 409 || e.status === 429 || e.status >= 500;
  return e.name === 'APIConnectionError' || e.name === 'APIConnectionTimeoutError';
}

/**
 * The wait a failed call's answer names, in milliseconds: `retry-after-ms`, else `Retry-After` as
 * seconds or as an HTTP date (relative to `now`). Undefined when neither is present or readable;
 * negative and non-finite values count as unreadable, a date in the past as 0.
 */
export function serverRetryDelay(error: unknown, now = Date.now()): number | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const e = error as ErrorShape;
  const ms = header(e, 'retry-after-ms');
  if (ms !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Number(ms);
  const after = header(e, 'retry-after');
  if (after === undefined) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(after)) return Number(after) * 1000;
  // An HTTP date names its weekday and month; anything else (a negative number, words) is unreadable.
  const date = /[a-z]{3}/i.test(after) ? Date.parse(after) : NaN;
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** The SDK's default back-off before retry `attempt` (1-based): 0.5 s doubling to 8 s, minus up to 25%. */
export function backoffDelay(attempt: number, random = Math.random): number {
  return Math.min(0.5 * 2 ** (attempt - 1), 8) * (1 - random() * 0.25) * 1000;
}

/** A short reason for a failed call: "HTTP 429: Rate limit reached…" or the error's message. */
export function failureReason(error: unknown): string {
  const e = (error ?? {}) as ErrorShape;
  const message = typeof e.message === 'string' ? e.message.replace(/\s+/g, ' ').trim() : String(error);
  const clipped = message.length > 200 ? `${message.slice(0, 199)}…` : message;
  if (typeof e.status === 'number')
    return clipped.startsWith(String(e.status)) ? `HTTP ${clipped}` : `HTTP ${e.status}: ${clipped}`;
  return clipped;
}

/**
 * Resolves after `ms` milliseconds, or rejects with the signal's reason as soon as `signal` aborts
 * (at once when it already has). The timer never outlives the wait.
 */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason ?? new Error('aborted'));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason ?? new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Settles with `work`, or rejects with the signal's reason as soon as `signal` aborts, for clients
 * that do not stop at once when their signal fires. A later rejection of `work` is absorbed.
 */
export function raceAbort<T>(work: PromiseLike<T>, signal: AbortSignal): Promise<T> {
  const promise = Promise.resolve(work);
  promise.catch(() => undefined);
  if (signal.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason ?? new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Options of {@link withRetries}. */
export interface RetryOptions {
  /** Retries after the first try. */
  maxRetries: number;
  /** Longest wait a server may name; a longer one fails the call with {@link RetryWaitTooLongError}. */
  maxWaitMs: number;
  /** Told about each wait before it starts. */
  onWait?: (wait: RetryWait) => void;
  random?: () => number;
}

/**
 * Runs `attempt` until it succeeds, fails with an error that is not {@link isRetryable}, or runs out of
 * retries; waits between tries are abortable (a cancel rejects at once with the signal's reason).
 *
 * @throws the last error; {@link RetryWaitTooLongError} when the server names a wait over `maxWaitMs`;
 *   the signal's reason when it aborts.
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  signal: AbortSignal,
  options: RetryOptions,
): Promise<T> {
  for (let tries = 0; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (signal.aborted || tries >= options.maxRetries || !isRetryable(error)) throw error;
      const reason = failureReason(error);
      const asked = serverRetryDelay(error);
      if (asked !== undefined && asked > options.maxWaitMs)
        throw new RetryWaitTooLongError(asked, options.maxWaitMs, error, reason);
      const delayMs = asked ?? backoffDelay(tries + 1, options.random);
      options.onWait?.({
        attempt: tries + 1,
        maxRetries: options.maxRetries,
        delayMs,
        reason,
        serverAsked: asked !== undefined,
      });
      await abortableSleep(delayMs, signal);
    }
  }
}
