/**
 * Replays a recorded conversation as if the agent were running: before each assistant message (a
 * model call) the meter is read and compaction runs when it crosses the trigger; recorded messages
 * are then appended. Every context that would be sent is checked against the invariants.
 */
import type {
  BudgetConfig,
  Checkpoint,
  CompactionOptions,
  ContextItem,
  Entry,
  Summarizer,
  ToolSchema,
} from '../compaction/types';
import type { TokenMeter } from '../compaction/meter/meter';
import { itemsFromEntries } from '../compaction/context';
import { compact } from '../compaction/rewrite/compactor';
import { spanSecretValues } from '../compaction/secret-values';
import { thresholds } from '../compaction/plan/budget';
import { checkToolPairing, IncrementalChecker, type Violation } from '../compaction/plan/invariants';
import { CompactionGuard } from '../compaction/rewrite/guard';
import { systemAndToolsTokens, tokenHolders, type TokenHolders } from '../compaction/plan/holders';
import type { CompactionStatus } from '../compaction/outcome';
import { describeCompaction } from '../compaction/outcome-text';

/** One model call of a replay. Tokens are prompt tokens of the request. */
export interface ReplayCall {
  index: number;
  /** Prompt tokens sent (after any compaction before this call). */
  tokens: number;
  /** Prompt tokens the same call would have sent with no compaction at all. */
  unmanagedTokens: number;
  compacted: boolean;
}

/** Summary of a replay. All token figures are prompt tokens. */
export interface ReplayReport {
  modelCalls: number;
  compactions: number;
  failedCompactions: number;
  /** Summarizer invocations (one per summarized span; model calls for a model summarizer). */
  summarizerCalls: number;
  /** The largest prompt sent to the model (after any compaction before that call). */
  peakTokens: number;
  /**
   * The largest context a compaction replaced before a call, in prompt tokens (0 with no compaction).
   * Above `peakTokens` whenever compaction kept the context below the trigger: it was never sent.
   */
  largestCompactedTokens: number;
  promptTokens: number;
  promptTokensUnmanaged: number;
  /**
   * Prompt tokens of the context at the end: after the last recorded message, and after the
   * compaction before the pending call when the recording ends on a request.
   */
  finalTokens: number;
  /** Prompt tokens of every recorded message with no compaction, at the end. */
  finalTokensUnmanaged: number;
  /** The active context after the last recorded message. */
  finalContext: ContextItem[];
  violations: Violation[];
  checkpoints: Checkpoint[];
  calls: ReplayCall[];
  /** One line per compaction failure, and the pause that failures in a row cause. */
  errors: string[];
  /**
   * Compactions refused because they could not reach their target while the request still fit the
   * window (sent as it was): one line each, with the figures. Not failures.
   */
  warnings: string[];
  /**
   * True when the recording ends on a request (its last message is not the assistant's) and the
   * compaction before that pending call applied: `finalTokens` and `finalContext` are then what
   * the agent would send next.
   */
  endCompacted: boolean;
  /** What the replay did that is not a failure: automatic compaction paused because it kept refilling. */
  notices: string[];
  /** What held the tokens at the peak call, when the peak was over the input budget. */
  peakHolders?: TokenHolders;
  /** Set from the first call whose system prompt and tool schemas alone were over the input budget. */
  fixedOverBudget?: FixedOverBudget;
}

/**
 * The system prompt and tool schemas alone over the input budget: no request can fit the window,
 * whatever a compaction rewrites (it still shortens the rest). Tokens throughout.
 */
export interface FixedOverBudget {
  /** The model call (1-based) at which it was first seen. */
  call: number;
  /** Tokens of the leading system messages and the tool schemas. */
  tokens: number;
  inputBudget: number;
  contextWindow: number;
  reservedOutput: number;
}

