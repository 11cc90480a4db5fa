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
