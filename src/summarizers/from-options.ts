/**
 * Builds the summarizer from settings or command-line flags: an {@link OpenAISummarizer} when an
 * endpoint is configured, the extractive summarizer otherwise (the design's default without a model).
 */
import type { Summarizer } from '../compaction/types';
import { ExtractiveSummarizer } from '../compaction/summary/extractive';
import { DEFAULT_CONTEXT_WINDOW, resolveContextWindow } from '../compaction/plan/budget';
import { OpenAISummarizer, type ReplyLimitParameter } from './openai';
import { FallbackSummarizer } from './fallback';
import { redactUrl } from '../format/urls';
import { withApiPath } from '../models/http';

/** OpenAI's public endpoint, used when a model is set without a base URL. */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';
/**
 * Window assumed for an unknown model on a non-OpenAI endpoint, in tokens. Local servers often run
 * with small windows; guessing too large makes every summary request fail with a context-length error.
 */
export const UNKNOWN_LOCAL_WINDOW = 16_384;

/** Summarizer settings (`contextKeeper.summarizer.*` in the extension, flags in the CLI). */
export interface SummarizerSettings {
  /** Endpoint base URL; empty with an empty `model` means "no model summarizer". */
  baseUrl?: string;
  /** Summary model id. */
  model?: string;
  /** API key (from SecretStorage or the environment). Never logged. */
  apiKey?: string;
  /** The summary model's window, in tokens; default from the known-model table. */
  contextWindow?: number;
  timeoutMs?: number;
  maxRetries?: number;
  stream?: boolean;
  instruction?: string;
  replyLimitParameter?: ReplyLimitParameter;
  headers?: Record<string, string>;
  /** Token counter (the meter's `countText`); used by the extractive summarizer and to fit the window. */
  countText: (text: string) => number;
  /**
   * True while `countText` is tiktoken's exact count (`TokenCounter.lineAdditive`): the extractive
   * notes are then counted line by line. Read at each summary, since a deferred counter becomes
   * exact after the summarizer is built. Absent: whole texts are counted.
   */
  lineAdditive?: () => boolean;
  /** The session's own model as a summarizer, tried once when the configured one fails. */
  session?: Summarizer;
  /** After the model summarizers fail, fall back to the extractive summarizer. Default false. */
  extractiveFallback?: boolean;
  /** Mask credentials in what is sent (an endpoint other than the session's own). Default false. */
  maskSecrets?: boolean;
  /**
   * The summary model is the session's own model at the session's own endpoint: summaries then send
   * the agent's prefix unchanged when it fits (see `OpenAISummarizerOptions.reusePrefix`). Default false.
   */
  reusePrefix?: boolean;
  log?: (line: string) => void;
}

/**
 * Returns the summarizer for `settings`: extractive when neither `baseUrl` nor `model` is set;
 * otherwise an {@link OpenAISummarizer} (base URL defaulting to OpenAI's), wrapped in a
 * {@link FallbackSummarizer} when `session` or `extractiveFallback` is given.
 *
 * @throws RangeError when a base URL is set without a model, or the base URL is not an http(s) URL.
 */
