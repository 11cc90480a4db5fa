/**
 * The window of a session about to open: asks the endpoint (briefly; a slow or absent server must not
 * hold the session up) or takes an editor model's input limit, then applies the user's setting.
 */
import { discoverEndpoint } from './discover';
import { resolveWindow, type ResolvedWindow } from './resolve';
import { lookupModel } from './table';
import type { FetchLike } from './types';

/** Options of {@link sessionWindow}. */
export interface SessionWindowOptions {
  /** Endpoint; empty means the OpenAI API, whose windows come from the model table (nothing is asked). */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** The user's `contextWindow` setting; 0 or undefined when not set. */
  setting?: number;
  fetch?: FetchLike;
  /** Per request, in milliseconds. Default 2500. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Resolves the window of an endpoint's model. Never throws for endpoint failures (the table or the fallback stands in). */
export async function sessionWindow(options: SessionWindowOptions): Promise<ResolvedWindow> {
  const baseUrl = options.baseUrl.trim();
  // The OpenAI API lists no windows: skip the round trip and read the table.
  const report = baseUrl
    ? await discoverEndpoint(baseUrl, {
        model: options.model,
        apiKey: options.apiKey,
        fetch: options.fetch,
        timeoutMs: options.timeoutMs ?? 2500,
        signal: options.signal,
      })
    : undefined;
  return resolveWindow(options.model, report, options.setting);
}

/**
 * The window of a VS Code chat model: its `maxInputTokens` (what one request may send), reported by
 * the editor; the setting still wins. The reply is not part of that limit, hence `inputOnly`.
 */
export function editorModelWindow(
  model: { id: string; family: string; maxInputTokens: number },
  setting?: number,
): ResolvedWindow & { inputOnly: true } {
  const known = lookupModel(model.family) ?? lookupModel(model.id);
  const warnings: string[] = [];
  let window = model.maxInputTokens;
  let source: ResolvedWindow['source'] = 'server';
  if (setting && setting > 0) {
    if (setting > model.maxInputTokens)
      warnings.push(
        `The contextKeeper.contextWindow setting (${setting.toLocaleString('en-US')} tokens) is larger than the ${model.maxInputTokens.toLocaleString('en-US')} input tokens VS Code reports for ${model.id}: longer prompts will be refused.`,
      );
    window = Math.floor(setting);
    source = 'flag';
  }
  return {
    model: model.id,
    window,
    source,
    serverWindow: model.maxInputTokens,
    ...(known?.maxOutput ? { maxOutput: known.maxOutput } : {}),
    warnings,
    inputOnly: true,
  };
}
