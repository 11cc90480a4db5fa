/**
 * The one context window a session measures against, with where it came from, and the reply reserve.
 *
 * Precedence: the setting wins (its value in force: VS Code applies folder, workspace, then user
 * settings); then what the server serves the model with; then the model table; then a fallback the
 * gauge labels as assumed. A setting above what the server reports
 * is kept (the user may know better, for example a server about to be restarted) but warned about,
 * once per endpoint, model and figures.
 */
import type { EndpointReport, ModelWindow, WindowSource } from './types';
import { lookupModel } from './table';

/** Window used when nothing is known, in tokens (the long-standing default of the product). */
export const FALLBACK_WINDOW = 128_000;

/** Where the session's window came from; `fallback` when nothing was known. */
export type ResolvedSource = WindowSource | 'fallback';

/** The resolved window of one session. */
export interface ResolvedWindow {
  model: string;
  /** Tokens the gauge and the thresholds use. */
  window: number;
  source: ResolvedSource;
  /** What the server reported (served window), when it did. */
  serverWindow?: number;
  /** The model's own maximum, when known. */
  trainedWindow?: number;
  /** Most tokens one reply may have, when known. */
  maxOutput?: number;
  /** Lines for the user: served below trained, setting above served, nothing known. */
  warnings: string[];
}

const fmt = (n: number) => n.toLocaleString('en-US');

/**
 * The gauge's label: "32,768 tokens, reported by the server", "… from the model table", "… from
 * settings" (`settingOrigin` replaces "from settings": which layer, "from workspace settings").
 */
export function describeWindow(
  resolved: Pick<ResolvedWindow, 'window' | 'source'> & { inputOnly?: boolean },
  settingOrigin = 'from settings',
): string {
  const where = {
    server: resolved.inputOnly ? 'reported by VS Code' : 'reported by the server',
    table: 'from the model table',
    flag: settingOrigin,
    fallback: 'assumed: nothing reported it',
  }[resolved.source];
  return `${fmt(resolved.window)} tokens, ${where}`;
}

/**
 * Resolves the window of `model` from a discovery report (or none, when the endpoint could not be
 * asked) and the user's setting (0 or undefined: not set).
 */
export function resolveWindow(model: string, report: EndpointReport | undefined, setting?: number): ResolvedWindow {
  const found: ModelWindow | undefined =
    report?.models.find((m) => m.id === model) ?? (report?.models.length === 1 ? report.models[0] : undefined);
  const known = lookupModel(model);
  const serverWindow = found?.source === 'server' && found.window !== null ? found.window : undefined;
  const trainedWindow = found?.trainedWindow ?? (serverWindow === undefined ? known?.window : undefined) ?? undefined;
  const maxOutput = found?.maxOutput ?? known?.maxOutput;
  const warnings: string[] = [];
  let window: number;
  let source: ResolvedSource;
  if (setting && setting > 0) {
    window = Math.floor(setting);
    source = 'flag';
    if (serverWindow !== undefined && window > serverWindow) {
      warnings.push(
        `The contextKeeper.contextWindow setting (${fmt(window)} tokens) is larger than the ${fmt(serverWindow)} tokens the server reports for ${model}: prompts past ${fmt(serverWindow)} tokens may be cut or refused.`,
      );
    }
  } else if (serverWindow !== undefined) {
    window = serverWindow;
    source = 'server';
    if (found?.reason) warnings.push(`${model}: ${found.reason}.`);
  } else if (found?.window != null) {
    window = found.window;
    source = found.source;
  } else if (known) {
    window = known.window;
    source = 'table';
    if (
      found?.reason &&
      found.reason !== undefined &&
      report?.kind !== 'openai-compatible' &&
      report?.kind !== 'unknown'
    )
      warnings.push(
        `${model}: ${found.reason}. Using the model table's ${fmt(known.window)} tokens until the server reports its window.`,
      );
  } else {
    window = FALLBACK_WINDOW;
    source = 'fallback';
    warnings.push(
      `No window is known for ${model}${found?.reason ? ` (${found.reason})` : ''}: assuming ${fmt(FALLBACK_WINDOW)} tokens. Set contextKeeper.contextWindow to the window the server serves.`,
    );
  }
  const resolved: ResolvedWindow = { model, window, source, warnings };
  if (serverWindow !== undefined) resolved.serverWindow = serverWindow;
  if (trainedWindow !== undefined) resolved.trainedWindow = trainedWindow;
  if (maxOutput !== undefined) resolved.maxOutput = maxOutput;
  return resolved;
}

/**
 * Output tokens to reserve for the reply: the configured reserve, but never more than the model can
 * write in one reply (reserving a 4,096-token reply for a model limited to 2,048 wastes window).
 */
export function replyReserve(configured: number, resolved: Pick<ResolvedWindow, 'maxOutput'>): number {
  return resolved.maxOutput !== undefined ? Math.min(configured, resolved.maxOutput) : configured;
}

/** Remembers which warnings were shown, so each is shown once per window (not on every rebuild). */
export class WarnOnce {
  private readonly seen = new Set<string>();
  /** The warnings not shown before; marks them shown. */
  filter(warnings: readonly string[]): string[] {
    return warnings.filter((w) => !this.seen.has(w) && (this.seen.add(w), true));
  }
}
