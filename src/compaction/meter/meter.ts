/**
 * The token meter: counts what a Chat Completions request bills as prompt tokens.
 *
 * Per-message overhead follows OpenAI's cookbook "How to count tokens with tiktoken"
 * (num_tokens_from_messages): 3 tokens per message, 1 more when `name` is set, and 3 tokens that
 * prime the reply, counted once per request. Tool calls and tool schemas are not covered by that
 * rule; they are counted as their text (name + arguments, or the schema JSON) plus a small fixed
 * overhead, and the error is corrected by calibration from `usage.prompt_tokens`.
 */
import type { ChatMessage, ContextItem, TokenBreakdown, ToolSchema } from '../types';
import { type TokenCounter, tokenCounterForModel } from '../../tokenizer/tokenizer';
import { imageSizeFromDataUrl, imageTokens } from './images';
import { GrowingSpan } from './span-memo';

/** Per-message overhead, in tokens (OpenAI cookbook). */
export const TOKENS_PER_MESSAGE = 3;
/** Extra tokens when a message has a `name` field (OpenAI cookbook). */
export const TOKENS_PER_NAME = 1;
/** Tokens that prime the assistant's reply, once per request (OpenAI cookbook). */
export const REPLY_PRIMING_TOKENS = 3;
/** Overhead per tool call inside an assistant message (estimate; calibrated). */
export const TOKENS_PER_TOOL_CALL = 3;
/** Fixed overhead of a non-empty `tools` array plus per-tool framing (estimate; calibrated). */
export const TOOLS_BASE_TOKENS = 12;
export const TOKENS_PER_TOOL = 8;
/** Estimate for a `file` or `input_audio` part whose size cannot be read, in tokens. */
export const ATTACHMENT_TOKENS = 512;

/** A reading of the meter for one context. */
export interface Measurement {
  /** Prompt tokens the next request would bill (tools + messages + reply priming). */
  total: number;
  breakdown: TokenBreakdown;
  /** Tokens of each item, same order as the items. */
  perItem: number[];
}

/**
 * Tokens of `m` that prime the reply, once per request: its total less every category of its
 * breakdown (tool schemas included). Shown as "reply start" wherever a count is broken down.
 */
export function replyStartTokens(m: Measurement): number {
  return m.total - (Object.values(m.breakdown) as number[]).reduce((a, b) => a + b, 0);
}

/** What the meter shows: the estimate, or the last reported exact size plus what was added since. */
export interface MeterReading extends Measurement {
  /** `exact`: equals the last reported prompt tokens; `exact+new`: that plus counted new messages. */
  basis: 'exact' | 'exact+new' | 'estimate';
  /**
   * Which figure the reading rests on, one sentence for the gauge: the provider's reported prompt
   * tokens, those plus the cached tokens it reported separately, or the count (with why a reported
   * figure was not used).
   */
  source: string;
  /** Cached tokens the calibration added to the reported prompt tokens (0 when none). */
  cachedAdded: number;
}

interface Calibration {
  exact: number;
  estimate: number;
  ids: string[];
  /** Cached tokens added to the reported prompt tokens (0 when the figure was used as reported). */
  cachedAdded: number;
}

/** Category of an item in the breakdown. */
export function categoryOf(item: ContextItem): keyof TokenBreakdown {
  if (item.kind === 'summary') return 'summaries';
  switch (item.message.role) {
    case 'system':
    case 'developer':
      return 'system';
    case 'assistant':
      return 'assistant';
    case 'tool':
    case 'function':
      return 'toolResults';
    default:
      return 'user';
  }
}

/** An empty breakdown. */
export function emptyBreakdown(): TokenBreakdown {
  return { system: 0, tools: 0, user: 0, assistant: 0, toolResults: 0, summaries: 0 };
}

/**
 * Counts messages and tool schemas. Message counts are cached per message object, so re-reading a
 * context after an append costs only the new message's tokenization (messages are never mutated).
 */
export class TokenMeter {
  readonly counter: TokenCounter;
  private readonly cache = new WeakMap<object, number>();
  private toolsCache: { tools: readonly ToolSchema[]; tokens: number } | undefined;
  /** The last list of items measured, with each item's tokens and the sums by category (tools excluded). */
  private readonly lastMeasured = new GrowingSpan<{ perItem: number[]; sums: TokenBreakdown }>();
  private calibration: Calibration | undefined;

