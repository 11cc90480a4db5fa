/**
 * Small JSON requests for window discovery: a time limit per request, no retries, no throwing for
 * ordinary failures (a route a server does not have is an answer, not an error).
 */
import type { FetchLike } from './types';
import { errorMessage } from '../format/error-message';

/** Options of {@link getJson}. */
export interface JsonRequest {
  fetch: FetchLike;
  /** Bearer key sent as `Authorization` (OpenAI, OpenRouter, a secured local server). */
  apiKey?: string;
  /** Abort after this many milliseconds. Default 3000: discovery must not hold up a session. */
  timeoutMs?: number;
  /** POST this value as JSON instead of a GET. */
  body?: unknown;
  signal?: AbortSignal;
}

/** The outcome of one request: the parsed body, or why there is none. */
export type JsonResult = { ok: true; status: number; value: unknown } | { ok: false; status?: number; reason: string };

/** Requests `url` and parses JSON. Never rejects except when `signal` is aborted by the caller. */
export async function getJson(url: string, request: JsonRequest): Promise<JsonResult> {
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(), request.timeoutMs ?? 3000);
  const signal = request.signal ? AbortSignal.any([request.signal, timer.signal]) : timer.signal;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (request.apiKey) headers.authorization = `Bearer ${request.apiKey}`;
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  try {
    const response = await request.fetch(url, {
      method: request.body === undefined ? 'GET' : 'POST',
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal,
    });
    if (!response.ok) {
      const said = serverMessage(await response.text().catch(() => ''));
      return { ok: false, status: response.status, reason: `HTTP ${response.status}${said ? `: ${said}` : ''}` };
    }
    try {
      return { ok: true, status: response.status, value: await response.json() };
    } catch {
      return { ok: false, status: response.status, reason: 'the reply is not JSON' };
    }
  } catch (error) {
    if (request.signal?.aborted) throw error;
    if (timer.signal.aborted) return { ok: false, reason: `no answer within ${request.timeoutMs ?? 3000} ms` };
    return { ok: false, reason: errorMessage(error) };
  } finally {
    clearTimeout(timeout);
  }
}

/** Characters kept of a server's error message. */
const SERVER_MESSAGE_MAX_CHARS = 200;

/**
 * The message of an error reply's body: `error.message`, `error` (a string), `message` or `detail`
 * of a JSON body (OpenAI, Ollama, vLLM, FastAPI shapes), else the body's text; white space collapsed,
 * cut at {@link SERVER_MESSAGE_MAX_CHARS} characters. '' for an empty body.
 */
export function serverMessage(body: string): string {
  let text = body;
  try {
    const value = JSON.parse(body) as Record<string, unknown> | null;
    const error = value?.error;
    const found = [
      typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : error,
      value?.message,
      value?.detail,
    ].find((v): v is string => typeof v === 'string' && v.trim() !== '');
    if (found) text = found;
  } catch {
    // Not JSON: the text itself (an HTML error page still names its status line).
  }
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > SERVER_MESSAGE_MAX_CHARS ? `${text.slice(0, SERVER_MESSAGE_MAX_CHARS - 1)}…` : text;
}

/** `value` as a positive integer number of tokens, or undefined. Accepts numeric strings. */
export function tokens(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined;
}

/** `value` as a plain object, or undefined. */
export function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * The server root and the `/v1` root of a base URL. Users give either
 * (`http://127.0.0.1:11434` or `http://127.0.0.1:11434/v1`); the native routes live at the root.
 * @throws TypeError when `baseUrl` is not a URL.
 */
export function roots(baseUrl: string): { root: string; v1: string } {
  const url = new URL(baseUrl);
  url.search = '';
  url.hash = '';
  let path = url.pathname.replace(/\/+$/, '');
  // OpenRouter's API lives under /api/v1; LM Studio's native one under /api/v0.
  const v1 = /\/v1$/.test(path) ? `${url.origin}${path}` : `${url.origin}${path}/v1`;
  if (/\/v1$/.test(path)) path = path.replace(/\/v1$/, '');
  return { root: `${url.origin}${path}`, v1 };
}

/**
 * The URL a chat completion goes to for `baseUrl`, exactly as the agent's and the summarizer's OpenAI
 * client builds it (the base URL as given, trailing slashes dropped, then `/chat/completions`). Test
 * Connection calls this one, so a test passes only where tasks would reach the model.
 */
export function chatCompletionsUrl(baseUrl: string): string {
  return `${baseUrl.trim().replace(/\/+$/, '')}/chat/completions`;
}

/**
 * `baseUrl` with `/v1` added when it names a server and no path (`http://127.0.0.1:11434`): every
 * local server and OpenAI serve the chat API under `/v1`, and nothing answers chat at a bare origin.
 * Any other URL is returned as typed (trimmed). Throws nothing: a URL that does not parse is returned as is.
 */
export function withApiPath(baseUrl: string): string {
  const typed = baseUrl.trim();
  try {
    const url = new URL(typed);
    if (url.pathname.replace(/\/+$/, '') === '' && !url.search && !url.hash) return `${url.origin}/v1`;
  } catch {
    // not a URL: left to the caller's validation
  }
  return typed;
}
