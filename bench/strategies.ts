/**
 * Context-management strategies replayed over a recorded session, and the cost model that prices
 * them. Strategy (d), ContextKeeper's own policy, is the context service's compaction coordinator
 * (service-strategy.ts); (a)-(c) are reference policies written here for comparison:
 *
 * - (a) none: the whole conversation every call, as if the window were unbounded;
 * - (b) truncate: when over the window, drop the oldest whole units (history turns, agent steps;
 *   never the system prompt, the latest request or the newest step, so tool pairing stays valid);
 * - (c) fold overflow: when over the window, summarize just enough of the oldest units to get under
 *   it (the compaction pipeline with its trigger at the window, target one token below, no collapse).
 *
 * Cost model (units: uncached input tokens). A provider bills a prompt-cache hit on the prefix a
 * request shares with the previous one at {@link CACHED_INPUT_PRICE}; a rewrite breaks the cache from
 * the first changed message on. Summarizer calls are billed with their own input and output
 * ({@link OUTPUT_PRICE} per token): with a {@link PricedSummarizer}, as the session's own model bills
 * the product's real summary requests (the agent's prefix at the cached rate where it fits the window,
 * framed batches uncached otherwise); with another summarizer, the replaced span as uncached input. The agent's own output tokens are the same under every
 * strategy and left out. Provider details (minimum cacheable prefix, cache expiry) are ignored.
 */
import { compact } from '../src/compaction/rewrite/compactor';
import { withFullPaths } from '../src/compaction/summary/ledger/path-root';
import { analyze } from '../src/compaction/plan/structure';
import { itemsFromEntries } from '../src/compaction/context';
import { extractIdentifiers } from '../src/compaction/summary/identifiers/identifiers';
import { toolCallsOf } from '../src/compaction/text';
import { textWithPlaceholders } from '../src/compaction/content-text';
import { REPLY_PRIMING_TOKENS, type TokenMeter } from '../src/compaction/meter/meter';
import type {
  BudgetConfig,
  ChatMessage,
  Checkpoint,
  ContextItem,
  Entry,
  Summarizer,
  ToolSchema,
} from '../src/compaction/types';
import { PricedSummarizer, type LastRequest } from './summary-pricing';
import { anchoredTokens } from '../src/compaction/plan/anchored';

/** Price of a cached input token relative to an uncached one (a prompt-cache hit). */
export const CACHED_INPUT_PRICE = 0.1;
/** Price of an output token relative to an uncached input token (typical of provider price lists). */
export const OUTPUT_PRICE = 4;

/** Outcome of one strategy over one session. Token figures in tokens; cost in uncached-input-token units. */
export interface StrategyReport {
  strategy: string;
  modelCalls: number;
  /** Rewrites of the context (compactions or truncations). */
  rewrites: number;
  summarizerCalls: number;
  peakTokens: number;
  /** Calls whose prompt exceeded the window (the request would have failed). */
  overWindowCalls: number;
  /** Prompt tokens billed over the session (sum over model calls). */
  promptTokens: number;
  /** Prompt tokens that were a cache hit (prefix unchanged since the previous call). */
  cachedTokens: number;
  summarizerInputTokens: number;
  /** Summarizer input billed at the cached rate (the agent's prefix, repeated). */
  summarizerCachedTokens: number;
  summarizerOutputTokens: number;
  /** Summarizer model calls sent over the agent's prefix (the rest were framed). */
  summarizerPrefixCalls: number;
  /**
   * Largest never-summarised part (system prompt, tool schemas, latest request, newest step) right
   * after a compaction, in tokens; 0 when nothing was compacted.
   */
  anchoredTokens: number;
  /** Cache-aware cost of the agent's requests plus the summarizer's calls. */
  cost: number;
  /** Cache-aware cost of the agent's requests alone (what an extractive summarizer, which calls no model, adds nothing to). */
  agentCost: number;
  /** Identifiers of replaced messages still present in the final context (found / total), or null when nothing was replaced. */
  identifierRetention: number | null;
  identifiersReplaced: number;
  identifiersReplacedKept: number;
  /** Identifiers of the whole session present in the final context (the same denominator for every strategy). */
  sessionIdentifierRetention: number;
  finalTokens: number;
}

/** Accumulates per-call prompt tokens and cache hits. */
export class CostRecorder {
  private previous: ChatMessage[] = [];
  calls = 0;
  prompt = 0;
  cached = 0;
  peak = 0;
  over = 0;

  constructor(
    private readonly meter: TokenMeter,
    private readonly tools: readonly ToolSchema[] | undefined,
    private readonly window: number,
    private readonly toolTokens = meter.countTools(tools),
  ) {}