  /** @param options.model picks the encoding; `counter` overrides it (tests, other tokenizers). */
  constructor(options: { model?: string; counter?: TokenCounter } = {}) {
    this.counter = options.counter ?? tokenCounterForModel(options.model);
  }

  get encoding(): string {
    return this.counter.encoding;
  }

  /** See {@link TokenCounter.lineAdditive}. */
  get lineAdditive(): boolean {
    return this.counter.lineAdditive === true;
  }

  /** Tokens of plain text. */
  countText(text: string): number {
    return this.counter.countText(text);
  }

  /** False while the counter estimates (its rank table is loading); readings are then labelled estimates. */
  get exact(): boolean {
    return this.counter.exact !== false;
  }

  /**
   * Keeps `tokens` as the count of `message` (a copy of a message counted elsewhere with the same
   * exact counter: a compaction worker's summaries), so it is not counted again. Ignored while estimating.
   */
  remember(message: ChatMessage, tokens: number): void {
    if (this.exact) this.cache.set(message, tokens);
  }

  /** Tokens of one message including its overhead. Cached per message object (exact counts only). */
  countMessage(message: ChatMessage): number {
    const hit = this.cache.get(message);
    if (hit !== undefined) return hit;
    const n = this.countUncached(message);
    // An estimate is not kept: the exact count replaces it once the table is loaded.
    if (!this.exact) return n;
    this.cache.set(message, n);
    return n;
  }

  private countUncached(message: ChatMessage): number {
    let n = TOKENS_PER_MESSAGE;
    const m = message as ChatMessage & { name?: string; tool_calls?: unknown; refusal?: string | null };
    if (typeof m.name === 'string') n += TOKENS_PER_NAME + this.countText(m.name);
    n += this.countContent(m.content);
    if (typeof m.refusal === 'string') n += this.countText(m.refusal);
    n += this.countReasoning(m as unknown as Record<string, unknown>);
    if (Array.isArray(m.tool_calls)) {
      for (const call of m.tool_calls as Array<{
        function?: { name?: string; arguments?: string };
        custom?: { name?: string; input?: string };
      }>) {
        const fn =
          call.function ?? (call.custom ? { name: call.custom.name, arguments: call.custom.input } : undefined);
        n += TOKENS_PER_TOOL_CALL + this.countText(fn?.name ?? '') + this.countText(fn?.arguments ?? '');
      }
    }
    return n;
  }

  /**
   * Reasoning carried on an assistant message (`reasoning_content` as DeepSeek and vLLM return it,
   * `reasoning` as OpenRouter and Ollama do, `reasoning_details` entries): messages are sent back as
   * recorded (DeepSeek's tool calling in thinking mode and Anthropic-compatible servers require the
   * reasoning of the current turn back, unchanged), so whatever they carry is counted.
   */
  private countReasoning(m: Record<string, unknown>): number {
    let n = 0;
    if (typeof m.reasoning_content === 'string') n += this.countText(m.reasoning_content);
    if (typeof m.reasoning === 'string') n += this.countText(m.reasoning);
    else if (m.reasoning && typeof m.reasoning === 'object') n += this.countText(JSON.stringify(m.reasoning));
    if (Array.isArray(m.reasoning_details)) n += this.countText(JSON.stringify(m.reasoning_details));
    return n;
  }

  private countContent(content: unknown): number {
    if (typeof content === 'string') return this.countText(content);
    if (!Array.isArray(content)) return 0;
    let n = 0;
    for (const part of content as Array<Record<string, unknown>>) {
      switch (part.type) {
        case 'text':
          n += this.countText(typeof part.text === 'string' ? part.text : '');
          break;
        case 'refusal':
          n += this.countText(typeof part.refusal === 'string' ? part.refusal : '');
          break;
        case 'image_url': {
          const img = part.image_url as { url?: string; detail?: string } | undefined;
          const size = img?.url ? imageSizeFromDataUrl(img.url) : undefined;
          n += imageTokens(size?.width, size?.height, img?.detail);
          break;
        }
        case 'thinking':
        case 'reasoning':
        case 'redacted_thinking':
          // Reasoning parts are sent back as recorded: their text (and signature) is counted.
          n +=
            this.countText(firstText(part.thinking, part.text, part.reasoning, part.data)) +
            (typeof part.signature === 'string' ? this.countText(part.signature) : 0);
          break;
        default:
          n += ATTACHMENT_TOKENS;
      }
    }
    return n;
  }

