/**
 * Strategy (d) of the economics benchmark: ContextKeeper as the extension runs it. A recorded session
 * is played call by call through the context service's own compaction coordinator
 * (`serviceCompactions`, the same factory and defaults `ContextService` uses): at every model call
 * the agent's safe point runs (the automatic trigger at `compactAt`, the hysteresis target
 * `compactTo`, the guard, a summary prepared ahead from `compactAt − 0.1` once the next call may
 * reach the trigger), and a request still over the window goes through the service's
 * context-length path (`afterOverflow`), as a provider refusal would. Only the coordinator's owner
 * is replaced: the context lives in an array, a commit replaces it, and files to re-attach are read
 * from an empty workspace (a recording has none, so none are re-attached; the plan keeps no room for
 * them).
 *
 * A summary prepared ahead is taken to finish before the next model call (the preparation runs
 * while the agent's model answers); it is billed against the agent's previous request, so the
 * newest step is not counted as cached. Every summarizer call is counted, prepared summaries that
 * were thrown away included.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NodeToolHost } from '../src/agent/node-host';
import { itemsFromEntries } from '../src/compaction/context';
import { DEFAULT_COMPACT_AT, DEFAULT_COMPACT_TO, thresholds } from '../src/compaction/plan/budget';
import { anchoredTokens } from '../src/compaction/plan/anchored';
import { checkToolPairing } from '../src/compaction/plan/invariants';
import type { TokenMeter } from '../src/compaction/meter/meter';
import type {
  BudgetConfig,
  Checkpoint,
  ContextItem,
  Entry,
  Summarizer,
  SummaryRequest,
  SummaryResult,
  ToolSchema,
} from '../src/compaction/types';
import { serviceCompactions } from '../src/service/compaction/service-compactions';
import { PricedSummarizer } from './summary-pricing';
import { CostRecorder, finish, type StrategyReport } from './strategies';
import { describeCompaction } from '../src/compaction/outcome-text';

/** ContextKeeper's default thresholds (`compaction/budget.ts`). */
export const DEFAULT_BUDGET = { compactAt: DEFAULT_COMPACT_AT, compactTo: DEFAULT_COMPACT_TO } as const;

/** Set CK_ECON_TRACE=1 to print each compaction and summary request (stderr). */
const TRACE = process.env.CK_ECON_TRACE === '1' || process.env.CK_ECON_TRACE === '2';
/** CK_ECON_TRACE=2 adds the coordinator's debug lines. */
const TRACE_DEBUG = process.env.CK_ECON_TRACE === '2';

/** Passes every request to `inner` and adds up the model calls and tokens of every reply. */
class CountingSummarizer implements Summarizer {
  calls = 0;
  input = 0;
  output = 0;
  constructor(private readonly inner: Summarizer) {}
  get name(): string {
    return this.inner.name;
  }
  get contextWindow(): number | undefined {
    return this.inner.contextWindow;
  }
  get reusesPrefix(): boolean | undefined {
    return this.inner.reusesPrefix;
  }
  async summarizeSpans(requests: readonly SummaryRequest[]): Promise<SummaryResult[] | undefined> {
    if (!this.inner.summarizeSpans) return undefined;
    const priced = this.inner instanceof PricedSummarizer ? this.inner.bill : undefined;
    const before = priced ? { calls: priced.calls, prefix: priced.prefixCalls } : undefined;
    const results = await this.inner.summarizeSpans(requests);
    if (results === undefined) return undefined;
    if (TRACE) {
      const calls =
        priced && before ? priced.calls - before.calls : results.reduce((n, r) => n + (r.usage?.calls ?? 0), 0);
      const prefix =
        priced && before
          ? priced.prefixCalls - before.prefix
          : results.reduce((n, r) => n + (r.usage?.prefixCalls ?? 0), 0);
      console.error(
        `    summarize ${requests.length} spans (${requests.map((r) => r.items.length).join('+')} items), asked ${requests.map((r) => r.approximateSummaryTokens).join('+')} tokens: ${calls} call(s), ${prefix} over the prefix`,
      );
    }
    this.calls += Math.max(
      1,
      results.reduce((n, r) => n + (r.usage?.calls ?? 0), 0),
    );
    for (const r of results) {
      this.input += r.usage?.promptTokens ?? 0;
      this.output += r.usage?.completionTokens ?? 0;
    }
    return results;
  }
  async summarize(request: SummaryRequest): Promise<SummaryResult> {
    const priced = this.inner instanceof PricedSummarizer ? this.inner.bill : undefined;
    const before = priced ? { calls: priced.calls, prefix: priced.prefixCalls } : undefined;
    const result = await this.inner.summarize(request);
    if (TRACE) {
      const calls = priced && before ? priced.calls - before.calls : (result.usage?.calls ?? 0);
      const prefix = priced && before ? priced.prefixCalls - before.prefix : (result.usage?.prefixCalls ?? 0);
      console.error(
        `    summarize ${request.items.length} items, asked ${request.approximateSummaryTokens} tokens: ${calls} call(s), ${prefix} over the prefix`,
      );
    }
    this.calls += Math.max(1, result.usage?.calls ?? 0);
    this.input += result.usage?.promptTokens ?? 0;
    this.output += result.usage?.completionTokens ?? 0;
    return result;
  }
}

