/**
 * `models --base-url URL [--model M] [--window N] [--json]`: what an endpoint serves, model by model.
 * With `--json`, an array of `{id, window, trainedWindow, source}` (plus `reason` when there is one,
 * always when `window` is null); `source` is `server`, `table` or `flag` (the `--window` flag).
 */
import { discoverEndpoint, type DiscoverOptions } from '../models/discover';
import { lookupModel } from '../models/table';
import type { EndpointKind, ModelWindow } from '../models/types';

/** Options of {@link modelsCommand}. */
export interface ModelsOptions {
  baseUrl: string;
  model?: string;
  /** Window to use instead of the server's, in tokens (reported with source `flag`). */
  window?: number;
  json?: boolean;
  timeoutMs?: number;
}

type Out = (line: string) => void;

const KIND_NAMES: Record<EndpointKind, string> = {
  ollama: 'Ollama',
  'llama.cpp': "llama.cpp's llama-server",
  vllm: 'vLLM',
  lmstudio: 'LM Studio',
  openrouter: 'an OpenRouter-style list',
  'openai-compatible': 'an OpenAI-compatible server that reports no windows',
  unknown: 'no answer that names the server',
};

/** One row as the JSON output prints it. */
export interface ModelRow {
  id: string;
  window: number | null;
  trainedWindow: number | null;
  source: 'server' | 'table' | 'flag';
  reason?: string;
}

/** Applies `--window` and shapes the rows. A flag above the served window keeps a note saying so. */
export function modelRows(models: ModelWindow[], flagWindow?: number): ModelRow[] {
  return models.map((m) => {
    const row: ModelRow = { id: m.id, window: m.window, trainedWindow: m.trainedWindow, source: m.source };
    if (m.reason) row.reason = m.reason;
    if (flagWindow) {
      const served = m.source === 'server' ? m.window : null;
      row.window = flagWindow;
      row.source = 'flag';
      row.reason =
        served !== null && flagWindow > served
          ? `--window ${flagWindow} is larger than the ${served} tokens the server reports`
          : undefined;
      if (row.reason === undefined) delete row.reason;
    }
    return row;
  });
}

/**
 * Lists the endpoint's models with their windows. Sets `process.exitCode = 1` when the endpoint
 * answered nothing useful. The key is read from `CONTEXT_KEEPER_API_KEY` or `OPENAI_API_KEY`.
 * What the probes found wrong (the `note:` lines) goes to `note` (standard error) with `--json`,
 * whose standard output stays the documented array.
 * @throws TypeError when `--base-url` is not a URL; Error naming the model when `--model` is listed
 *   neither by the endpoint nor in the model table (the entry point exits 2).
 */
export async function modelsCommand(
  o: ModelsOptions,
  out: Out,
  env: NodeJS.ProcessEnv = process.env,
  fetchImpl?: DiscoverOptions['fetch'],
  note: Out = (line) => process.stderr.write(`${line}\n`),
): Promise<void> {
  try {
    new URL(o.baseUrl);
  } catch {
    throw new TypeError(`--base-url "${o.baseUrl}" is not a URL (expected for example http://127.0.0.1:11434/v1)`);
  }
  const apiKey = env['CONTEXT_KEEPER_API_KEY'] || env['OPENAI_API_KEY'] || undefined;
  const report = await discoverEndpoint(o.baseUrl, {
    apiKey,
    model: o.model,
    timeoutMs: o.timeoutMs,
    fetch: fetchImpl,
  });
  // A model neither the endpoint nor the model table knows is most likely a typo: say so instead of a row of nulls.
  if (o.model && !report.modelListed && lookupModel(o.model) === undefined) {
    const endpoint =
      report.kind === 'unknown' ? `${o.baseUrl} answered with no model list` : `${o.baseUrl} does not list it`;
    throw new Error(`unknown model "${o.model}": ${endpoint} and the model table has no entry for it`);
  }
  const rows = modelRows(report.models, o.window);
  if (report.kind === 'unknown' && !o.model) process.exitCode = 1;
  if (o.json) {
    for (const n of report.notes) note(`note: ${n}`);
    return out(JSON.stringify(rows, null, 2));
  }
  out(`${o.baseUrl}: ${KIND_NAMES[report.kind]}, ${rows.length} model${rows.length === 1 ? '' : 's'}`);
  const width = Math.min(
    48,
    rows.reduce((m, r) => Math.max(m, r.id.length), 8),
  );
  for (const r of rows) {
    const window = r.window === null ? 'unknown' : `${r.window.toLocaleString('en-US')} tokens`;
    const trained =
      r.trainedWindow !== null && r.trainedWindow !== r.window
        ? `, trained ${r.trainedWindow.toLocaleString('en-US')}`
        : '';
    out(`  ${r.id.padEnd(width)}  ${window.padStart(16)}  (${r.source}${trained})${r.reason ? `  ${r.reason}` : ''}`);
  }
  for (const note of report.notes) out(`note: ${note}`);
}
