/**
 * A chain of summarizers: the configured one, then the session's own model once, then optionally the
 * extractive summarizer — so a broken summary endpoint does not leave a full context stuck.
 */
import type { Summarizer, SummaryRequest, SummaryResult } from '../compaction/types';
import { SummarizerError } from '../compaction/types';
import { errorMessage } from '../format/error-message';
import { fallbackCoverage } from '../compaction/summary/coverage';

/** Options of {@link FallbackSummarizer}. */
export interface FallbackOptions {
  /** The session's own model as a summarizer, tried once when the primary fails. */
  session?: Summarizer;
  /** A summarizer that needs no model (extractive), tried last when given. */
  extractive?: Summarizer;
  /** Told about each fallback step (for the log and a one-time notice). */
  onFallback?: (from: string, to: string, error: SummarizerError) => void;
}

/** A failed attempt of one summarizer of the chain. */
interface Failure {
  summarizer: Summarizer;
  name: string;
  error: SummarizerError;
}

/**
 * Tries `primary`, then `session`, then `extractive`, each at most once per compaction: a summarizer
 * that failed on one span is not asked again for the compaction's later spans (they go straight to
 * the next one in the chain, labelled with the first failure), so a down endpoint costs one failed
 * call per compaction, not one per span. A compaction is recognised by the run object its requests
 * share (`SummaryRequest.compactionRun`); a request without one is a compaction of its own, and
 * the next compaction asks the whole chain again (the endpoint may be back). Never falls
 * back after a cancellation (`aborted`): the user asked to stop. A result from a fallback is labelled
 * in `model` (`<name> (fallback: <first failure kind>)`) so the checkpoint says what wrote it; one
 * from the extractive summarizer also carries its coverage (`model-failed`, with the first failure's
 * message), so the checkpoint, the divider and the CLI say the span had no model, and why.
 *
 * @throws SummarizerError when every summarizer fails: the primary's kind, and a message naming each
 *   failure in order.
 */
export class FallbackSummarizer implements Summarizer {
  readonly name: string;
  readonly contextWindow?: number;
  readonly reusesPrefix?: boolean;

  /** Failures so far per compaction, keyed by its run object (dropped with it). */
  private readonly failedIn = new WeakMap<object, Failure[]>();

  constructor(
    private readonly primary: Summarizer,
    private readonly options: FallbackOptions = {},
  ) {
    this.name = primary.name;
    this.contextWindow = primary.contextWindow;
    this.reusesPrefix = primary.reusesPrefix;
  }

  /**
   * Several spans in one call: the primary's `summarizeSpans` (undefined when it has none or no
   * single request holds them; the caller then asks span by span, through {@link summarize}). When
   * that call fails, the rest of the chain summarises the spans one by one, as {@link summarize} would.
   */
  async summarizeSpans(requests: readonly SummaryRequest[]): Promise<SummaryResult[] | undefined> {
    const primary = this.primary;
    if (!primary.summarizeSpans) return undefined;
    return this.run(
      requests[0],
      (s) => (s === primary ? primary.summarizeSpans!(requests) : spanBySpan(s, requests)),
      (results, label) => results?.map((r, k) => label(r, requests[k])),
    );
  }

  /** The primary's estimate (see `Summarizer.callsNeeded`); none when the primary makes no call. */
  callsNeeded(request: SummaryRequest): { needed: number; limit: number } | undefined {
    return this.primary.callsNeeded?.(request);
  }

  summarize(request: SummaryRequest): Promise<SummaryResult> {
    return this.run(
      request,
      (s) => s.summarize(request),
      (result, label) => label(result, request),
    );
  }

  /**
   * Runs `work` on each summarizer of the chain until one succeeds; `relabel` marks a fallback's
   * result with `label`: its model named as a fallback and, when the extractive summarizer wrote
   * it, its coverage saying the model call failed and why.
   */
  private async run<T>(
    request: SummaryRequest,
    work: (s: Summarizer) => Promise<T>,
    relabel: (result: T, label: (r: SummaryResult, request: SummaryRequest) => SummaryResult) => T,
  ): Promise<T> {
    const key = request.compactionRun;
    const failures: Failure[] = (key && this.failedIn.get(key)) ?? [];
    if (key) this.failedIn.set(key, failures);
    const earlier = failures.length;
    const chain = [this.primary, this.options.session, this.options.extractive].filter(
      (s): s is Summarizer => s !== undefined && !failures.some((f) => f.summarizer === s),
    );
    for (const summarizer of chain) {
      if (request.signal?.aborted) throw new SummarizerError('compaction cancelled', 'aborted');
      try {
        const result = await work(summarizer);
        if (failures.length === 0) return result;
        const first = failures[0].error;
        const withoutModel = summarizer === this.options.extractive;
        // The failed attempts were calls too (a reply the summary could not use still cost one): they
        // count once, on the first result, as a shared call's usage does (earlier spans counted theirs).
        let failedCalls = failures.length - earlier;
        const withFailedCalls = (usage: SummaryResult['usage']): SummaryResult['usage'] => {
          const calls = usage.calls + failedCalls;
          failedCalls = 0;
          return { ...usage, calls };
        };
        return relabel(result, (r, asked) => ({
          ...r,
          usage: withFailedCalls(r.usage),
          model: `${r.model} (fallback: ${first.kind})`,
          // The extractive summarizer read every message: the whole span had no model, because it failed.
          ...(withoutModel ? { coverage: fallbackCoverage(rawMessages(asked), first.message) } : {}),
        }));
      } catch (error) {
        const failure =
          error instanceof SummarizerError
            ? error
            : new SummarizerError(`summarizer ${summarizer.name} failed: ${errorMessage(error)}`, 'invalid', {
                cause: error,
              });
        if (failure.kind === 'aborted') throw failure;
        failures.push({ summarizer, name: summarizer.name, error: failure });
        const next = chain[chain.indexOf(summarizer) + 1];
        if (next !== undefined) this.options.onFallback?.(summarizer.name, next.name, failure);
      }
    }
    const first = failures[0];
    if (first === undefined) throw new SummarizerError('no summarizer configured', 'invalid');
    if (failures.length === 1) throw first.error;
    const message = failures.map((f) => `${f.name}: ${f.error.message}`).join('; ');
    throw new SummarizerError(`every summarizer failed — ${message}`, first.error.kind, {
      cause: first.error,
      status: first.error.status,
    });
  }
}

/** `summarizer.summarize` for each request in order. */
async function spanBySpan(summarizer: Summarizer, requests: readonly SummaryRequest[]): Promise<SummaryResult[]> {
  const out: SummaryResult[] = [];
  for (const r of requests) out.push(await summarizer.summarize(r));
  return out;
}

/** Raw messages the request's items stand for. */
function rawMessages(request: SummaryRequest): number {
  return request.items.reduce((n, item) => n + item.covers.length, 0);
}