  /** What the agent sent last: the provider's cached prefix. */
  lastRequest(): LastRequest {
    return { messages: this.previous, tools: this.tools };
  }

  /** Records one model call sending `items`. */
  call(items: readonly ContextItem[]): void {
    let total = this.toolTokens + REPLY_PRIMING_TOKENS;
    let cached = this.toolTokens;
    let sharing = true;
    const messages = new Array<ChatMessage>(items.length);
    for (let i = 0; i < items.length; i++) {
      const m = items[i].message;
      messages[i] = m;
      const n = this.meter.countMessage(m);
      total += n;
      if (sharing && this.previous[i] === m) cached += n;
      else sharing = false;
    }
    this.previous = messages;
    this.calls++;
    this.prompt += total;
    this.cached += cached;
    this.peak = Math.max(this.peak, total);
    if (total > this.window) this.over++;
  }

  get cost(): number {
    return this.cached * CACHED_INPUT_PRICE + (this.prompt - this.cached);
  }
}

/** Plain text of a message: content and tool calls. */
function textOf(m: ChatMessage): string {
  const calls = toolCallsOf(m);
  const text = textWithPlaceholders(m.content);
  return calls.length === 0 ? text : `${text}\n${calls.map((c) => `${c.name} ${c.arguments}`).join('\n')}`;
}

/**
 * Share of the identifiers of raw messages no longer in `finalItems` (replaced by summaries,
 * collapsed, dropped) that still appear verbatim somewhere in the final context.
 */
export function identifierRetention(
  entries: readonly Entry[],
  finalItems: readonly ContextItem[],
): { share: number | null; total: number; found: number; session: number } {
  const kept = new Set(finalItems.map((i) => i.message));
  // Paths a summary writes from a named folder (`$A/src/x.ts`, see path-root.ts) are searched written out in full.
  const finalText = finalItems.map((i) => withFullPaths(textOf(i.message))).join('\n');
  const present = (ids: readonly string[]) => ids.reduce((n, id) => n + (finalText.includes(id) ? 1 : 0), 0);
  const all = extractIdentifiers(entries.map((e) => textOf(e.message)).join('\n'));
  const session = all.length === 0 ? 1 : present(all) / all.length;
  const replaced = entries.filter((e) => !kept.has(e.message));
  const ids = replaced.length === 0 ? [] : extractIdentifiers(replaced.map((e) => textOf(e.message)).join('\n'));
  if (ids.length === 0) return { share: null, total: 0, found: 0, session };
  const found = present(ids);
  return { share: found / ids.length, total: ids.length, found, session };
}

/** Summarizer input and output tokens of summary checkpoints (model usage when reported). */
export function summarizerTokens(
  checkpoints: readonly Checkpoint[],
  meter: TokenMeter,
): { input: number; output: number } {
  let input = 0;
  let output = 0;
  for (const c of checkpoints) {
    if (c.strategy !== 'summary' && c.strategy !== 'extractive') continue;
    if (c.usage && c.usage.calls > 0) {
      input += c.usage.promptTokens;
      output += c.usage.completionTokens;
    } else {
      // Priced as a model would be: the replaced span in, the summary out.
      for (const r of c.replaced) input += meter.countMessage(r.message);
      for (const s of c.inserted) output += meter.countMessage(s.message);
    }
  }
  return { input, output };
}

/** Summarizer calls of checkpoints, counted as `replay` counts them. */
export function summarizerCalls(checkpoints: readonly Checkpoint[]): number {
  return checkpoints
    .filter((c) => c.strategy === 'summary' || c.strategy === 'extractive')
    .reduce((s, c) => s + Math.max(1, c.usage?.calls ?? 0), 0);
}

export function finish(
  strategy: string,
  rec: CostRecorder,
  rewrites: number,
  spanCalls: number,
  spanTokens: { input: number; output: number },
  entries: readonly Entry[],
  finalItems: readonly ContextItem[],
  meter: TokenMeter,
  tools: readonly ToolSchema[] | undefined,
  summarizer: Summarizer | undefined,
  anchored: number,
): StrategyReport {
  const ret = identifierRetention(entries, finalItems);
  const priced = summarizer instanceof PricedSummarizer ? summarizer : undefined;
  if (priced && priced.failures > 0)
    throw new Error(`${strategy}: the model summary path failed ${priced.failures} time(s): ${priced.firstError}`);
  const bill = priced?.bill;
  const calls = bill ? bill.calls : spanCalls;
  const tokens = bill
    ? { input: bill.promptTokens, cached: bill.cachedTokens, output: bill.completionTokens }
    : { ...spanTokens, cached: 0 };
  const summaryCost = tokens.input - tokens.cached + tokens.cached * CACHED_INPUT_PRICE + tokens.output * OUTPUT_PRICE;
  return {
    strategy,
    modelCalls: rec.calls,
    rewrites,
    summarizerCalls: calls,
    peakTokens: rec.peak,
    overWindowCalls: rec.over,
    promptTokens: rec.prompt,
    cachedTokens: rec.cached,
    summarizerInputTokens: tokens.input,
    summarizerCachedTokens: tokens.cached,
    summarizerOutputTokens: tokens.output,
    summarizerPrefixCalls: bill?.prefixCalls ?? 0,
    anchoredTokens: anchored,
    cost: Math.round(rec.cost + summaryCost),
    agentCost: Math.round(rec.cost),
    identifierRetention: ret.share,
    identifiersReplaced: ret.total,
    identifiersReplacedKept: ret.found,
    sessionIdentifierRetention: ret.session,
    finalTokens: meter.measure(finalItems, tools).total,
  };
}

