/**
 * The question asked before a compaction that needs more summarizer calls than the limit
 * (`contextKeeper.maxSummaryCalls`): use the model with the calls it needs, write the summaries
 * without a model, or cancel. Without the question, the limit holds and the oldest part beyond it
 * is written without a model (see `SummaryCoverage`).
 */
import * as vscode from 'vscode';
import type { CallEstimate } from '../../compaction/rewrite/compactor';

/** The setting that bounds the calls, as the user finds it in the Settings editor. */
export const MAX_CALLS_SETTING = 'contextKeeper.maxSummaryCalls';

/** The buttons of the question, and what each one asks of the compaction. */
export function callLimitChoices(estimate: CallEstimate): Array<{ title: string; calls: number | 'extractive' }> {
  return [
    { title: `Use the Model (${estimate.needed} Calls)`, calls: Math.max(estimate.needed, estimate.limit) },
    { title: 'Summarize Without a Model', calls: 'extractive' },
  ];
}

/** The question's message and detail, in words, from `estimate`. */
export function callLimitQuestion(estimate: CallEstimate, what: string): { message: string; detail: string } {
  return {
    message: `${what} needs about ${estimate.needed} summarizer calls; the limit is ${estimate.limit} per compaction.`,
    detail: `Within the limit, the oldest messages beyond ${estimate.limit} calls would be summarized without a model (extracted notes), and the checkpoint would say which. Use the model for all ${estimate.needed} calls (slower, and billed), summarize everything without a model, or cancel. The limit is the setting ${MAX_CALLS_SETTING}.`,
  };
}

/**
 * Asks before a compaction over the call limit. Resolves to what the user chose (`calls` for
 * `CompactNowOptions.calls`), `undefined` when nothing needs asking (the estimate is within the
 * limit), or `cancel`.
 */
export async function askOverCallLimit(
  estimate: CallEstimate | undefined,
  what: string,
): Promise<{ calls: number | 'extractive' } | 'cancel' | undefined> {
  if (!estimate || estimate.overLimit === 0) return undefined;
  const { message, detail } = callLimitQuestion(estimate, what);
  const choices = callLimitChoices(estimate);
  // eslint-disable-next-line no-restricted-syntax -- bounded: a few notification buttons
  const picked = await vscode.window.showWarningMessage(message, { modal: true, detail }, ...choices);
  return picked ? { calls: picked.calls } : 'cancel';
}