/** Replay options. */
export interface ReplayOptions {
  budget: BudgetConfig;
  keepRecentSteps?: number;
  maxSummaryCalls?: number;
  approximateSummaryTokens?: number;
  /** Shares of the compaction target for typed requests and for notes (see `summaryBudgets`). */
  userBudget?: number;
  summaryBudget?: number;
  tools?: readonly ToolSchema[];
  /**
   * Called once, before the first call whose system prompt and tool schemas alone are over the
   * input budget (the report keeps it as `fixedOverBudget`).
   */
  onFixedOverBudget?: (fixed: FixedOverBudget) => void;
  /** Called after each model call (for a gauge line). */
  onCall?: (call: ReplayCall, items: readonly ContextItem[]) => void;
  /** Called after each applied compaction. */
  /** `anchoredTokens`: what may never be summarised, measured when the result is above its target. */
  onCompaction?: (
    checkpoints: Checkpoint[],
    tokensBefore: number,
    tokensAfter: number,
    anchoredTokens?: number,
  ) => void;
  signal?: AbortSignal;
  /** The line that ends each summary (see `CompactionOptions.recallPointer`). Default: its checkpoint. */
  recallPointer?: CompactionOptions['recallPointer'];
  /** Where every compaction's checkpoint ids come from (see `CompactionOptions.newCheckpointId`). Default: random. */
  newCheckpointId?: () => string;
  /**
   * False: the report's checkpoints keep their metadata but not the replaced and inserted items nor
   * the replaced ids (each summary of summaries covers every older message, so keeping them all
   * makes memory grow with the square of the recording). Default true.
   */
  keepCheckpointItems?: boolean;
  /**
   * False: the report's `checkpoints` stays empty ({@link onCompaction} still gets each compaction's
   * checkpoints), for a caller that reads none of them: each keeps its summary and retention
   * scorecard, tens of kB per compaction, and a replay of 300k messages makes about a thousand.
   * Default true.
   */
  keepCheckpoints?: boolean;
}

/**
 * Replays `entries`. A model call happens before each assistant message; the leading system
 * messages and everything before the first assistant message form the first request.
 */
