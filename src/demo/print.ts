/** Text rendering of the demo's gauge, checkpoints and totals (plain ASCII, fixed width). */
import { gauge } from '../cli/format';
import { formatTokensFull, plural } from '../format/tokens';
import type { CheckpointRecord } from '../service/records';
import type { BudgetSnapshot } from '../service/meter/budget-types';
import type { TaskOutcome } from '../service/records';

/**
 * One gauge line, on the scale `replay` uses (see `GAUGE_LEGEND`): a bar over the input budget with
 * `|` at the trigger, `:` at the target and `#` for used tokens, the percent and used/budget tokens,
 * and whether the count is exact.
 */
export function gaugeLine(label: string, budget: BudgetSnapshot): string {
  const base = budget.inputBudget;
  const bar = gauge(budget.used, base, budget.compactAt.tokens / base, budget.compactTo.tokens / base);
  return `${label} ${bar} (${budget.exact ? 'exact' : 'estimate'})`;
}

/** One checkpoint line. */
export function checkpointLine(cp: CheckpointRecord): string {
  const how =
    cp.strategy === 'collapse'
      ? 'tool results collapsed'
      : cp.strategy === 'clip'
        ? 'clipped'
        : `summary by ${cp.summarizerModel ?? cp.strategy}`;
  return `  * checkpoint ${cp.id} (${cp.trigger}, ${how}): ${formatTokensFull(cp.tokensBefore)} -> ${formatTokensFull(cp.tokensAfter)} tokens, ${plural(cp.replacedIds.length, 'message', 'messages')} replaced`;
}

/**
 * The totals' compactions line: how many ran (automatic and manual) and, since one compaction
 * writes a checkpoint for each step it takes (old tool results collapsed, then the oldest history
 * summarized, and clipped when still too large), how many checkpoints that made of each kind.
 */
export function compactionsLine(
  counts: { automatic: number; manual: number },
  checkpoints: readonly Pick<CheckpointRecord, 'strategy'>[],
): string {
  const runs = counts.automatic + counts.manual;
  const head = `${runs} (${counts.automatic} automatic, ${counts.manual} manual)`;
  const n = (k: number, one: string, many: string) => `${k} ${k === 1 ? one : many}`;
  if (checkpoints.length === runs) return `${head}, one checkpoint each`;
  const collapses = checkpoints.filter((c) => c.strategy === 'collapse').length;
  const clips = checkpoints.filter((c) => c.strategy === 'clip').length;
  const summaries = checkpoints.length - collapses - clips;
  const kinds = [
    collapses ? n(collapses, 'collapse of old tool results', 'collapses of old tool results') : '',
    summaries ? n(summaries, 'summary', 'summaries') : '',
    clips ? n(clips, 'clip of oversized messages', 'clips of oversized messages') : '',
  ].filter(Boolean);
  return `${head} wrote ${n(checkpoints.length, 'checkpoint', 'checkpoints')} (${kinds.join(', ')}): a compaction writes one for each step it takes`;
}

/** First line of `text`, cut to `max` characters. */
export function firstLine(text: string, max = 100): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A failure the demo explains itself: printed without a stack trace. */
export class DemoError extends Error {}

/**
 * Stops the demo with a clear error when task `n` did not run to its end: the scripted model is on
 * 127.0.0.1, so a failure is almost always loopback access (a sandbox without it, or a proxy variable
 * that catches requests to 127.0.0.1). Totals of a demo that reached no model would be meaningless.
 * @throws Error naming the task, the error and the address tried.
 */
export function checkReached(outcome: TaskOutcome, n: number, url: string): void {
  if (outcome.status === 'done') return;
  throw new DemoError(
    `task ${n} ended with status ${outcome.status}${outcome.error ? ` (${outcome.error.replace(/\.$/, '')})` : ''}. The demo's scripted model listens on ${url}; ` +
      'if it could not be reached, this environment blocks loopback connections or sends them through a proxy ' +
      '(set NO_PROXY=127.0.0.1,localhost).',
  );
}