  /** Tokens of the request's `tools` array (0 when empty). Cached for the same array object. */
  countTools(tools: readonly ToolSchema[] | undefined): number {
    if (!tools || tools.length === 0) return 0;
    if (this.toolsCache?.tools === tools) return this.toolsCache.tokens;
    let n = TOOLS_BASE_TOKENS;
    for (const t of tools)
      n += TOKENS_PER_TOOL + this.countText(JSON.stringify((t as { function?: unknown }).function ?? t));
    if (this.exact) this.toolsCache = { tools, tokens: n };
    return n;
  }

  /**
   * Estimated prompt tokens of a request with `items` and `tools`. O(items) with cached counts; the
   * last list measured is kept with its counts and sums, so measuring it again, or the same list
   * grown at its end (messages appended since), reads only the new items after one identity pass
   * (see span-memo.ts): the per-message cache lookups were most of a compaction's measuring at 100k
   * messages. Exact counts only are kept.
   */
  measure(items: readonly ContextItem[], tools?: readonly ToolSchema[]): Measurement {
    const toolsTokens = this.countTools(tools);
    const kept = this.exact ? this.lastMeasured.get(items) : undefined;
    const from = kept?.from ?? 0;
    const state = kept?.state ?? { perItem: [], sums: emptyBreakdown() };
    const { perItem, sums } = state;
    perItem.length = from;
    for (let i = from; i < items.length; i++) {
      const n = this.countMessage(items[i].message);
      perItem.push(n);
      sums[categoryOf(items[i])] += n;
    }
    if (this.exact) this.lastMeasured.set(items, state, from);
    const breakdown = { ...sums, tools: toolsTokens };
    const total =
      toolsTokens + REPLY_PRIMING_TOKENS + sums.system + sums.user + sums.assistant + sums.toolResults + sums.summaries;
    return { total, breakdown, perItem: perItem.slice() };
  }

  /**
   * Records the provider's `usage.prompt_tokens` for the request that was sent with `items`.
   * Later readings of the same context plus appended items show exact-plus-new (DESIGN: calibrated).
   * Accepted only within {@link CALIBRATION_MIN}x-{@link CALIBRATION_MAX}x of the exact count (with
   * `cachedTokens` added back when the provider left them out); otherwise the calibration is dropped,
   * readings say `estimate`, and the outcome gives the reason.
   */
  calibrate(
    promptTokens: number,
    items: readonly ContextItem[],
    tools?: readonly ToolSchema[],
    cachedTokens = 0,
  ): CalibrationOutcome {
    if (!(promptTokens > 0)) return { accepted: false, reason: 'no prompt tokens reported' };
    const estimate = this.measure(items, tools).total;
    const judged = judgeReported(promptTokens, estimate, cachedTokens);
    if (!judged.accepted) {
      this.calibration = undefined;
      this.rejected = rejectedSource(promptTokens, estimate, cachedTokens);
      return judged;
    }
    this.rejected = undefined;
    const reported = judged.reported;
    const cachedAdded = reported - promptTokens;
    this.calibration = { exact: reported, estimate, ids: items.map((i) => i.id), cachedAdded };
    return { accepted: true, cachedAdded };
  }

  /** Why the last reported figure was not used, while the reading is a count; undefined otherwise. */
  private rejected: string | undefined;

  /** Ratio of reported to estimated tokens from the last calibration (1 when none), clamped to [0.5, 2]. */
  get scale(): number {
    const c = this.calibration;
    if (!c || c.estimate <= 0) return 1;
    return Math.min(2, Math.max(0.5, c.exact / c.estimate));
  }

  /** The meter's reading: exact (plus new messages) when the context only grew since calibration. */
  read(items: readonly ContextItem[], tools?: readonly ToolSchema[]): MeterReading {
    const m = this.measure(items, tools);
    const c = this.calibration;
    if (c && c.ids.length <= items.length && c.ids.every((id, i) => items[i].id === id)) {
      let added = 0;
      for (let i = c.ids.length; i < items.length; i++) added += m.perItem[i];
      return {
        ...m,
        total: c.exact + added,
        basis: added === 0 ? 'exact' : 'exact+new',
        source: reportedSource(c.exact, c.cachedAdded, added),
        cachedAdded: c.cachedAdded,
      };
    }
    return {
      ...m,
      basis: 'estimate',
      source: this.rejected ?? 'counted locally; exact after the next model reply',
      cachedAdded: 0,
    };
  }
}