/** A policy run before each model call: returns the context to send (possibly rewritten). */
type Policy = (items: ContextItem[]) => Promise<{ items: ContextItem[]; rewrote: boolean; checkpoints?: Checkpoint[] }>;

/** Plays `entries` with a model call before each assistant message, as `replay` does. */
async function play(
  strategy: string,
  entries: readonly Entry[],
  meter: TokenMeter,
  tools: readonly ToolSchema[] | undefined,
  window: number,
  policy: Policy,
  summarizer?: Summarizer,
): Promise<StrategyReport> {
  const rec = new CostRecorder(meter, tools, window);
  if (summarizer instanceof PricedSummarizer) summarizer.last = () => rec.lastRequest();
  let items: ContextItem[] = [];
  let rewrites = 0;
  let anchored = 0;
  const checkpoints: Checkpoint[] = [];
  let seen = 0;
  for (const entry of entries) {
    if (entry.message.role === 'assistant' && seen > 0) {
      const r = await policy(items);
      items = r.items;
      if (r.rewrote) rewrites++;
      if (r.checkpoints) checkpoints.push(...r.checkpoints);
      if (r.rewrote && r.checkpoints) anchored = Math.max(anchored, anchoredTokens(items, meter, tools, 1));
      rec.call(items);
    }
    seen++;
    items.push(...itemsFromEntries([entry]));
  }
  return finish(
    strategy,
    rec,
    rewrites,
    summarizerCalls(checkpoints),
    summarizerTokens(checkpoints, meter),
    entries,
    items,
    meter,
    tools,
    summarizer,
    anchored,
  );
}

/** (a) No management: every call sends the whole conversation. */
export function runUnmanaged(
  entries: readonly Entry[],
  meter: TokenMeter,
  tools: readonly ToolSchema[] | undefined,
  window: number,
): Promise<StrategyReport> {
  return play('a none', entries, meter, tools, window, async (items) => ({ items, rewrote: false }));
}

/** (b) Truncation: drop oldest whole units while over `window` prompt tokens. */
export function runTruncation(
  entries: readonly Entry[],
  meter: TokenMeter,
  tools: readonly ToolSchema[] | undefined,
  window: number,
): Promise<StrategyReport> {
  return play('b truncate', entries, meter, tools, window, async (items) => {
    const m = meter.measure(items, tools);
    if (m.total <= window) return { items, rewrote: false };
    const drop = new Uint8Array(items.length);
    let total = m.total;
    for (const u of analyze(items, 1).units) {
      if (total <= window) break;
      if (!u.eligible) continue;
      for (let i = u.start; i < u.end; i++) {
        drop[i] = 1;
        total -= m.perItem[i];
      }
    }
    return { items: items.filter((_, i) => !drop[i]), rewrote: true };
  });
}

/** (c) Fold only the overflow: at the window, summarize the fewest oldest units that get under it. */
export function runFoldOverflow(
  entries: readonly Entry[],
  meter: TokenMeter,
  tools: readonly ToolSchema[] | undefined,
  window: number,
  summarizer: Summarizer,
): Promise<StrategyReport> {
  const budget: BudgetConfig = { contextWindow: window, reservedOutput: 0, compactAt: 1, compactTo: 1 - 1e-9 };
  return play(
    'c fold overflow',
    entries,
    meter,
    tools,
    window,
    async (items) => {
      const r = await compact({
        items,
        tools,
        meter,
        summarizer,
        options: { budget, trigger: 'auto', noCollapse: true, keepRecentSteps: 1 },
      });
      return {
        items: r.status.kind === 'applied' ? r.context : items,
        rewrote: r.status.kind === 'applied',
        checkpoints: r.checkpoints,
      };
    },
    summarizer,
  );
}
