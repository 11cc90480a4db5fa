/**
 * A chain of summarizers: the configured one, then the session's own model once, then optionally the
 * extractive summarizer — so a broken summary endpoint does not leave a full context stuck (case B13).
 */
import type { Summarizer, SummaryRequest, SummaryResult } from '../compaction/types';
import { SummarizerError } from '../compaction/types';

/** Options of {@link FallbackSummarizer}. */
export interface FallbackOptions {
  /** The session's own model as a summarizer, tried once when the primary fails. */
  session?: Summarizer;
  /** A summarizer that needs no model (extractive), tried last when given. */
  extractive?: Summarizer;
  /** Told about each fallback step (for the log and a one-time notice). */
  onFallback?: (from: string, to: string, error: SummarizerError) => void;
}

/**
 * Tries `primary`, then `session`, then `extractive`, each at most once per compaction. Never falls
 * back after a cancellation (`aborted`): the user asked to stop. A result from a fallback is labelled
 * in `model` (`<name> (fallback: <first failure kind>)`) so the checkpoint says what wrote it.
 *
 * @throws SummarizerError when every summarizer fails: the primary's kind, and a message naming each
 *   failure in order.
 */
export class FallbackSummarizer implements Summarizer {
  readonly name: string;
  readonly contextWindow?: number;

  constructor(
    private readonly primary: Summarizer,
    private readonly options: FallbackOptions = {},
  ) {
    this.name = primary.name;
    this.contextWindow = primary.contextWindow;
  }

  async summarize(request: SummaryRequest): Promise<SummaryResult> {
    const chain = [this.primary, this.options.session, this.options.extractive].filter((s): s is Summarizer => s !== undefined);
    const failures: Array<{ name: string; error: SummarizerError }> = [];
    for (const summarizer of chain) {
      if (request.signal?.aborted) throw new SummarizerError('compaction cancelled', 'aborted');
      try {
        const result = await summarizer.summarize(request);
        if (failures.length === 0) return result;
        return { ...result, model: `${result.model} (fallback: ${failures[0].error.kind})` };
      } catch (error) {
        const failure =
          error instanceof SummarizerError
            ? error
            : new SummarizerError(`summarizer ${summarizer.name} failed: ${error instanceof Error ? error.message : String(error)}`, 'invalid', { cause: error });
        if (failure.kind === 'aborted') throw failure;
        failures.push({ name: summarizer.name, error: failure });
        const next = chain[chain.indexOf(summarizer) + 1];
        if (next !== undefined) this.options.onFallback?.(summarizer.name, next.name, failure);
      }
    }
    const first = failures[0];
    if (first === undefined) throw new SummarizerError('no summarizer configured', 'invalid');
    if (failures.length === 1) throw first.error;
    const message = failures.map((f) => `${f.name}: ${f.error.message}`).join('; ');
    throw new SummarizerError(`every summarizer failed — ${message}`, first.error.kind, { cause: first.error, status: first.error.status });
  }
}
