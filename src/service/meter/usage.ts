/**
 * Provider-reported usage of each model call, held against the meter: calibrates the meter and keeps
 * the per-call figures (reported, estimated, and what the call would have cost without compaction)
 * that the demo and the CLI print.
 */
import type { CalibrationOutcome } from '../../compaction/meter/meter';
import type { LogSink } from '../api';
import type { SentReading } from './tally';
import type { CompactionStats } from '../compaction/compaction-host';

/** One model call as measured, for the totals the demo and the CLI print. All in tokens. */
export interface ModelCallRecord {
  /** `usage.prompt_tokens` reported by the provider (0 when not reported). */
  reportedPromptTokens: number;
  /** `usage.prompt_tokens_details.cached_tokens` reported by the provider (0 when not reported). */
  cachedPromptTokens: number;
  /** The meter's count of the request as sent. */
  estimatedPromptTokens: number;
  /** The meter's count of the same request had nothing ever been compacted (the whole raw transcript). */
  withoutCompactionTokens: number;
}

/** Running totals of a service, for the demo and the CLI. */
export interface ServiceStats {
  modelCalls: ModelCallRecord[];
  compaction: CompactionStats;
}

/** Records usage per model call (the meter's calibration itself is the tally's, see tally.ts). */
export class UsageRecorder {
  readonly calls: ModelCallRecord[] = [];
  private discrepancyLogged = false;
  private cachedLogged = false;

  constructor(private readonly log: LogSink) {}

  /**
   * Records one call.
   * @param promptTokens `usage.prompt_tokens` as reported, in tokens.
   * @param outcome What the meter's calibration made of it (logged once when ignored).
   * @param sent The meter's reading of the request as sent, and of the same request without compaction.
   * @param cachedTokens `usage.prompt_tokens_details.cached_tokens`, in tokens (0 when not reported).
   */
  record(promptTokens: number, outcome: CalibrationOutcome, sent: SentReading, cachedTokens = 0): void {
    // Said once: a proxy that leaves cached tokens out of prompt_tokens does so on every call.
    if (outcome.accepted && outcome.cachedAdded && !this.cachedLogged) {
      this.cachedLogged = true;
      this.log(
        'info',
        `provider usage: prompt_tokens (${promptTokens}) leaves out the ${outcome.cachedAdded} cached tokens reported in prompt_tokens_details.cached_tokens; the meter adds them back`,
      );
    }
    // Logged once per session: every call of a misreporting proxy would repeat it.
    if (!outcome.accepted && outcome.reason && !this.discrepancyLogged) {
      this.discrepancyLogged = true;
      this.log('warn', `provider usage ignored: ${outcome.reason}`);
    }
    this.calls.push({
      reportedPromptTokens: promptTokens,
      cachedPromptTokens: cachedTokens,
      estimatedPromptTokens: sent.tokens,
      withoutCompactionTokens: sent.withoutCompaction,
    });
  }
}
