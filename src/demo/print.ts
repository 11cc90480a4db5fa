/** Text rendering of the demo's gauge, checkpoints and totals (plain ASCII, fixed width). */
import { gaugeBar } from '../cli/format';
import { formatTokensFull } from '../format/tokens';
import type { CheckpointRecord } from '../service/records';
import type { BudgetSnapshot } from '../service/meter/budget-types';

/**
 * One gauge line: a bar over the whole window with `|` at the trigger, `:` at the target and `#` for
 * used tokens, then the figures.
 */
export function gaugeLine(label: string, budget: BudgetSnapshot): string {
  const bar = gaugeBar(
    budget.used,
    budget.window,
    budget.compactAt.tokens / budget.window,
    budget.compactTo.tokens / budget.window,
  );
  const percent = Math.round(budget.usedFraction * 100);
  return `${label} ${bar} ${formatTokensFull(budget.used).padStart(6)} / ${formatTokensFull(budget.window)} tokens (${percent}% of ${formatTokensFull(budget.inputBudget)} input budget, ${budget.exact ? 'exact' : 'estimate'})`;
}

/** One checkpoint line. */
export function checkpointLine(cp: CheckpointRecord): string {
  const how =
    cp.strategy === 'collapse'
      ? 'tool results collapsed'
      : cp.strategy === 'clip'
        ? 'clipped'
        : `summary by ${cp.summarizerModel ?? cp.strategy}`;
  return `  * checkpoint ${cp.id} (${cp.trigger}, ${how}): ${formatTokensFull(cp.tokensBefore)} -> ${formatTokensFull(cp.tokensAfter)} tokens, ${cp.replacedIds.length} messages replaced`;
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