/** (d) ContextKeeper's defaults through the service's compaction coordinator (see the file comment). */
export async function runContextKeeper(
  entries: readonly Entry[],
  meter: TokenMeter,
  tools: readonly ToolSchema[] | undefined,
  window: number,
  summarizer: Summarizer,
  label = 'd ContextKeeper',
): Promise<StrategyReport> {
  const rec = new CostRecorder(meter, tools, window);
  if (summarizer instanceof PricedSummarizer) summarizer.last = () => rec.lastRequest();
  const counting = new CountingSummarizer(summarizer);
  const budget: BudgetConfig = { contextWindow: window, reservedOutput: 0, ...DEFAULT_BUDGET };
  const inputBudget = thresholds(budget).inputBudget;
  const workspace = mkdtempSync(path.join(tmpdir(), 'ck-economics-'));
  let items: ContextItem[] = [];
  let version = 0;
  let rewrites = 0;
  let compacted = false;
  const checkpoints: Checkpoint[] = [];
  const schemas = tools ?? [];
  const compactions = serviceCompactions(
    { budget, host: new NodeToolHost(workspace) },
    {
      items: () => items,
      tools: () => schemas,
      meter,
      summarizer: counting,
      used: () => meter.measure(items, tools).total,
      version: () => version,
      commit: (result) => {
        items = [...result.context];
        version++;
        rewrites++;
        compacted = true;
        checkpoints.push(...result.checkpoints);
        if (TRACE)
          console.error(
            `  call ${rec.calls + 1}: ${result.tokensBefore} -> ${result.tokensAfter} (${result.checkpoints.map((c) => `${c.strategy}:${c.replaced.length}=>${c.inserted.reduce((n, i) => n + meter.countMessage(i.message), 0)}t req=${c.requests?.whole ?? '-'}/${c.requests?.shortened ?? '-'}`).join(' ')}) ${describeCompaction(result.status)}`,
          );
        return [];
      },
      setBusy: () => undefined,
      log: (level, message) => {
        if (TRACE && (TRACE_DEBUG || level !== 'debug')) console.error(`  call ${rec.calls + 1}: ${message}`);
      },
    },
  );
  const signal = new AbortController().signal;
  let anchored = 0;
  let seen = 0;
  try {
    for (const entry of entries) {
      if (entry.message.role === 'assistant' && seen > 0) {
        await compactions.atSafePoint(signal);
        if (meter.measure(items, tools).total > inputBudget) {
          // The provider would refuse the request: the service compacts at once and retries.
          await compactions.afterOverflow({ message: 'context length exceeded', window }, signal);
        }
        const pairing = checkToolPairing(
          items.map((i) => i.message),
          false,
        );
        if (pairing.length > 0) throw new Error(`${label}: call ${rec.calls + 1}: ${pairing[0].message}`);
        if (compacted) anchored = Math.max(anchored, anchoredTokens(items, meter, tools, 1));
        compacted = false;
        // The summary prepared ahead at this safe point finishes while the model answers.
        await compactions.idle();
        rec.call(items);
      }
      seen++;
      items.push(...itemsFromEntries([entry]));
    }
  } finally {
    compactions.cancel();
    rmSync(workspace, { recursive: true, force: true });
  }
  if (compactions.stats.failures > 0) throw new Error(`${label}: ${compactions.stats.failures} compaction(s) failed`);
  return finish(
    label,
    rec,
    rewrites,
    counting.calls,
    { input: counting.input, output: counting.output },
    entries,
    items,
    meter,
    tools,
    summarizer,
    anchored,
  );
}