export function summarizerFromSettings(settings: SummarizerSettings): Summarizer {
  const baseUrl = settings.baseUrl?.trim() ?? '';
  const model = settings.model?.trim() ?? '';
  const extractive = new ExtractiveSummarizer(settings.countText, lineAdditiveOption(settings.lineAdditive));
  if (baseUrl.length === 0 && model.length === 0) return extractive;
  if (model.length === 0)
    throw new RangeError(
      `a summary model is required for the summarizer endpoint ${redactUrl(baseUrl) ?? '(not a URL)'}`,
    );
  // A bare server address gets /v1, as every other model call does (`withApiPath`).
  const url = baseUrl.length > 0 ? withApiPath(baseUrl) : OPENAI_BASE_URL;
  if (!/^https?:\/\//i.test(url))
    throw new RangeError(
      `the summarizer base URL must start with http:// or https://, got ${redactUrl(url) ?? '(not a URL)'}`,
    );
  const primary = new OpenAISummarizer({
    baseURL: url,
    apiKey: settings.apiKey,
    model,
    contextWindow: settings.contextWindow ?? defaultWindow(model, url),
    instruction: settings.instruction,
    timeoutMs: settings.timeoutMs,
    maxRetries: settings.maxRetries,
    stream: settings.stream,
    replyLimitParameter: settings.replyLimitParameter,
    headers: settings.headers,
    countText: scaled(settings.countText),
    log: settings.log,
    maskSecrets: settings.maskSecrets,
    reusePrefix: settings.reusePrefix,
  });
  if (settings.session === undefined && settings.extractiveFallback !== true) return primary;
  return new FallbackSummarizer(primary, {
    session: settings.session,
    extractive: settings.extractiveFallback === true ? extractive : undefined,
    onFallback: (from, to, error) => settings.log?.(`summarizer ${from} failed (${error.kind}); trying ${to}`),
  });
}

/** The extractive summarizer's option, read when a summary is made (see `SummarizerSettings.lineAdditive`). */
export function lineAdditiveOption(lineAdditive: (() => boolean) | undefined): { readonly lineAdditive: boolean } {
  return {
    get lineAdditive(): boolean {
      return lineAdditive?.() === true;
    },
  };
}

/**
 * True when the summary model is the session's own model at the session's own endpoint (summary base
 * URL empty or the same): only that model has the agent's prefix in its prompt cache, and only that
 * endpoint has already seen the transcript unmasked. Editor models (`vscode.lm`) report no caching.
 */
export function reusesSessionPrefix(
  session: { baseUrl: string; model: string; modelSource?: string },
  summary: { baseUrl?: string; model?: string },
): boolean {
  const model = summary.model?.trim() ?? '';
  const baseUrl = summary.baseUrl?.trim() ?? '';
  if (session.modelSource === 'vscode' || model.length === 0) return false;
  return model === session.model.trim() && (baseUrl.length === 0 || baseUrl === session.baseUrl.trim());
}

/** Command-line flags of the summarizer (`--summarizer openai --base-url URL --summary-model M`). */
export interface SummarizerFlags {
  /** `openai` or `extractive` (default). */
  summarizer?: string;
  baseUrl?: string;
  summaryModel?: string;
  /** The summary model's window, in tokens. */
  summaryWindow?: number;
  timeoutMs?: number;
  /** The counter is tiktoken's exact one (`TokenMeter.lineAdditive`): extractive notes count line by line. */
  lineAdditive?: boolean;
  /** `--extractive-fallback`: when the model fails, the extractive summarizer writes the summary (labelled so). */
  extractiveFallback?: boolean;
}

/**
 * The summarizer for CLI flags. The API key comes from `CONTEXT_KEEPER_API_KEY`, else `OPENAI_API_KEY`;
 * the base URL from `--base-url`, else `OPENAI_BASE_URL`, else OpenAI's. What it is sent is always
 * masked (`maskSecrets`): the CLI summarizes recordings of other agents, so its summary endpoint is
 * never the recorded session's own model at its own endpoint.
 *
 * @throws Error with a message for the user when `--summarizer` is unknown, `--summary-model` is missing
 *   for `openai`, or OpenAI's endpoint is used without a key.
 */
export function summarizerFromFlags(
  flags: SummarizerFlags,
  countText: (text: string) => number,
  env: Readonly<Record<string, string | undefined>> = process.env,
  log?: (line: string) => void,
): Summarizer {
  const kind = (flags.summarizer ?? 'extractive').toLowerCase();
  if (kind === 'extractive') return new ExtractiveSummarizer(countText, { lineAdditive: flags.lineAdditive });
  if (kind !== 'openai') throw new Error(`unknown summarizer "${flags.summarizer}": use "openai" or "extractive"`);
  const model = flags.summaryModel?.trim();
  if (!model) throw new Error('--summarizer openai needs --summary-model <model>');
  const baseUrl = flags.baseUrl?.trim() || env['OPENAI_BASE_URL']?.trim() || OPENAI_BASE_URL;
  const apiKey = env['CONTEXT_KEEPER_API_KEY'] || env['OPENAI_API_KEY'] || undefined;
  if (apiKey === undefined && /^https:\/\/api\.openai\.com\b/i.test(baseUrl)) {
    throw new Error('no API key for the OpenAI endpoint: set CONTEXT_KEEPER_API_KEY or OPENAI_API_KEY');
  }
  return summarizerFromSettings({
    baseUrl,
    model,
    apiKey,
    contextWindow: flags.summaryWindow,
    timeoutMs: flags.timeoutMs,
    countText,
    lineAdditive: () => flags.lineAdditive === true,
    maskSecrets: true,
    extractiveFallback: flags.extractiveFallback === true,
    log,
  });
}

/** The known window of `model`; a conservative one for unknown models off OpenAI's endpoint. */
function defaultWindow(model: string, baseUrl: string): number {
  const known = resolveContextWindow(model);
  if (known !== DEFAULT_CONTEXT_WINDOW) return known;
  return /^https:\/\/api\.openai\.com\b/i.test(baseUrl) ? known : UNKNOWN_LOCAL_WINDOW;
}

/**
 * The session meter counts with an OpenAI encoding; another model's tokenizer may need up to ~25 %
 * more tokens for the same text, so window fitting counts high.
 */
function scaled(countText: (text: string) => number): (text: string) => number {
  return (text) => Math.ceil(countText(text) * 1.25);
}
