/**
 * Several spans of one compaction summarised in one model call where they fit one request
 * (./multiSpan): over the agent's prefix first (the session's own model), then framed; a reply
 * that does not split into its parts, or spans that fit no single request, are summarised span by
 * span as before, so the result never depends on the model following the layout.
 */
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { SummaryRequest, SummaryResult, SummarizerUsage } from '../compaction/types';
import { SummarizerError } from '../compaction/types';
import type { RenderOptions } from '../compaction/summary/summary-prompt';
import { multiFramedRequest, multiPrefixRequest, parseParts } from './multi-span';

/** What {@link summarizeSpansWith} needs from a model summarizer (`OpenAISummarizer`). */
export interface SpanCaller {
  /** The summarizer model's window, in tokens. */
  window: number;
  countText: (text: string) => number;
  /** The requests may be sent over the agent's prefix (the session's own model, secrets not masked). */
  reusePrefix: boolean;
  /** The user's extra summary instruction (a setting). */
  instruction?: string;
  imageSize?: RenderOptions['imageSize'];
  /** Reply limit for one span's request, in tokens. */
  replyTokens(request: SummaryRequest): number;
  /** One validated model call; adds to `usage`. Throws SummarizerError. */
  call(
    messages: ChatCompletionMessageParam[],
    replyTokens: number,
    request: SummaryRequest,
    usage: SummarizerUsage,
    extra?: { tools?: ChatCompletionTool[]; promptTokens?: number },
  ): Promise<{ text: string; model: string }>;
  /** The summary of one span (the single-span path). */
  single(request: SummaryRequest): Promise<SummaryResult>;
  log(line: string): void;
}

/**
 * The summaries of `requests` (spans of one context, in order), one result per request, when one
 * request can hold them all; undefined, before any call, when none can (or fewer than two spans),
 * and the caller summarises span by span. The shared call's usage is on the first result and the
 * others report none; when its reply did not split into its parts, the spans are summarised one by
 * one here and that call is counted on the first result too.
 *
 * @throws SummarizerError as the single-span path does (a failed call is not retried span by span,
 *   except a prefix refused as too long).
 */
export async function summarizeSpansWith(
  requests: readonly SummaryRequest[],
  caller: SpanCaller,
): Promise<SummaryResult[] | undefined> {
  if (requests.length < 2) return undefined;
  const first = requests[0];
  if (first.signal?.aborted) throw new SummarizerError('compaction cancelled', 'aborted');
  const usage: SummarizerUsage = { calls: 0, promptTokens: 0, completionTokens: 0 };
  const reply = Math.min(
    Math.floor(caller.window * 0.25),
    requests.reduce((n, r) => n + caller.replyTokens(r), 0),
  );
  let refusedAsLong = false;
  if (caller.reusePrefix) {
    const built = multiPrefixRequest(requests, caller.window, caller.countText, reply, caller.instruction);
    if ('messages' in built) {
      try {
        const outcome = await caller.call(built.messages, built.replyTokens, first, usage, {
          tools: built.tools,
          promptTokens: built.promptTokens,
        });
        usage.prefixCalls = (usage.prefixCalls ?? 0) + 1;
        const parts = parseParts(outcome.text, requests.length);
        if (parts) return split(parts, outcome.model, usage);
        caller.log(
          `the reply for ${requests.length} spans over the agent's prefix did not split into its parts; summarizing span by span`,
        );
        return sequential(requests, caller, usage);
      } catch (error) {
        if (!(error instanceof SummarizerError) || error.kind !== 'overflow') throw error;
        refusedAsLong = true;
        caller.log(`the request for ${requests.length} spans over the agent's prefix was refused as too long`);
      }
    } else {
      caller.log(`one request over the agent's prefix for ${requests.length} spans not used: ${built.reason}`);
    }
  }
  const framed = refusedAsLong
    ? undefined
    : multiFramedRequest(requests, caller.window, caller.countText, reply, caller.instruction, {
        imageSize: caller.imageSize,
      });
  if (framed) {
    const outcome = await caller.call(framed.messages, framed.replyTokens, first, usage);
    const parts = parseParts(outcome.text, requests.length);
    if (parts) return split(parts, outcome.model, usage);
    caller.log(`the framed reply for ${requests.length} spans did not split into its parts; summarizing span by span`);
    return sequential(requests, caller, usage);
  }
  // No single request holds them: the caller asks span by span (and may stop early).
  return undefined;
}

/** One result per part; the shared call's usage on the first. */
function split(parts: readonly string[], model: string, usage: SummarizerUsage): SummaryResult[] {
  return parts.map((text, i) => ({
    text,
    model,
    usage: i === 0 ? usage : { calls: 0, promptTokens: 0, completionTokens: 0 },
  }));
}

/** Span by span; the calls already made for these spans (`spent`) are added to the first result's usage. */
async function sequential(
  requests: readonly SummaryRequest[],
  caller: SpanCaller,
  spent: SummarizerUsage | undefined,
): Promise<SummaryResult[]> {
  const out: SummaryResult[] = [];
  for (const r of requests) out.push(await caller.single(r));
  if (spent && spent.calls > 0 && out.length > 0) out[0] = { ...out[0], usage: addUsage(out[0].usage, spent) };
  return out;
}

function addUsage(a: SummarizerUsage, b: SummarizerUsage): SummarizerUsage {
  const sum: SummarizerUsage = {
    calls: a.calls + b.calls,
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
  };
  if (a.cachedPromptTokens !== undefined || b.cachedPromptTokens !== undefined)
    sum.cachedPromptTokens = (a.cachedPromptTokens ?? 0) + (b.cachedPromptTokens ?? 0);
  if (a.prefixCalls !== undefined || b.prefixCalls !== undefined)
    sum.prefixCalls = (a.prefixCalls ?? 0) + (b.prefixCalls ?? 0);
  return sum;
}
