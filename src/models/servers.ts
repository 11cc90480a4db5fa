/**
 * Payload readers for the servers that report a window beside the OpenAI routes. Each reads one
 * documented response shape and returns model windows; none fetches.
 *
 * - llama.cpp's `llama-server` (tools/server/README.md): `GET /props` has
 *   `default_generation_settings.n_ctx` (the context of one slot: what a request may use; `-c` divided
 *   by `--parallel`), and `GET /v1/models` lists `meta.n_ctx_train`, the model's own maximum.
 * - vLLM (OpenAI-compatible server): `GET /v1/models` lists `max_model_len` per model (`--max-model-len`).
 * - LM Studio's REST API v0 (lmstudio.ai/docs/developer/rest/endpoints): `GET /api/v0/models` lists
 *   `state` (`loaded` | `not-loaded`), `max_context_length` and, when loaded, `loaded_context_length`.
 * - OpenRouter (openrouter.ai/docs/api-reference/list-available-models): `GET /api/v1/models` lists
 *   `context_length` and `top_provider.{context_length, max_completion_tokens}`.
 */
import { record, tokens } from './http';
import { NOTHING_REPORTED, type EndpointKind, type ModelWindow } from './types';

/** How to raise a llama.cpp server's window. */
export const LLAMACPP_RAISE_HINT =
  "restart llama-server with a larger -c (--ctx-size; 0 = the model's own) and mind --parallel, which divides it";
/** How to raise an LM Studio model's window. */
export const LMSTUDIO_RAISE_HINT =
  "reload the model with a larger context length (lms load <model> --context-length <tokens>, or the model's load settings in the app)";

const fmt = (n: number) => n.toLocaleString('en-US');

/** The `data` array of an OpenAI-style list, or undefined. */
export function listData(payload: unknown): Record<string, unknown>[] | undefined {
  const data = record(payload)?.data;
  if (!Array.isArray(data)) return undefined;
  return data.map(record).filter((m): m is Record<string, unknown> => m !== undefined && typeof m.id === 'string');
}

/** The per-request context of a llama.cpp server from a `/props` payload. */
export function parseLlamaProps(payload: unknown): number | undefined {
  const r = record(payload);
  return tokens(record(r?.default_generation_settings)?.n_ctx) ?? tokens(r?.n_ctx);
}

/** llama.cpp: one served window for every listed model (a server runs one model, or a router's active one). */
export function llamaCppModels(nCtx: number, list: Record<string, unknown>[]): ModelWindow[] {
  const entries = list.length > 0 ? list : [{ id: 'default' }];
  return entries.map((m) => {
    const trained = tokens(record(m.meta)?.n_ctx_train) ?? null;
    const model: ModelWindow = { id: String(m.id), window: nCtx, trainedWindow: trained, source: 'server' };
    if (trained !== null && nCtx < trained)
      model.reason = `served with ${fmt(nCtx)} of the model's ${fmt(trained)} tokens; ${LLAMACPP_RAISE_HINT}`;
    return model;
  });
}

/** LM Studio's `/api/v0/models` payload, or undefined when it is not one. Embedding models are left out. */
export function lmStudioModels(payload: unknown): ModelWindow[] | undefined {
  const list = listData(payload);
  if (!list || !list.some((m) => 'state' in m || 'max_context_length' in m)) return undefined;
  return list
    .filter((m) => m.type !== 'embeddings')
    .map((m) => {
      const trained = tokens(m.max_context_length) ?? null;
      const loaded = m.state === 'loaded' ? tokens(m.loaded_context_length) : undefined;
      const model: ModelWindow = { id: String(m.id), window: loaded ?? null, trainedWindow: trained, source: 'server' };
      if (loaded === undefined)
        model.reason = `not loaded: LM Studio picks the context when it loads the model; ${LMSTUDIO_RAISE_HINT}`;
      else if (trained !== null && loaded < trained)
        model.reason = `loaded with ${fmt(loaded)} of the model's ${fmt(trained)} tokens; ${LMSTUDIO_RAISE_HINT}`;
      return model;
    });
}

/**
 * Models of a `/v1/models` list with whatever window fields it carries, and the kind they reveal:
 * `max_model_len` (vLLM), `context_length` (OpenRouter and servers copying its shape), or nothing.
 */
export function openAiListModels(list: Record<string, unknown>[]): { kind: EndpointKind; models: ModelWindow[] } {
  let kind: EndpointKind = 'openai-compatible';
  const models = list.map((m): ModelWindow => {
    const id = String(m.id);
    const maxModelLen = tokens(m.max_model_len);
    if (maxModelLen) {
      kind = 'vllm';
      return { id, window: maxModelLen, trainedWindow: null, source: 'server' };
    }
    const top = record(m.top_provider);
    const contextLength = tokens(m.context_length);
    const served = tokens(top?.context_length) ?? contextLength;
    if (served) {
      kind = 'openrouter';
      const model: ModelWindow = { id, window: served, trainedWindow: contextLength ?? served, source: 'server' };
      const maxOutput = tokens(top?.max_completion_tokens);
      if (maxOutput) model.maxOutput = maxOutput;
      return model;
    }
    const trained = tokens(record(m.meta)?.n_ctx_train) ?? null;
    return { id, window: null, trainedWindow: trained, source: 'server', reason: NOTHING_REPORTED };
  });
  return { kind, models };
}
