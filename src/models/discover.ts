/**
 * Window discovery for one endpoint: asks the routes each kind of server documents, in one round of
 * parallel requests, and fills what the server does not say from the model table.
 *
 * Order of trust for `window`: what the server serves the model with (Ollama `/api/ps` or `num_ctx`,
 * llama.cpp `/props`, LM Studio `loaded_context_length`, vLLM `max_model_len`, OpenRouter
 * `top_provider.context_length`), then the model table (source `table`), else null with a reason.
 */
import { getJson, roots, type JsonRequest } from './http';
import { probeOllama, sameOllamaModel } from './ollama';
import { listData, llamaCppModels, lmStudioModels, openAiListModels, parseLlamaProps } from './servers';
import { lookupModel } from './table';
import { NOT_LISTED, NOTHING_REPORTED, type EndpointReport, type FetchLike, type ModelWindow } from './types';

/** Options of {@link discoverEndpoint}. */
export interface DiscoverOptions {
  fetch?: FetchLike;
  apiKey?: string;
  /** Per request, in milliseconds. Default 3000. */
  timeoutMs?: number;
  /** Describe only this model (a session start); otherwise every model the endpoint lists. */
  model?: string;
  signal?: AbortSignal;
}

/** OpenAI's API: nothing to probe but the list (which carries no windows). */
const OPENAI_HOST = /(^|\.)openai\.com$|(^|\.)openai\.azure\.com$|\.cognitiveservices\.azure\.com$/;

/**
 * Probes `baseUrl` (with or without its `/v1`). Never throws for an unreachable or odd server: the
 * report then has kind `unknown`, notes saying what failed, and table windows where known.
 * @throws TypeError when `baseUrl` is not a URL; the caller's abort error when `signal` aborts.
 */
export async function discoverEndpoint(baseUrl: string, options: DiscoverOptions = {}): Promise<EndpointReport> {
  const fetch = options.fetch ?? globalThis.fetch;
  const request: JsonRequest = { fetch, apiKey: options.apiKey, timeoutMs: options.timeoutMs, signal: options.signal };
  const { root, v1 } = roots(baseUrl);
  const notes: string[] = [];
  const native = !OPENAI_HOST.test(new URL(baseUrl).hostname);
  const [list, props, lmstudio, ollama] = await Promise.all([
    getJson(`${v1}/models`, request),
    native ? getJson(`${root}/props`, request) : undefined,
    native ? getJson(`${root}/api/v0/models`, request) : undefined,
    native ? probeOllama(root, request, options.model) : undefined,
  ]);
  const listed = list.ok ? listData(list.value) : undefined;
  if (!list.ok) notes.push(`GET ${v1}/models: ${list.reason}`);
  else if (!listed) notes.push(`GET ${v1}/models: not an OpenAI model list`);

  let report: EndpointReport;
  const nCtx = props?.ok ? parseLlamaProps(props.value) : undefined;
  const lm = lmstudio?.ok ? lmStudioModels(lmstudio.value) : undefined;
  if (ollama) report = { baseUrl, kind: 'ollama', models: ollama, notes };
  else if (nCtx) report = { baseUrl, kind: 'llama.cpp', models: llamaCppModels(nCtx, listed ?? []), notes };
  else if (lm) report = { baseUrl, kind: 'lmstudio', models: lm, notes };
  else if (listed) report = { baseUrl, ...openAiListModels(listed), notes };
  else report = { baseUrl, kind: 'unknown', models: [], notes };

  if (options.model) {
    const wanted = options.model;
    const hit = report.models.find(
      (m) => m.id === wanted || (report.kind === 'ollama' && sameOllamaModel(m.id, wanted)),
    );
    report.modelListed = hit !== undefined;
    report.models = [
      hit ?? {
        id: options.model,
        window: null,
        trainedWindow: null,
        source: 'server',
        reason: report.models.length ? NOT_LISTED : NOTHING_REPORTED,
      },
    ];
  }
  report.models = report.models.map(fillFromTable);
  return report;
}

/** Adds table figures: the window when the server gave none, the trained window and output limit when missing. */
export function fillFromTable(model: ModelWindow): ModelWindow {
  const known = lookupModel(model.id);
  if (!known) return model;
  const filled: ModelWindow = { ...model };
  filled.maxOutput ??= known.maxOutput;
  if (filled.trainedWindow === null && filled.window === null) filled.trainedWindow = known.window;
  // A table figure stands in only where the server reports nothing at all about windows; a server
  // that reports "not loaded" must not be papered over with the trained window it will not serve.
  if (filled.window === null && (model.reason === NOTHING_REPORTED || model.reason === NOT_LISTED)) {
    filled.window = known.window;
    filled.source = 'table';
    filled.reason = undefined;
  }
  if (filled.reason === undefined) delete filled.reason;
  if (filled.maxOutput === undefined) delete filled.maxOutput;
  return filled;
}
