/**
 * Ollama's native routes (https://github.com/ollama/ollama/blob/main/docs/api.md):
 * - `GET /api/tags`: the models on disk, `{models: [{name, model, details}]}`.
 * - `GET /api/ps`: the models loaded now, each with `context_length`, the context it runs with.
 * - `POST /api/show {model}`: `model_info["<architecture>.context_length"]` (what the model was
 *   trained for) and `parameters`, the Modelfile's parameters as text (`num_ctx 8192` when set).
 *
 * Ollama runs a model with `num_ctx` from the request, else the Modelfile, else the server's
 * `OLLAMA_CONTEXT_LENGTH` (default 2048-4096 by version and memory), and silently drops the oldest
 * tokens of a longer prompt. So the served window is what counts, not the trained one.
 */
import { getJson, record, tokens, type JsonRequest } from './http';
import type { ModelWindow } from './types';

/** How to raise the window, for notes and the README. */
export const OLLAMA_RAISE_HINT =
  'raise it with OLLAMA_CONTEXT_LENGTH=<tokens> ollama serve, or PARAMETER num_ctx <tokens> in a Modelfile';

/** Model names from an `/api/tags` payload, or undefined when it is not one. */
export function parseOllamaTags(payload: unknown): string[] | undefined {
  const models = record(payload)?.models;
  if (!Array.isArray(models)) return undefined;
  return models.map((m) => record(m)?.name ?? record(m)?.model).filter((n): n is string => typeof n === 'string');
}

/** Served context per loaded model from an `/api/ps` payload (name → tokens). */
export function parseOllamaPs(payload: unknown): Map<string, number> {
  const served = new Map<string, number>();
  const models = record(payload)?.models;
  if (!Array.isArray(models)) return served;
  for (const m of models) {
    const r = record(m);
    const n = tokens(r?.context_length);
    for (const name of [r?.name, r?.model]) if (typeof name === 'string' && n) served.set(name, n);
  }
  return served;
}

/** The trained window and the configured `num_ctx` from an `/api/show` payload. */
export function parseOllamaShow(payload: unknown): { trained?: number; numCtx?: number } {
  const r = record(payload);
  const info = record(r?.model_info);
  let trained: number | undefined;
  if (info) {
    const arch = info['general.architecture'];
    trained = typeof arch === 'string' ? tokens(info[`${arch}.context_length`]) : undefined;
    // Some payloads lack the architecture key: any `*.context_length` is the model's own.
    trained ??= tokens(Object.entries(info).find(([k]) => k.endsWith('.context_length'))?.[1]);
  }
  const params = typeof r?.parameters === 'string' ? r.parameters : '';
  const match = /^\s*num_ctx\s+(\d+)\s*$/m.exec(params);
  return { trained, numCtx: match ? tokens(match[1]) : undefined };
}

/** Same model under Ollama's implicit `:latest` tag. */
export function sameOllamaModel(a: string, b: string): boolean {
  const norm = (s: string) => (s.includes(':') ? s : `${s}:latest`);
  return norm(a) === norm(b);
}

/**
 * One model's windows: served from `/api/ps` when loaded, else the configured `num_ctx`, else unknown.
 * `served` is the map from {@link parseOllamaPs}.
 */
export function ollamaModelWindow(
  id: string,
  show: { trained?: number; numCtx?: number },
  served: Map<string, number>,
): ModelWindow {
  const running = [...served].find(([name]) => sameOllamaModel(name, id))?.[1];
  const trainedWindow = show.trained ?? null;
  const window = running ?? show.numCtx ?? null;
  const model: ModelWindow = { id, window, trainedWindow, source: 'server' };
  if (window === null) {
    model.reason = `not loaded and no num_ctx configured: Ollama chooses the context when it loads the model (OLLAMA_CONTEXT_LENGTH); ${OLLAMA_RAISE_HINT}`;
  } else if (trainedWindow !== null && window < trainedWindow) {
    model.reason = `served with ${window.toLocaleString('en-US')} of the model's ${trainedWindow.toLocaleString('en-US')} tokens (${running ? 'running now' : 'num_ctx'}); ${OLLAMA_RAISE_HINT}`;
  }
  return model;
}

/**
 * Probes an Ollama server. `only`: the one model to describe (a session); otherwise every model on
 * disk (at most `limit`, default 50). Returns undefined when `/api/tags` is not Ollama's.
 */
export async function probeOllama(
  root: string,
  request: JsonRequest,
  only?: string,
  limit = 50,
): Promise<ModelWindow[] | undefined> {
  const tags = await getJson(`${root}/api/tags`, request);
  const names = tags.ok ? parseOllamaTags(tags.value) : undefined;
  if (!names) return undefined;
  const ps = await getJson(`${root}/api/ps`, request);
  const served = ps.ok ? parseOllamaPs(ps.value) : new Map<string, number>();
  const wanted = only ? [names.find((n) => sameOllamaModel(n, only)) ?? only] : names.slice(0, limit);
  return Promise.all(
    wanted.map(async (id) => {
      const show = await getJson(`${root}/api/show`, { ...request, body: { model: id } });
      if (!show.ok) {
        const known = served.get(id);
        return {
          id,
          window: known ?? null,
          trainedWindow: null,
          source: 'server' as const,
          reason: known ? undefined : `the server does not describe this model (${show.reason})`,
        };
      }
      return ollamaModelWindow(id, parseOllamaShow(show.value), served);
    }),
  );
}