export async function replay(
  entries: readonly Entry[],
  meter: TokenMeter,
  summarizer: Summarizer,
  options: ReplayOptions,
): Promise<ReplayReport> {
  const th = thresholds(options.budget);
  const keepRecentSteps = options.keepRecentSteps ?? 1;
  let items: ContextItem[] = [];
  // The transcript only grows: invariants are checked incrementally, so a replay stays linear in
  // the recording's length (a full check per call made it quadratic).
  const checker = new IncrementalChecker({ keepRecentSteps });
  const raw = checker.entries;
  const report: ReplayReport = {
    modelCalls: 0,
    compactions: 0,
    failedCompactions: 0,
    summarizerCalls: 0,
    peakTokens: 0,
    largestCompactedTokens: 0,
    promptTokens: 0,
    promptTokensUnmanaged: 0,
    finalTokens: 0,
    finalTokensUnmanaged: 0,
    finalContext: [],
    violations: [],
    checkpoints: [],
    calls: [],
    errors: [],
    warnings: [],
    notices: [],
    endCompacted: false,
  };
  const tools = options.tools;
  // The same guard as a live session: one automatic compaction per model call, back-off after
  // failures, a breaker after three in a row, thrashing reported.
  const guard = new CompactionGuard();
  let unmanaged = meter.countTools(tools) + 3;
  /** The call a line names: a model call, or the request the end of the recording leaves pending. */
  let atEnd = false;
  const where = (call: number) => (atEnd ? 'the request the recording ends on' : `call ${call}`);
  /**
   * What a live session does before a model call: compacts when the meter crosses the trigger (or the
   * request is over the input budget). `call` is the 1-based call it precedes. True when a compaction applied.
   */
  const beforeCall = async (call: number): Promise<boolean> => {
    const measured = meter.measure(items, tools);
    const before = measured.total;
    guard.meterReading(before, th.triggerTokens);
    // Said once: nothing a compaction rewrites can make such a request fit, and every later call is the same.
    if (!report.fixedOverBudget && before > th.inputBudget) {
      const fixed = systemAndToolsTokens(items, measured.perItem, meter, tools);
      if (fixed >= th.inputBudget) {
        report.fixedOverBudget = {
          call,
          tokens: fixed,
          inputBudget: th.inputBudget,
          contextWindow: options.budget.contextWindow,
          reservedOutput: th.reservedOutput,
        };
        options.onFixedOverBudget?.(report.fixedOverBudget);
      }
    }
    // Over the input budget the provider refuses the request, and a live session compacts at once
    // whatever the guard says (the service's context-length path): the replay does the same.
    const overflow = before > th.inputBudget;
    if (before >= th.triggerTokens && (overflow || guard.mayAutoCompact().allowed)) {
      const result = await compact({
        items,
        tools,
        meter,
        summarizer,
        options: {
          budget: options.budget,
          trigger: 'auto',
          keepRecentSteps,
          maxSummaryCalls: options.maxSummaryCalls,
          approximateSummaryTokens: options.approximateSummaryTokens,
          userBudget: options.userBudget,
          summaryBudget: options.summaryBudget,
          signal: options.signal,
          recallPointer: options.recallPointer,
          newCheckpointId: options.newCheckpointId,
          // Values whose assignments earlier summaries replaced stay masked in later summaries.
          knownSecretValues: spanSecretValues(raw),
        },
      });
      const spans = result.checkpoints.filter((c) => c.strategy === 'summary' || c.strategy === 'extractive');
      report.summarizerCalls += spans.reduce((s, c) => s + Math.max(1, c.usage?.calls ?? 0), 0);
      const status = result.status;
      if (status.kind === 'applied') {
        items = result.context;
        report.compactions++;
        report.largestCompactedTokens = Math.max(report.largestCompactedTokens, before);
        if (options.keepCheckpoints !== false)
          for (const c of result.checkpoints)
            report.checkpoints.push(
              options.keepCheckpointItems === false ? { ...c, replaced: [], inserted: [], replacedIds: [] } : c,
            );
        guard.compactionSucceeded('auto', result.tokensAfter, th.triggerTokens);
        options.onCompaction?.(result.checkpoints, result.tokensBefore, result.tokensAfter, status.anchored?.total);
        return true;
      } else if (status.kind === 'does-not-fit' && status.holders === undefined && before <= th.inputBudget) {
        // The compaction was refused (it could not reach its target) while the request fits the
        // window: the request is sent as it is, as a live session sends it. Only a request over
        // the window fails, and the fit check reports that.
        report.warnings.push(
          `${where(call)}: ${describeCompaction(status)}; the request ${atEnd ? 'would be' : 'was'} sent as it was (${before.toLocaleString('en-US')} tokens, within the budget of ${th.inputBudget.toLocaleString('en-US')})`,
        );
      } else if (isFailedCompaction(status)) {
        guard.compactionFailed('auto');
        report.failedCompactions++;
        report.errors.push(`${where(call)}: ${describeCompaction(status)}`);
      }
    }
    return false;
  };
  for (const entry of entries) {
    if (entry.message.role === 'assistant' && raw.length > 0) {
      guard.modelCallStarted();
      const compacted = await beforeCall(report.modelCalls + 1);
      const tokens = meter.measure(items, tools).total;
      const call: ReplayCall = { index: report.modelCalls + 1, tokens, unmanagedTokens: unmanaged, compacted };
      report.modelCalls++;
      report.promptTokens += tokens;
      report.promptTokensUnmanaged += unmanaged;
      if (tokens > report.peakTokens && tokens > th.inputBudget)
        report.peakHolders = tokenHolders(items, meter, tools, keepRecentSteps, th.inputBudget);
      report.peakTokens = Math.max(report.peakTokens, tokens);
      report.calls.push(call);
      // What would be sent must be valid: no pending calls may remain before a model call.
      for (const v of [
        ...checkToolPairing(
          items.map((i) => i.message),
          false,
        ),
        ...checker.check(items),
      ]) {
        report.violations.push({ ...v, message: `call ${call.index}: ${v.message}` });
      }
      options.onCall?.(call, items);
    }
    checker.append(entry);
    for (const item of itemsFromEntries([entry])) items.push(item);
    unmanaged += meter.countMessage(entry.message);
  }
  // A recording that ends on a request (a user message, a tool result) leaves a model call pending:
  // what the agent would send next is that request after the same pre-call compaction.
  const last = entries.at(-1);
  if (last && last.message.role !== 'assistant' && raw.length > 0) {
    guard.modelCallStarted();
    atEnd = true;
    report.endCompacted = await beforeCall(report.modelCalls + 1);
    // Checked as a request that would be sent (tool calls still waiting for results aside).
    if (report.endCompacted)
      for (const v of checker.check(items))
        report.violations.push({ ...v, message: `the request the recording ends on: ${v.message}` });
  }
  report.finalTokens = meter.measure(items, tools).total;
  report.finalTokensUnmanaged = unmanaged;
  report.finalContext = items;
  const status = guard.status();
  if (status.paused && status.pauseReason === 'failures')
    report.errors.push(`automatic compaction was paused (${status.consecutiveFailures} failed compactions in a row)`);
  // Over the input budget the replay compacts anyway (as a live session does), so say what the pause held back.
  else if (status.paused)
    report.notices.push(
      `automatic compaction was paused (it refilled past the trigger ${status.thrashes} times); requests over the input budget were still compacted`,
    );
  return report;
}

/**
 * Compactions the replay counts as failed: the summarizer failed, the rewrite would break tool
 * pairing, or the run could not get below its trigger with a request over the input budget (the
 * caller handles one that fits: a warning). Nothing to do, nothing eligible, a stale prepared
 * compaction and a context over its budget with nothing left to shorten (`holders`; the fit check
 * reports that one) are not failures.
 */
function isFailedCompaction(status: CompactionStatus): boolean {
  if (status.kind === 'does-not-fit') return status.holders === undefined;
  return status.kind === 'summarizer-failed' || status.kind === 'would-break-pairing';
}