/**
 * Whether a reported `usage.prompt_tokens` can anchor the meter for a request whose exact count is
 * `estimate` (see {@link TokenMeter.calibrate}): the figure to use, or why not. All in tokens.
 *
 * `cachedTokens` is `usage.prompt_tokens_details.cached_tokens`. OpenAI documents it as a part of
 * `prompt_tokens`; some proxies report `prompt_tokens` with the cached part left out and give that
 * part only in this field. Both readings are candidates, `promptTokens` and `promptTokens +
 * cachedTokens`, and the one nearer the exact count (by ratio) is used: with a moderate cached share
 * the smaller figure alone may still look plausible while the request sent was the larger one. A
 * cached figure above `promptTokens` cannot be a part of it, so it is added back then. The chosen
 * figure must lie within {@link CALIBRATION_MIN}x-{@link CALIBRATION_MAX}x of the count.
 */
export function judgeReported(
  promptTokens: number,
  estimate: number,
  cachedTokens = 0,
): { accepted: true; reported: number } | { accepted: false; reason: string } {
  if (!(promptTokens > 0) || !Number.isFinite(promptTokens))
    return { accepted: false, reason: 'no prompt tokens reported' };
  const cached = Number.isFinite(cachedTokens) && cachedTokens > 0 ? cachedTokens : 0;
  let reported = promptTokens;
  if (cached > 0) {
    const withCached = promptTokens + cached;
    const distance = (figure: number): number => (estimate > 0 ? Math.abs(Math.log(figure / estimate)) : 0);
    if (cached > promptTokens || distance(withCached) < distance(promptTokens)) reported = withCached;
  }
  if (!plausible(reported, estimate)) {
    // A figure far from the exact count (a proxy reporting near zero, a fabricated huge one) would
    // turn automatic compaction off or make it fire forever: the exact count stands instead.
    return {
      accepted: false,
      reason: `the provider reported ${promptTokens} prompt tokens${cached > 0 ? ` (${cached} cached)` : ''} where the exact count is ${estimate}; outside ${CALIBRATION_MIN}x-${CALIBRATION_MAX}x, so the count is used`,
    };
  }
  return { accepted: true, reported };
}

/** The gauge's sentence for a reading that is a count because the reported figure was not used. */
export function rejectedSource(promptTokens: number, estimate: number, cachedTokens = 0): string {
  const cached = cachedTokens > 0 ? ` (${cachedTokens} of them cached)` : '';
  return `counted locally: the provider reported ${promptTokens} prompt tokens${cached} where the count is ${estimate}, outside ${CALIBRATION_MIN}x-${CALIBRATION_MAX}x`;
}

/** The gauge's sentence for a reading anchored on a reported figure (`cachedAdded` tokens added back) plus `added` counted since. */
export function reportedSource(exact: number, cachedAdded: number, added: number): string {
  const reported =
    cachedAdded > 0
      ? `the provider's reported ${exact - cachedAdded} prompt tokens plus the ${cachedAdded} cached tokens it reported separately (prompt_tokens_details.cached_tokens)`
      : `the provider's reported ${exact} prompt tokens`;
  return added === 0 ? reported : `${reported}, plus ${added} counted since`;
}

/** Reported usage is trusted within this ratio of the exact count (issue reports: proxies off by far more). */
export const CALIBRATION_MIN = 0.5;
export const CALIBRATION_MAX = 2;

function plausible(reported: number, estimate: number): boolean {
  return estimate <= 0 || (reported >= estimate * CALIBRATION_MIN && reported <= estimate * CALIBRATION_MAX);
}

/** What {@link TokenMeter.calibrate} did with a reported figure. */
export interface CalibrationOutcome {
  accepted: boolean;
  /** Why it was not used (one sentence), when not accepted. */
  reason?: string;
  /** Cached tokens added to the reported prompt tokens to make it plausible (when accepted). */
  cachedAdded?: number;
}

/** The first of `values` that is a string (a reasoning part names its text differently per provider), or ''. */
function firstText(...values: unknown[]): string {
  for (const v of values) if (v !== undefined && v !== null) return typeof v === 'string' ? v : '';
  return '';
}
