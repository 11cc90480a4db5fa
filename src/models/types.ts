/**
 * Shapes shared by window discovery, the model table and the command-line `models` command.
 * All sizes are in tokens.
 */

/** Where a context window came from: the server's own report, the model table, or a setting/flag. */
export type WindowSource = 'server' | 'table' | 'flag';

/** The kinds of endpoint whose model routes are known. `openai-compatible`: only `/v1/models`. */
export type EndpointKind =
  'ollama' | 'llama.cpp' | 'vllm' | 'lmstudio' | 'openrouter' | 'openai-compatible' | 'unknown';

/** What is known about one model an endpoint offers. */
export interface ModelWindow {
  /** Model id as the endpoint names it (what goes in a request's `model`). */
  id: string;
  /**
   * Tokens the server serves the model with (prompt and reply together), or null when it cannot be
   * known (then `reason` says why).
   */
  window: number | null;
  /** The model's own maximum (trained) context, where known; may exceed `window`. */
  trainedWindow: number | null;
  /** Most tokens one reply may have, where known. */
  maxOutput?: number;
  /** Where `window` came from (for a null window: where the search ended). */
  source: WindowSource;
  /** Why `window` is null, or a note on it (for example: served below the trained window). */
  reason?: string;
}

/** What a probe of one endpoint found. */
export interface EndpointReport {
  /** Base URL as given. */
  baseUrl: string;
  kind: EndpointKind;
  models: ModelWindow[];
  /** Problems met on the way (unreachable route, malformed payload…), one line each. */
  notes: string[];
  /** With a wanted model (`DiscoverOptions.model`): whether the endpoint itself lists or serves it. */
  modelListed?: boolean;
}

/**
 * The `fetch` the discovery uses. Injected so tests and hosts choose the transport; the global
 * `fetch` of Node 20 fits.
 */
export type FetchLike = (
  url: string,
  init?: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal },
) => Promise<{
  ok: boolean;
  status: number;
  json(): Promise<unknown>;
  text(): Promise<string>;
}>;

/** Reasons meaning "the server says nothing about windows", where the model table may stand in. */
export const NOTHING_REPORTED = 'the server reports no window for this model';
export const NOT_LISTED = 'the server does not list this model';
