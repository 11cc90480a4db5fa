/**
 * The provider's own measure of a recording: the prompt tokens it reported for the newest request
 * whose usage the recording holds. It covers what a recording does not store (the agent's system
 * prompt, tool schemas, encrypted reasoning, attachments) and the provider's own tokenizer, so it is
 * shown beside ContextKeeper's count, never instead of it.
 */
import type { Entry } from '../compaction/types';

/** The newest reported prompt figure: `tokens` (prompt tokens) and the index of the entry carrying it. */
export interface ReportedPrompt {
  tokens: number;
  /** Index in the entries of the reply whose request the figure measures. */
  index: number;
}

/**
 * The newest `meta.reportedPromptTokens` in `entries` (importers set it from the provider's usage:
 * Claude Code's input + cache read + cache creation, Codex's token_count), or undefined when none
 * is recorded.
 */
export function latestReportedPrompt(entries: readonly Pick<Entry, 'meta'>[]): ReportedPrompt | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const tokens = entries[i].meta?.reportedPromptTokens;
    if (tokens !== undefined) return { tokens, index: i };
  }
  return undefined;
}

/**
 * How the provider's figure for a recording's newest request compares with ContextKeeper's count of
 * the recording: `above` (the request held what the file does not: system prompt, tool schemas,
 * hidden reasoning), `close`, or `below` (the agent's own last request held less than the recording
 * keeps: it condensed or cut its context, as Cline and Aider do, while the file keeps every message).
 */
export type RecordedComparison = 'above' | 'close' | 'below';

/**
 * Under this fraction of the count a recorded figure is `below`. Tokenizers of different providers
 * differ by some percent on the same text (about 10-20% between OpenAI's and Anthropic's on code),
 * so only a wider gap means context the agent left out of its request.
 */
export const BELOW_FRACTION = 0.8;

/** Compares `recorded` with `counted` (both prompt tokens); see {@link RecordedComparison}. */
export function compareRecorded(recorded: number, counted: number): RecordedComparison {
  if (recorded >= counted) return 'above';
  return recorded < counted * BELOW_FRACTION ? 'below' : 'close';
}

/**
 * Why the provider's figure `recorded` differs from the count `counted` (prompt tokens), as a clause
 * to follow "…prompt tokens for the newest request," (lower case, no final stop). Shared by the
 * gauge, the status bar and the CLI `meter` so they say the same thing.
 *
 * `imported` is the count of the recording as imported (prompt tokens, before any ContextKeeper
 * checkpoint), given once ContextKeeper's own compaction has changed the context: the recorded figure
 * measured the recording, not the compacted context, so it is compared with `imported` and the
 * clause says ContextKeeper has compacted it since (the gauge shows the compacted count). Comparing with the compacted count would
 * call a recording the agent had condensed "above" the count, blaming the system prompt.
 */
export function recordedReason(recorded: number, counted: number, imported?: number): string {
  if (imported !== undefined) {
    // The compacted count itself is on the gauge beside the note: said once, there.
    return `${reasonAgainst(recorded, imported)} (compared with the recording as imported, ${imported.toLocaleString('en-US')} tokens; ContextKeeper has compacted it since)`;
  }
  return reasonAgainst(recorded, counted);
}

function reasonAgainst(recorded: number, counted: number): string {
  switch (compareRecorded(recorded, counted)) {
    case 'above':
      return 'including what the recording does not hold (system prompt, tool schemas, hidden reasoning)';
    case 'close':
      return 'close to the count (the provider counts with its own tokenizer)';
    case 'below':
      return 'less than the whole recording: the agent condensed or cut its own context, so its last request held only part of the messages the recording keeps';
  }
}

/**
 * What ContextKeeper's count of an imported recording holds, in the words the gauge's note and the
 * command line's `meter` both use: the recording's messages and the tool schemas it recorded (most
 * formats record none). ContextKeeper's own agent's tool schemas are counted only where that agent
 * sends them: in a working session, a continued recording included.
 */
export const RECORDING_COUNT_BASIS = "the recording's messages and the tool schemas it recorded";

/** A recorded figure as the notes show it: "69.4k" (one decimal, thousands). */
export function recordedK(tokens: number): string {
  return `${(tokens / 1000).toFixed(1)}k`;
}
