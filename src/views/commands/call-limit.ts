/**
 * The question asked before a compaction that needs more summarizer calls than the limit
 * (`contextKeeper.maxSummaryCalls`): keep the limit (the model for that many calls, the oldest part
 * beyond them written without a model, see `SummaryCoverage`), write everything without a model, use
 * the model with all the calls it needs, or cancel. A button per choice, bounded choices first: a
 * modal's first button is its default (Enter), so Enter never starts the billed, unbounded run.
 */
import * as vscode from 'vscode';
import type { CallEstimate } from '../../compaction/rewrite/compactor';
import { formatDecimal, formatInteger } from '../../format/display';

/** The setting that bounds the calls, as the user finds it in the Settings editor. */
export const MAX_CALLS_SETTING = 'contextKeeper.maxSummaryCalls';

/**
 * The buttons of the question, in order (the first is the modal's default), and what each one asks
 * of the compaction: the limit kept, no model, or all the calls needed.
 */
export function callLimitChoices(estimate: CallEstimate): Array<{ title: string; calls: number | 'extractive' }> {
  return [
    { title: `Keep the Limit (${estimate.limit} ${estimate.limit === 1 ? 'Call' : 'Calls'})`, calls: estimate.limit },
    { title: 'Summarize Without a Model', calls: 'extractive' },
    { title: `Use the Model (${estimate.needed} Calls)`, calls: Math.max(estimate.needed, estimate.limit) },
  ];
}

/**
 * How many times `window` (tokens) `used` (tokens) is, for the question: `1.6×` with one decimal
 * below 10, whole above (`37×`), so a recording under ten windows never reads as `0` or `1`.
 */
export function timesWindow(used: number, window: number): string {
  const ratio = used / Math.max(1, window);
  return `${ratio < 10 ? formatDecimal(ratio, 1) : formatInteger(Math.round(ratio))}×`;
}

/** The question's message and detail, in words, from `estimate`. */
export function callLimitQuestion(estimate: CallEstimate, what: string): { message: string; detail: string } {
  return {
    message: `${what} needs about ${estimate.needed} summarizer calls; the limit is ${estimate.limit} per compaction.`,
    detail: `Keep the limit: the model makes ${estimate.limit} ${estimate.limit === 1 ? 'call' : 'calls'} and the oldest messages beyond them are summarized without a model (extracted notes); the checkpoint says which. Or summarize everything without a model (no calls), use the model for all ${estimate.needed} calls (slower, and billed), or cancel. The limit is the setting ${MAX_CALLS_SETTING}.`,
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
