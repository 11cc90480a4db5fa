/**
 * Summaries written by a model behind any OpenAI-compatible Chat Completions endpoint (OpenAI, Azure
 * OpenAI's v1 endpoint, vLLM, llama.cpp, Ollama, LM Studio…), safe under every failure.
 *
 * Safety rules (DESIGN.md failure semantics):
 * - the framed request never carries `tools`, so the model cannot answer with a tool call by design;
 *   the request over the agent's own prefix (./prefixRequest, the session's model only) carries the
 *   agent's schemas unchanged, for the prompt cache, with `tool_choice: "none"`;
 * - each call fits the summarizer's own window: the span is rendered as data and batched (oldest
 *   first, rolling: each call folds in the previous call's notes); when the span needs more than
 *   `maxCalls` calls, the oldest batches beyond them are written without a model (extractive notes,
 *   handed to the first call as earlier notes), so every message is covered, and the request says
 *   which messages the model does not see and the result which part had no model (`coverage`);
 * - a reply is used only when the call ended normally (`finish_reason: stop`), without tool calls or a
 *   refusal, with non-empty text that is not refusal- or error-shaped; a stream that breaks is discarded;
 * - every failure becomes a {@link SummarizerError} with a one-line message and a `kind`; the API key
 *   never appears in messages or logs.
 *
 * Retries of 408/409/429/5xx and connection errors, with backoff and `Retry-After`, are the SDK's own
 * (`maxRetries`); this module adds only what the SDK does not do: an idle timeout on streamed bodies,
 * and cancellation that does not wait for an SDK back-off sleep.
 */
