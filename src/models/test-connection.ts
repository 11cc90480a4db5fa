/**
 * "Test connection": what an endpoint is, which models it offers with which windows, whether a tiny
 * chat request to the configured model goes through, and what that means for the session. Shared by
 * the editor command and usable headless; all I/O through the injected `fetch`.
 */
import { discoverEndpoint } from './discover';
import { chatCompletionsUrl, getJson, roots, withApiPath } from './http';
import type { ModelFailure } from '../compaction/outcome';
import { describeWindow, resolveWindow, type ResolvedWindow } from './resolve';
import type { EndpointReport, FetchLike } from './types';

/** Options of {@link testConnection}. */
export interface ConnectionTestOptions {
  /** Endpoint; empty means the OpenAI API. */
  baseUrl: string;
  /** The model the agent is set to use. */
  model: string;
  apiKey?: string;
  /** The user's window setting (0: none). */
  contextWindow?: number;
  fetch?: FetchLike;
  /** Per request, in milliseconds. Default 10000 (a cold local model may load first). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** The outcome: `ok` when the tiny request succeeded. `lines` is the report, one finding per line. */
export interface ConnectionTestResult {
  ok: boolean;
  lines: string[];
  /** The line about the configured model and its window (also in `lines`). */
  modelLine: string;
  /** Why the test request failed (from its HTTP status), when it did. */
  failure?: ModelFailure;
  /** The failure in a few words, when the test request failed: "HTTP 500: <the server's message>". */
  reason?: string;
  endpoint: EndpointReport;
  window: ResolvedWindow;
}

const OPENAI_API = 'https://api.openai.com/v1';
const fmt = (n: number) => n.toLocaleString('en-US');
const KIND: Record<EndpointReport['kind'], string> = {
  ollama: 'Ollama',
  'llama.cpp': "llama.cpp's llama-server",
  vllm: 'vLLM',
  lmstudio: 'LM Studio',
  openrouter: 'an OpenRouter-style API',
  'openai-compatible': 'an OpenAI-compatible API (reports no windows)',
  unknown: 'unrecognized (no model list)',
};

/** Runs the test. Never throws for endpoint failures: they are findings in `lines`. */
export async function testConnection(options: ConnectionTestOptions): Promise<ConnectionTestResult> {
  const baseUrl = options.baseUrl.trim() || OPENAI_API;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const fetch = options.fetch ?? globalThis.fetch;
  const lines: string[] = [];
  const endpoint = await discoverEndpoint(baseUrl, {
    fetch,
    apiKey: options.apiKey,
    timeoutMs,
    signal: options.signal,
  });
  lines.push(
    `Endpoint ${baseUrl}: ${KIND[endpoint.kind]}, ${endpoint.models.length} model${endpoint.models.length === 1 ? '' : 's'}.`,
  );
  for (const m of endpoint.models.slice(0, 30)) {
    const window =
      m.window === null
        ? 'window unknown'
        : `${fmt(m.window)} tokens (${m.source === 'server' ? 'served' : 'model table'})`;
    const trained = m.trainedWindow !== null && m.trainedWindow !== m.window ? `, trained ${fmt(m.trainedWindow)}` : '';
    lines.push(`  ${m.id}: ${window}${trained}${m.reason ? ` — ${m.reason}` : ''}`);
  }
  if (endpoint.models.length > 30) lines.push(`  … and ${endpoint.models.length - 30} more.`);
  for (const note of endpoint.notes) lines.push(`  note: ${note}`);

  const mine = await discoverEndpoint(baseUrl, {
    fetch,
    apiKey: options.apiKey,
    timeoutMs,
    signal: options.signal,
    model: options.model,
  });
  const window = resolveWindow(options.model, mine, options.contextWindow);
  const modelLine = `Model ${options.model}: ${describeWindow(window)}${window.maxOutput ? `, replies up to ${fmt(window.maxOutput)} tokens` : ''}.`;
  lines.push(modelLine);
  for (const w of window.warnings) lines.push(`  warning: ${w}`);

  const started = Date.now();
  // The very URL tasks call (not a guessed /v1 root): a test must fail where tasks would.
  const chatUrl = chatCompletionsUrl(withApiPath(baseUrl));
  const reply = await getJson(chatUrl, {
    fetch,
    apiKey: options.apiKey,
    timeoutMs,
    signal: options.signal,
    body: { model: options.model, messages: [{ role: 'user', content: 'Reply with the word OK.' }], stream: false },
  });
  let ok = false;
  let failure: ModelFailure | undefined;
  let reason: string | undefined;
  if (reply.ok) {
    const usage = (reply.value as { usage?: { prompt_tokens?: number } })?.usage;
    ok = Array.isArray((reply.value as { choices?: unknown })?.choices);
    lines.push(
      ok
        ? `A test request to ${options.model} answered in ${Date.now() - started} ms${usage?.prompt_tokens ? ` (${usage.prompt_tokens} prompt tokens)` : ''}.`
        : `A test request to ${options.model} got a reply that is not a chat completion.`,
    );
    if (!ok) {
      failure = { kind: 'bad-reply', status: reply.status };
      reason = 'the reply is not a chat completion';
    }
  } else {
    failure = failureOfStatus(reply.status);
    const what =
      reply.status === 401 || reply.status === 403
        ? 'the API key was rejected'
        : reply.status === 404
          ? `the endpoint does not know model "${options.model}" (or has no chat route at ${chatUrl}${
              chatUrl !== `${roots(baseUrl).v1}/chat/completions` ? `; the API may live at ${roots(baseUrl).v1}` : ''
            })`
          : reply.reason;
    // The status and the server's own words stay together: they are what the user acts on.
    reason = reply.status === undefined || what === reply.reason ? what : `HTTP ${reply.status}, ${what}`;
    lines.push(`A test request to ${options.model} failed: ${what}.`);
  }
  return { ok, lines, modelLine, ...(failure ? { failure } : {}), ...(reason ? { reason } : {}), endpoint, window };
}

/** The failure kind of a test request from its HTTP status (none: the server was not reached). */
function failureOfStatus(status: number | undefined): ModelFailure {
  if (status === undefined) return { kind: 'network' };
  const kind =
    status === 401 || status === 403
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
