/**
 * What went wrong with one summarizer call, as a {@link SummarizerError} with a one-line message and
 * a kind (see `OpenAISummarizer`), never echoing the API key or header values.
 */
import OpenAI from 'openai';
import { SummarizerError } from '../compaction/types';
import { summarizerFailed, type ModelFailure } from '../compaction/outcome';
import { clipMiddle } from '../compaction/clip';
import { redactKey } from '../compaction/secrets';
import type { FiredReason } from './watchdog';
import { urlOrigin } from '../format/urls';

/** The call that failed, as the messages name it. */
export interface FailedCall {
  /** `scheme://host[:port]` of the endpoint. */
  endpoint: string;
  model: string;
  /** Per-attempt timeout and whole-call deadline, in milliseconds. */
  timeoutMs: number;
  deadlineMs: number;
  /** Retries the SDK made on retryable statuses. */
  maxRetries: number;
  /** Removes secrets from text that may echo them. */
  redact: (text: string) => string;
}

/** `text` without the given secrets (those of 6 characters or more), on one line, at most 300 characters. */
export function redactSecrets(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let out = text;
  for (const secret of secrets) if (typeof secret === 'string' && secret.length >= 6) out = redactKey(out, secret);
  return clipMiddle(out.replace(/\s+/g, ' ').trim(), 300);
}

/**
 * Maps anything thrown during a call to a one-line {@link SummarizerError}, without the key.
 * @param fired Why the call's watchdog fired, if it did.
 */
export function classifyFailure(error: unknown, fired: FiredReason | undefined, call: FailedCall): SummarizerError {
  const { endpoint, timeoutMs, deadlineMs, redact } = call;
  if (fired === 'aborted') return new SummarizerError('compaction cancelled', 'aborted', { cause: error });
  if (fired === 'idle') {
    return new SummarizerError(
      `the summarizer at ${endpoint} sent nothing for ${timeoutMs} ms; the partial summary was discarded`,
      'timeout',
      { cause: error },
    );
  }
  if (fired === 'deadline') {
    return new SummarizerError(`the summarizer at ${endpoint} did not finish within ${deadlineMs} ms`, 'timeout', {
      cause: error,
    });
  }
  if (error instanceof SummarizerError) return error;
  if (error instanceof OpenAI.APIUserAbortError)
    return new SummarizerError('compaction cancelled', 'aborted', { cause: error });
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new SummarizerError(`the summarizer at ${endpoint} did not answer within ${timeoutMs} ms`, 'timeout', {
      cause: error,
    });
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return new SummarizerError(`could not reach the summarizer at ${endpoint}: ${redact(causeText(error))}`, 'http', {
      cause: error,
    });
  }
  if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
    const detail = redact(apiErrorText(error));
    const code = typeof error.code === 'string' ? error.code : '';
    if (
      code === 'context_length_exceeded' ||
      /context length|context window|too many tokens|maximum context/i.test(detail)
    ) {
      return new SummarizerError(
        `the summarizer request exceeded the model's context window (HTTP ${error.status}): ${detail}`,
        'overflow',
        { cause: error, status: error.status },
      );
    }
    const what =
      error.status === 401 || error.status === 403
        ? 'rejected the API key'
        : error.status === 404
          ? `does not know model "${call.model}"`
          : error.status === 429
            ? 'is rate-limiting requests'
            : error.status >= 500
              ? 'had a server error'
              : 'rejected the request';
    const retried = error.status === 429 || error.status >= 500 || error.status === 408 || error.status === 409;
    const attempts = retried ? ` after ${call.maxRetries + 1} attempt(s)` : '';
    return new SummarizerError(
      `the summarizer at ${endpoint} ${what} (HTTP ${error.status})${attempts}: ${detail}`,
      'http',
      { cause: error, status: error.status },
    );
  }
  if (error instanceof SyntaxError) {
    return new SummarizerError(
      `the summarizer at ${endpoint} sent a malformed stream event; the partial summary was discarded`,
      'invalid',
      { cause: error },
    );
  }
  // Errors while reading the body (connection reset, terminated) surface as plain errors.
  return new SummarizerError(
    `the connection to the summarizer at ${endpoint} broke before the reply was complete (${redact(causeText(error))}); the partial summary was discarded`,
    'http',
    { cause: error },
  );
}

/** `scheme://host[:port]` of a base URL, for messages (no path, no credentials). */
export function describeEndpoint(baseURL: string): string {
  return urlOrigin(baseURL) ?? 'the configured endpoint';
}

function causeText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    if (current instanceof Error) {
      const code = (current as { code?: unknown }).code;
      parts.push(typeof code === 'string' ? `${current.message} (${code})` : current.message);
      current = current.cause;
    } else {
      // A cause that is not an Error (a string from a socket library) is printed as given.
      parts.push(typeof current === 'string' ? current : plainText(current));
      break;
    }
  }
  return parts.filter((p) => p.length > 0 && p !== 'Connection error.').join(': ') || 'connection error';
}

function apiErrorText(error: { error?: unknown; message: string }): string {
  const body = error.error as { message?: unknown } | undefined | null;
  if (body !== undefined && typeof body?.message === 'string') return body.message;
  return error.message.replace(/^\d{3}\s*/, '') || 'no details';
}

/** A non-Error value as JSON, or its type when it has none (undefined, a function, a cycle). */
function plainText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}

/**
 * The kind of failure of a model call from the error's class and HTTP status (never from its text):
 * the `openai` client's errors by status (401/403 `auth`, 404 `model-not-found`, 429 `rate-limit`,
 * 5xx `server`, a context-length code `context-length`, other statuses `rejected`), connection and
 * timeout errors, a {@link SummarizerError} by its own kind. Anything else is `unknown`.
 */
export function modelFailureOf(error: unknown): ModelFailure {
  if (error instanceof SummarizerError) {
    const failed = summarizerFailed(error);
    return { kind: failed.failure, ...(failed.status !== undefined ? { status: failed.status } : {}) };
  }
  if (error instanceof OpenAI.APIUserAbortError) return { kind: 'cancelled' };
  if (error instanceof OpenAI.APIConnectionTimeoutError) return { kind: 'timeout' };
  if (error instanceof OpenAI.APIConnectionError) return { kind: 'network' };
  if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
    const status = error.status;
    const kind: ModelFailure['kind'] =
      error.code === 'context_length_exceeded'
        ? 'context-length'
        : status === 401 || status === 403
          ? 'auth'
          : status === 404
            ? 'model-not-found'
            : status === 429
              ? 'rate-limit'
              : status >= 500
                ? 'server'
                : 'rejected';
    return { kind, status };
  }
  return { kind: 'unknown' };
}