import { boundedFetch } from '../models/bounded-fetch';
import { sharedFetchWorker } from '../models/worker-fetch';
import OpenAI from 'openai';
import type {
  ChatCompletionCreateParams,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type {
  ContextItem,
  Summarizer,
  SummaryCoverage,
  SummaryRequest,
  SummaryResult,
  SummarizerUsage,
} from '../compaction/types';
import { SummarizerError } from '../compaction/types';
import {
  batchForWindow,
  summaryInstruction,
  PREVIOUS_NOTES_CLOSE,
  PREVIOUS_NOTES_OPEN,
  USER_REQUESTS_CLOSE,
  USER_REQUESTS_OPEN,
  neutraliseDelimiters,
  wrapTranscript,
  type RenderOptions,
} from '../compaction/summary/summary-prompt';
import { clipMiddle, clipMiddleToTokens } from '../compaction/clip';
import { validateReply } from './reply';
import { Watchdog } from './watchdog';
import { maskMessageContents } from '../compaction/secrets';
import { jsonReply, streamedReply } from './openai-stream';
import { classifyFailure, describeEndpoint, redactSecrets } from './openai-errors';
import { prefixRequest } from './prefix-request';
import { summarizeSpansWith } from './spans';
import { ExtractiveSummarizer } from '../compaction/summary/extractive';

/** Which request field bounds the reply length. */
export type ReplyLimitParameter = 'max_completion_tokens' | 'max_tokens' | 'none';

/** Options of {@link OpenAISummarizer}. */
export interface OpenAISummarizerOptions {
  /** Endpoint base URL, for example `https://api.openai.com/v1` or `http://127.0.0.1:8000/v1`. */
  baseURL: string;
  /** API key. Local servers that need none get a placeholder. Never logged. */
  apiKey?: string;
  /** Model id sent in the request. */
  model: string;
  /** The summarizer model's own context window, in tokens (input and reply of one call). */
  contextWindow: number;
  /** Extra instruction added after the built-in one (`summaryInstruction`), never replacing it. */
  instruction?: string;
  /**
   * Milliseconds to wait for response headers (per attempt, the SDK's `timeout`) and, when
   * streaming, the longest silence between two stream events. Default 60 000.
   */
  timeoutMs?: number;
  /**
   * Retries by the SDK on 408/409/429/5xx, timeouts and connection errors (back-off, `Retry-After`).
   * Default 2. A retry repeats the same call; it does not count against `SummaryRequest.maxCalls`.
   */
  maxRetries?: number;
  /**
   * Upper bound on one model call including the SDK's retries and back-off sleeps, in milliseconds.
   * Default `(timeoutMs + 60 000) × (maxRetries + 1)`.
   */
  callDeadlineMs?: number;
  /** Stream the reply (deltas go to `SummaryRequest.onDelta`). Default true. */
  stream?: boolean;
  /**
   * Counts tokens as the summarizer model would, used to fit its window. Default: characters / 3,
   * rounded up — deliberately high for English and code under most tokenizers, since the summarizer's
   * tokenizer is usually unknown (local models).
   */
  countText?: (text: string) => number;
  /** Tokens reserved for the reply. Default: twice the requested summary length, at most a quarter of the window. */
  replyTokens?: number;
  /** Request field bounding the reply. Default `max_completion_tokens` (`max_tokens` for older servers). */
  replyLimitParameter?: ReplyLimitParameter;
  /** Sampling temperature; omitted when undefined (some reasoning models reject it). */
  temperature?: number;
  /** Extra HTTP headers (for example Azure's `api-key`); never logged. */
  headers?: Record<string, string>;
  /** Pixel sizes of image parts for the transcript placeholders. */
  imageSize?: RenderOptions['imageSize'];
  /** Debug log lines (requests sizes, retries, outcomes); never contains the key or message text. */
  log?: (line: string) => void;
  /** A prebuilt client (tests); when given, `baseURL`, `apiKey`, `headers` are not used to build one. */
  client?: OpenAI;
  /**
   * Mask credentials (`compaction/secrets.ts`) in everything sent. Set when this endpoint is not the
   * session's own: the transcript's secrets then never reach a second server. Default false.
   */
  maskSecrets?: boolean;
  /**
   * This is the session's own model at the session's own endpoint: when a request carries the
   * agent's context and it fits `contextWindow`, send that prefix unchanged plus the instruction
   * (a prompt-cache hit; see ./prefixRequest), with `tool_choice: "none"`. Ignored with
   * `maskSecrets`. Default false.
   */
  reusePrefix?: boolean;
}

/** Share of the window kept free for counting error between our estimate and the model's tokenizer. */
const WINDOW_SAFETY_SHARE = 0.05;
/** Share of the window that verbatim user requests may take in each call. */
const USER_REQUESTS_SHARE = 0.15;
/** Fewest reply tokens a shortened framed call is given (as `replyTokens`' floor). */
const MIN_REPLY_TOKENS = 512;
/** Per-message overhead of the two request messages plus reply priming, in tokens. */
const REQUEST_OVERHEAD_TOKENS = 16;

/**
 * Summarizer over an OpenAI-compatible endpoint. See the module comment for its safety rules.
 *
 * `summarize` throws {@link SummarizerError} with kind:
 * `aborted` (the request's signal), `timeout` (no headers or no stream event within `timeoutMs`, or
 * the call deadline), `http` (status errors after retries, connection failures, a stream that broke),
 * `overflow` (the window cannot hold the instruction and one batch, or the server reports the context
 * length exceeded), `truncated` (`finish_reason: length`, or a stream that ended without a finish
 * reason), `tool-call`, `refusal` (the `refusal` field, `content_filter`, or refusal-shaped text),
 * `empty` (no text, or only empty sections), `invalid` (error-shaped text, malformed stream events,
 * another finish reason).
 */
export class OpenAISummarizer implements Summarizer {
  readonly name: string;
  readonly contextWindow: number;
  readonly reusesPrefix: boolean;
  private readonly client: OpenAI;
  private readonly options: OpenAISummarizerOptions;
  private readonly countText: (text: string) => number;
  private readonly endpoint: string;

  constructor(options: OpenAISummarizerOptions) {
    if (!(options.contextWindow > 0))
      throw new RangeError(
        `summarizer contextWindow must be a positive number of tokens, got ${options.contextWindow}`,
      );
    if (!options.model) throw new RangeError('summarizer model is required');
    this.options = options;
    this.name = options.model;
    this.contextWindow = options.contextWindow;
    this.reusesPrefix = options.reusePrefix === true && options.maskSecrets !== true;
    this.countText = options.countText ?? ((text) => Math.ceil(text.length / 3));
    this.endpoint = describeEndpoint(options.baseURL);
    this.client =
      options.client ??
      new OpenAI({
        baseURL: options.baseURL,
        // Servers without authentication accept any key; the SDK refuses to run without one.
        apiKey: options.apiKey && options.apiKey.length > 0 ? options.apiKey : 'no-key',
        timeout: options.timeoutMs ?? 60_000,
        maxRetries: options.maxRetries ?? 2,
        defaultHeaders: options.headers,
        // The SDK's own logging could print request details; this module reports through `log`.
        logLevel: 'off',
        // Streamed events are bounded in size before the SDK buffers them; the HTTP work runs in the
        // process's HTTP worker (worker-fetch.ts), off the calling thread.
        fetch: boundedFetch(sharedFetchWorker().fetch),
      });
  }

  /** Writes the summary of `request.items`. See the class comment for the errors thrown. */
  async summarize(request: SummaryRequest): Promise<SummaryResult> {
    if (request.signal?.aborted) throw new SummarizerError('compaction cancelled', 'aborted');
    if (request.items.length === 0) throw new SummarizerError('nothing to summarize', 'empty');
    const usage: SummarizerUsage = { calls: 0, promptTokens: 0, completionTokens: 0 };
    // No call left in this compaction's limit: the whole span is written without a model.
    const overPrefix = request.maxCalls >= 1 ? await this.summarizeOverPrefix(request, usage) : undefined;
    if (overPrefix !== undefined) return overPrefix;
    const plan = this.plan(request);
    const asked =
      plan.summaryTokens === request.approximateSummaryTokens
        ? request
        : { ...request, approximateSummaryTokens: plan.summaryTokens };
    // The oldest messages beyond the call limit: extracted without a model, folded in by the first call.
    const unread = plan.early.length > 0 ? { last: countRaw(plan.early), total: countRaw(request.items) } : undefined;
    // Notes a model call folds in may take a reply's length; notes no call follows, the summary's.
    const earlyTokens = plan.batches.length > 0 ? plan.replyTokens : plan.summaryTokens;
    let notes =
      unread === undefined
        ? undefined
        : new ExtractiveSummarizer(this.countText).notes(plan.early, earlyTokens, request.focus);
    let model = this.options.model;
    for (let k = 0; k < plan.batches.length; k++) {
      const batch = plan.batches[k];
      const messages = this.messages(asked, plan, batch.text, notes, k, plan.batches.length, unread);
      const outcome = await this.call(messages, plan.replyTokens, request, usage);
      notes = outcome.text;
      model = outcome.model;
    }
    if (notes === undefined) throw new SummarizerError('nothing to summarize', 'empty');
    this.log(
      `summary done: ${usage.calls} call(s)${unread ? `, messages 1-${unread.last} of ${unread.total} written without a model (call limit)` : ''}`,
    );
    const coverage: SummaryCoverage | undefined = unread && {
      messages: unread.total,
      maxCalls: plan.maxCalls,
      parts: [
        { first: 1, last: unread.last, writer: 'extractive' as const, calls: 0, reason: 'call-limit' as const },
        { first: unread.last + 1, last: unread.total, writer: 'model' as const, calls: usage.calls },
      ].filter((p) => p.last >= p.first),
    };
    return { text: notes, model, usage, ...(coverage ? { coverage } : {}) };
  }

  /**
   * Model calls {@link summarize} needs for `request` without the call limit (the framed path; over
   * the agent's prefix it is one), and the limit itself: more needed than allowed means the oldest
   * part is written without a model. Makes no call.
   *
   * @throws SummarizerError (`overflow`) as {@link summarize} does when the window cannot hold one batch.
   */
  callsNeeded(request: SummaryRequest): { needed: number; limit: number } {
    const limit = Math.max(0, Math.floor(request.maxCalls));
    if (request.items.length === 0) return { needed: 0, limit };
    if (this.reusesPrefix && request.context !== undefined) {
      const built = prefixRequest(
        request,
        this.contextWindow,
        this.countText,
        this.replyTokens(request),
        this.options.instruction,
      );
      if ('messages' in built) return { needed: 1, limit };
    }
    const plan = this.plan(request, true);
    return { needed: plan.batches.length, limit };
  }

  /**
   * The summaries of several spans of one compaction in one call where one request holds them (over
   * the agent's prefix, else framed); undefined otherwise (./spans). Throws as {@link summarize}.
   */
  summarizeSpans(requests: readonly SummaryRequest[]): Promise<SummaryResult[] | undefined> {
    return summarizeSpansWith(requests, {
      window: this.contextWindow,
      countText: this.countText,
      reusePrefix: this.reusesPrefix,
      instruction: this.options.instruction,
      imageSize: this.options.imageSize,
      replyTokens: (r) => this.replyTokens(r),
      call: (messages, replyTokens, request, usage, extra) => this.call(messages, replyTokens, request, usage, extra),
      single: (r) => this.summarize(r),
      log: (line) => this.log(line),
    });
  }

  /**
   * The cache-reusing path: one call over the agent's prefix. Returns undefined when it does not
   * apply (not the session's model, no context, does not fit) or the server refused the prompt as
   * too long; the framed path then runs.
   */
  private async summarizeOverPrefix(
    request: SummaryRequest,
    usage: SummarizerUsage,
  ): Promise<SummaryResult | undefined> {
    if (!this.reusesPrefix || request.context === undefined) return undefined;
    const built = prefixRequest(
      request,
      this.contextWindow,
      this.countText,
      this.replyTokens(request),
      this.options.instruction,
    );
    if (!('messages' in built)) {
      this.log(`summary over the agent's prefix not used: ${built.reason}; framing the span instead`);
      return undefined;
    }
    try {
      const outcome = await this.call(built.messages, built.replyTokens, request, usage, {
        tools: built.tools,
        promptTokens: built.promptTokens,
      });
      usage.prefixCalls = (usage.prefixCalls ?? 0) + 1;
      this.log(
        `summary done over the agent's prefix: ${usage.calls} call(s), ${usage.cachedPromptTokens ?? 0} prompt tokens reported cached`,
      );
      return { text: outcome.text, model: outcome.model, usage };
    } catch (error) {
      if (!(error instanceof SummarizerError) || error.kind !== 'overflow') throw error;
      this.log(`summary over the agent's prefix refused as too long; framing the span instead`);
      return undefined;
    }
  }

  /** Tokens reserved for the reply: twice the requested length, at least 512, at most a quarter of the window. */
  private replyTokens(request: SummaryRequest): number {
    return Math.max(
      64,
      Math.floor(
        this.options.replyTokens ??
          Math.min(Math.max(2 * request.approximateSummaryTokens, 512), this.contextWindow * 0.25),
      ),
    );
  }

  /**
   * Batches the span for the window; the items of the oldest batches beyond `maxCalls` go to `early`
   * (written without a model). With `quiet`, nothing is logged (an estimate).
   */
  private plan(
    request: SummaryRequest,
    quiet = false,
  ): {
    batches: Array<{ text: string }>;
    early: ContextItem[];
    maxCalls: number;
    replyTokens: number;
    summaryTokens: number;
    requestsBlock: string;
  } {
    const window = this.contextWindow;
    const replyTokens = this.replyTokens(request);
    const requestsBlock = this.userRequestsBlock(request.userRequests, Math.floor(window * USER_REQUESTS_SHARE));
    const fixed =
      this.countText(summaryInstruction(this.options.instruction)) +
      this.countText(this.framing(request, requestsBlock, '', '', 1, 2)) +
      REQUEST_OVERHEAD_TOKENS;
    const maxCalls = Math.max(0, Math.floor(request.maxCalls));
    if (maxCalls === 0 && !quiet) {
      this.log(
        `summary plan: no call left in the call limit, ${countRaw(request.items)} message(s) written without a model`,
      );
      const summaryTokens = request.approximateSummaryTokens;
      return { batches: [], early: [...request.items], maxCalls, replyTokens, summaryTokens, requestsBlock };
    }
    // One call needs no room for earlier notes; failing that, notes down to half the planned length
    // (as over the prefix, ./prefixRequest) may still let the whole span fit one call.
    const safety = Math.ceil(window * WINDOW_SAFETY_SHARE);
    const shorter = Math.max(MIN_REPLY_TOKENS, Math.ceil(replyTokens / 2));
    for (const reply of shorter < replyTokens ? [replyTokens, shorter] : [replyTokens]) {
      const one = this.oneBatch(request, window, fixed + reply + safety);
      if (one === undefined) continue;
      const summaryTokens =
        reply === replyTokens
          ? request.approximateSummaryTokens
          : Math.min(request.approximateSummaryTokens, Math.floor(reply / 2));
      if (!quiet) this.log(`summary plan: 1 call, reply limit ${reply}`);
      return { batches: [one], early: [], maxCalls: 1, replyTokens: reply, summaryTokens, requestsBlock };
    }
    // Previous notes are at most one reply long; the reply itself needs the same room again.
    const reserved = fixed + 2 * replyTokens + Math.ceil(window * WINDOW_SAFETY_SHARE);
    let batches;
    try {
      batches = batchForWindow(request.items, window, this.countText, reserved, { imageSize: this.options.imageSize });
    } catch (error) {
      throw new SummarizerError(
        `the summarizer's ${window}-token window cannot hold its instructions and a part of the conversation (${reserved} tokens reserved)`,
        'overflow',
        { cause: error },
      );
    }
    const early: ContextItem[] = [];
    if (batches.length > maxCalls && !quiet) {
      for (const batch of batches.slice(0, batches.length - maxCalls)) for (const item of batch.items) early.push(item);
      batches = batches.slice(batches.length - maxCalls);
    }
    if (!quiet)
      this.log(
        `summary plan: ${batches.length} call(s), ${countRaw(early)} message(s) written without a model (call limit), ${reserved} tokens reserved per call`,
      );
    return { batches, early, maxCalls, replyTokens, summaryTokens: request.approximateSummaryTokens, requestsBlock };
  }

  /** The span as one batch within `window − reserved` tokens, nothing clipped; undefined when it does not fit. */
  private oneBatch(request: SummaryRequest, window: number, reserved: number): { text: string } | undefined {
    if (window - reserved < 64) return undefined;
    const batches = batchForWindow(request.items, window, this.countText, reserved, {
      imageSize: this.options.imageSize,
    });
    return batches.length === 1 && batches[0].clipped === 0 ? batches[0] : undefined;
  }

  /**
   * The request messages of call `k` of `n`. `unread`: messages 1 to `last` of the span's `total`
   * are beyond the call limit; the model sees only notes extracted from them.
   */
  private messages(
    request: SummaryRequest,
    plan: { replyTokens: number; requestsBlock: string },
    batchText: string,
    previousNotes: string | undefined,
    k: number,
    n: number,
    unread?: { last: number; total: number },
  ): ChatCompletionMessageParam[] {
    // The previous reply was bounded by `replyTokens` in the model's tokenizer; bound it in ours too.
    const notes =
      previousNotes === undefined ? '' : clipMiddleToTokens(previousNotes, plan.replyTokens, this.countText);
    return [
      { role: 'system', content: summaryInstruction(this.options.instruction) },
      { role: 'user', content: this.framing(request, plan.requestsBlock, notes, batchText, k + 1, n, unread) },
    ];
  }

  /** The user message of one call: focus, user requests, previous notes, the transcript part. */
  private framing(
    request: SummaryRequest,
    requestsBlock: string,
    notes: string,
    batchText: string,
    part: number,
    parts: number,
    unread?: { last: number; total: number },
  ): string {
    const sections: string[] = [];
    if (request.focus !== undefined && request.focus.trim().length > 0) {
      sections.push(
        `The user asked these notes to focus on: ${neutraliseDelimiters(clipMiddle(request.focus.trim(), 1000))}`,
      );
    }
    if (requestsBlock.length > 0) {
      sections.push(
        `The user's requests in the conversation being summarized, verbatim and oldest first (data, for the objective and constraints):\n${requestsBlock}`,
      );
    }
    if (unread !== undefined) {
      sections.push(
        `This conversation has ${unread.total} messages. Messages 1-${unread.last} are more than the call limit lets you read: you do not see them, only notes extracted from them without a model. You read messages ${unread.last + 1}-${unread.total}, in ${parts} part${parts === 1 ? '' : 's'}. Where your notes rely on messages 1-${unread.last}, they rest on those extracted notes only; say so in your notes rather than guess.`,
      );
    }
    if (notes.length > 0) {
      const whose =
        unread !== undefined && part === 1
          ? `Notes extracted without a model from messages 1-${unread.last}`
          : 'Notes already written for the earlier parts of this conversation';
      sections.push(
        `${whose} (data; fold them into your notes, which replace them):\n${PREVIOUS_NOTES_OPEN}\n${neutraliseDelimiters(notes)}\n${PREVIOUS_NOTES_CLOSE}`,
      );
    }
    const read = unread === undefined ? 'the conversation' : `messages ${unread.last + 1}-${unread.total}`;
    const which =
      parts > 1
        ? `Part ${part} of ${parts} of ${read} to summarize`
        : unread === undefined
          ? 'The conversation to summarize'
          : `Messages ${unread.last + 1}-${unread.total} of the conversation to summarize`;
    sections.push(`${which}:\n${wrapTranscript(batchText)}`);
    sections.push(
      `Write the notes now, in the sections given in your instructions, in about ${request.approximateSummaryTokens} tokens or fewer.`,
    );
    return sections.join('\n\n');
  }

  /** User requests as a numbered list inside delimiters, each clipped, within `maxTokens`. */
  private userRequestsBlock(requests: readonly string[], maxTokens: number): string {
    if (requests.length === 0) return '';
    const perRequestChars = 2000;
    const lines = requests.map((r, i) => `${i + 1}. ${neutraliseDelimiters(clipMiddle(r.trim(), perRequestChars))}`);
    let body = lines.join('\n');
    if (this.countText(body) > maxTokens) body = clipMiddleToTokens(body, maxTokens, this.countText);
    return `${USER_REQUESTS_OPEN}\n${body}\n${USER_REQUESTS_CLOSE}`;
  }

  /**
   * One model call with validation. Adds to `usage`. With `extra.tools` (the agent's schemas, sent
   * so the prefix matches the agent's request) `tool_choice` is `none`; a tool call in the reply is
   * still refused (`tool-call`) and never run.
   */
  private async call(
    messages: ChatCompletionMessageParam[],
    replyTokens: number,
    request: SummaryRequest,
    usage: SummarizerUsage,
    extra: { tools?: ChatCompletionTool[]; promptTokens?: number } = {},
  ): Promise<{ text: string; model: string }> {
    const streamed = this.options.stream ?? true;
    const timeoutMs = this.options.timeoutMs ?? 60_000;
    const maxRetries = this.options.maxRetries ?? 2;
    const deadlineMs = this.options.callDeadlineMs ?? (timeoutMs + 60_000) * (maxRetries + 1);
    const params: ChatCompletionCreateParams = {
      model: this.options.model,
      messages: this.options.maskSecrets ? maskMessageContents(messages) : messages,
    };
    const limit = this.options.replyLimitParameter ?? 'max_completion_tokens';
    if (limit === 'max_completion_tokens') params.max_completion_tokens = replyTokens;
    else if (limit === 'max_tokens') params.max_tokens = replyTokens;
    if (this.options.temperature !== undefined) params.temperature = this.options.temperature;
    if (extra.tools !== undefined) {
      params.tools = extra.tools;
      params.tool_choice = 'none';
    }

    const watch = new Watchdog(request.signal);
    const promptEstimate =
      extra.promptTokens ??
      messages.reduce(
        (n, m) => n + this.countText(typeof m.content === 'string' ? m.content : ''),
        REQUEST_OVERHEAD_TOKENS,
      );
    this.log(
      `summary call ${usage.calls + 1}: ~${promptEstimate} prompt tokens, reply limit ${replyTokens}, ${streamed ? 'streamed' : 'JSON'}`,
    );
    usage.calls += 1;
    const deadline = watch.arm(deadlineMs, 'deadline');
    try {
      const reply = await watch.race(
        streamed
          ? streamedReply(this.client, params, watch, timeoutMs, maxRetries, request.onDelta)
          : jsonReply(this.client, params, watch, timeoutMs, maxRetries),
      );
      usage.promptTokens += reply.promptTokens ?? promptEstimate;
      usage.completionTokens += reply.completionTokens ?? this.countText(reply.text);
      if (reply.cachedTokens !== undefined)
        usage.cachedPromptTokens = (usage.cachedPromptTokens ?? 0) + reply.cachedTokens;
      const text = validateReply(reply);
      this.log(`summary call ${usage.calls}: ok, ${text.length} characters`);
      return { text, model: reply.model ?? this.options.model };
    } catch (error) {
      const failure = classifyFailure(error, watch.fired, {
        endpoint: this.endpoint,
        model: this.options.model,
        timeoutMs,
        deadlineMs,
        maxRetries,
        redact: (text) => redactSecrets(text, [this.options.apiKey, ...Object.values(this.options.headers ?? {})]),
      });
      this.log(`summary call ${usage.calls}: ${failure.kind}: ${failure.message}`);
      throw failure;
    } finally {
      clearTimeout(deadline);
      watch.dispose();
    }
  }

  private log(line: string): void {
    this.options.log?.(line);
  }
}

/** Number of raw messages the items stand for (a summary's reply pair stands for none). */
function countRaw(items: readonly ContextItem[]): number {
  return items.reduce((n, item) => n + item.covers.length, 0);
}
