/**
 * Summaries priced as the session's own model would bill them. The notes are the extractive
 * summarizer's (so every strategy compacts exactly as with it), but each summary also goes through
 * the product's model summarizer (`OpenAISummarizer` with `reusePrefix`, the session's window, the
 * meter's counter scaled as the extension scales it) against a loopback OpenAI-compatible server.
 * The server sees the real requests: over the agent's prefix when it fits (a prompt-cache hit on
 * what the agent sent last), framed and batched otherwise. It prices each request against the
 * agent's previous request: the leading messages (and the tool schemas) that are the same as the
 * agent's last call are cached input, the rest uncached.
 */
import { ExtractiveSummarizer } from '../src/compaction/summary/extractive';
import { REPLY_PRIMING_TOKENS, TOKENS_PER_MESSAGE, type TokenMeter } from '../src/compaction/meter/meter';
import type { ChatMessage, Summarizer, SummaryRequest, SummaryResult, ToolSchema } from '../src/compaction/types';
import { start, type ChatRequestBody, type ModelServer } from '../src/demo/modelserver/wire';
import { text } from '../src/demo/modelserver/replies';
import { summarizerFromSettings } from '../src/summarizers/from-options';
import { formatParts } from '../src/summarizers/multi-span';

/** What the agent sent last (the provider's cached prefix). */
export interface LastRequest {
  messages: readonly ChatMessage[];
  tools?: readonly ToolSchema[];
}

/** Model calls of the summaries of one strategy run, and their tokens. */
export interface SummaryBill {
  calls: number;
  /** Calls sent over the agent's own prefix. */
  prefixCalls: number;
  promptTokens: number;
  /** Prompt tokens that repeat the agent's previous request from its start (billed at the cached rate). */
  cachedTokens: number;
  completionTokens: number;
}

/** The loopback "session model" shared by the priced summarizers of one benchmark run. */
export class PricingServer {
  private server: ModelServer | undefined;
  /** The summarizer whose request is in flight (one at a time: compactions run one after another). */
  private current: PricedSummarizer | undefined;

  async start(): Promise<string> {
    this.server = await start({ responder: (body) => this.answer(body), models: ['session-model'] });
    return this.server.url;
  }

  async close(): Promise<void> {
    await this.server?.close();
  }

  /** Runs `work` with `summarizer` as the one answered for. */
  async serve<T>(summarizer: PricedSummarizer, work: () => Promise<T>): Promise<T> {
    this.current = summarizer;
    try {
      return await work();
    } finally {
      this.current = undefined;
      // The server records every body; a long run would hold hundreds of large prompts.
      this.server?.requests.splice(0);
      this.server?.log.splice(0);
    }
  }

  private answer(body: ChatRequestBody) {
    const s = this.current;
    if (s === undefined) throw new Error('pricing server: a request outside a summary');
    return s.answer(body);
  }
}

/**
 * A summarizer named `extractive` (so the compactor treats its notes as it treats the extractive
 * ones) that also sends each summary request as the session's model would and bills it.
 */
export class PricedSummarizer implements Summarizer {
  readonly name = 'extractive';
  readonly contextWindow: number;
  /** Its requests go over the agent's prefix where that fits, as the session's own model's do. */
  readonly reusesPrefix = true;
  readonly bill: SummaryBill = { calls: 0, prefixCalls: 0, promptTokens: 0, cachedTokens: 0, completionTokens: 0 };
  /** Summaries the model path failed on (the extractive notes were used all the same), with the first error. */
  failures = 0;
  firstError: string | undefined;
  /** The agent's last request, read when a summary request arrives (set by the strategy run). */
  last: () => LastRequest = () => ({ messages: [] });
  private readonly extractive: ExtractiveSummarizer;
  private readonly model: Summarizer;
  private notes = '';

  constructor(
    private readonly meter: TokenMeter,
    window: number,
    url: string,
    private readonly server: PricingServer,
  ) {
    this.contextWindow = window;
    this.extractive = new ExtractiveSummarizer((t) => meter.countText(t));
    this.model = summarizerFromSettings({
      baseUrl: url,
      model: 'session-model',
      contextWindow: window,
      countText: (t) => meter.countText(t),
      reusePrefix: true,
      stream: false,
      maxRetries: 2,
    });
  }

  /** Extractive notes for `request`, after sending it through the model path (see the class comment). A retried connection (an idle keep-alive socket closed by the server) is not billed twice: only requests that reach the server are. */
  async summarize(request: SummaryRequest): Promise<SummaryResult> {
    const result = await this.extractive.summarize(request);
    this.notes = result.text;
    try {
      const billed = await this.server.serve(this, () => this.model.summarize(request));
      this.bill.prefixCalls += billed.usage.prefixCalls ?? 0;
    } catch (error) {
      this.failures++;
      this.firstError ??= (error as Error).message;
    }
    return result;
  }

  /**
   * Several spans: extractive notes for each, sent through the model path's one request for them
   * all, which the server answers in the parts layout; undefined when no single request holds them
   * (the compactor then asks span by span).
   */
  async summarizeSpans(requests: readonly SummaryRequest[]): Promise<SummaryResult[] | undefined> {
    const results: SummaryResult[] = [];
    for (const r of requests) results.push(await this.extractive.summarize(r));
    this.notes = formatParts(results.map((r) => r.text));
    try {
      const billed = await this.server.serve(this, async () =>
        this.model.summarizeSpans ? this.model.summarizeSpans(requests) : undefined,
      );
      if (billed === undefined) return undefined;
      for (const b of billed) this.bill.prefixCalls += b.usage.prefixCalls ?? 0;
    } catch (error) {
      this.failures++;
      this.firstError ??= (error as Error).message;
    }
    return results;
  }

  /** The server side: bills one request and answers with the extractive notes. */
  answer(body: ChatRequestBody) {
    const messages = (body.messages ?? []) as ChatMessage[];
    const tools = (body.tools ?? []) as ToolSchema[];
    const last = this.last();
    const sameTools = JSON.stringify(tools) === JSON.stringify(last.tools ?? []);
    let prompt = this.meter.countTools(tools) + REPLY_PRIMING_TOKENS;
    let cached = sameTools ? this.meter.countTools(tools) : 0;
    let sharing = sameTools;
    for (let i = 0; i < messages.length; i++) {
      const n = this.meter.countMessage(messages[i]);
      prompt += n;
      if (sharing && i < last.messages.length && JSON.stringify(last.messages[i]) === JSON.stringify(messages[i]))
        cached += n;
      else sharing = false;
    }
    const completion = this.meter.countText(this.notes) + TOKENS_PER_MESSAGE;
    this.bill.calls++;
    this.bill.promptTokens += prompt;
    this.bill.cachedTokens += cached;
    this.bill.completionTokens += completion;
    return text(this.notes, { usage: { prompt_tokens: prompt, completion_tokens: completion } });
  }
}
