/**
 * Builds the {@link BudgetSnapshot} the gauge shows from the meter's reading of the active context.
 */
import type { BudgetConfig, ContextItem, ToolSchema } from '../../compaction/types';
import type { TokenMeter } from '../../compaction/meter/meter';
import { thresholds } from '../../compaction/plan/budget';
import { analyze } from '../../compaction/plan/structure';
import type { BudgetBreakdown, BudgetSnapshot } from './budget-types';
import { isInstructionsItem } from '../project-instructions';
import { HARNESS_BLOCKS, HARNESS_PARAGRAPHS, userTextAuthor } from '../../compaction/harness-text';
import { isRealUserMessage, isSummaryItem, isToolOutputMessage } from '../../compaction/plan/structure';
import { textWithPlaceholders } from '../../compaction/content-text';

/**
 * Whether the gauge counts `item` as the start of the current task: a real user message
 * (`isRealUserMessage`) with words the user typed, so a message that holds harness text alone (Cline's
 * environment details after a tool result) leaves the typed request the task's start.
 */
export function startsTask(item: ContextItem): boolean {
  return isRealUserMessage(item) && userTextAuthor(textWithPlaceholders(item.message.content)).by === 'user';
}

/**
 * Tokens of `item` (of `count` tokens in all) that an agent's harness wrote: 0 for a message that is
 * not a user message or is a summary; all of a user message that holds harness text alone; else the
 * harness blocks and paragraphs in it (Cline appends its environment details to the user's words and
 * to tool output), counted as text and at most `count`. Same rule as the summary's typed requests.
 */
export function harnessTokens(item: ContextItem, count: number, meter: TokenMeter): number {
  if (item.message.role !== 'user' || isSummaryItem(item)) return 0;
  const text = textWithPlaceholders(item.message.content);
  if (!isToolOutputMessage(item) && userTextAuthor(text).by === 'harness') return count;
  const parts = [...text.matchAll(HARNESS_BLOCKS), ...text.matchAll(HARNESS_PARAGRAPHS)].map((m) => m[0]);
  return parts.length ? Math.min(count, meter.countText(parts.join('\n'))) : 0;
}

/**
 * Reads the meter and splits the total into system, project instructions, tools, history, summaries,
 * current task and the harness text sent with it.
 * When the reading is anchored on reported usage, the categories (estimates) are scaled so they add
 * up to the reported total; rounding goes to the largest category.
 */
export function budgetSnapshot(
  items: readonly ContextItem[],
  tools: readonly ToolSchema[],
  meter: TokenMeter,
  budget: BudgetConfig,
  model: string,
  extraWarnings: readonly string[] = [],
): BudgetSnapshot {
  const reading = meter.read(items, tools);
  const shape = analyze(items, 0);
  let taskStart = -1;
  for (let i = items.length - 1; i >= shape.leadEnd && taskStart < 0; i--) if (startsTask(items[i])) taskStart = i;
  const breakdown: BudgetBreakdown = {
    system: 0,
    instructions: 0,
    tools: reading.breakdown.tools,
    history: 0,
    summaries: 0,
    currentTask: 0,
    harness: 0,
  };
  items.forEach((item, i) => {
    const n = reading.perItem[i];
    if (isInstructionsItem(item)) breakdown.instructions += n;
    else if (i < shape.leadEnd) breakdown.system += n;
    else if (item.kind === 'summary') breakdown.summaries += n;
    else if (taskStart >= 0 && i >= taskStart) {
      const harness = harnessTokens(item, n, meter);
      breakdown.harness += harness;
      breakdown.currentTask += n - harness;
    } else breakdown.history += n;
  });
  return fillSnapshot(
    breakdown,
    {
      total: reading.total,
      exact: reading.basis !== 'estimate',
      source: reading.source,
      cachedAdded: reading.cachedAdded,
    },
    meter.exact,
    budget,
    model,
    extraWarnings,
  );
}

/** A reading of the active context, as {@link fillSnapshot} needs it. */
export interface SnapshotReading {
  /** Prompt tokens of the active context (anchored on reported usage where there is one), in tokens. */
  total: number;
  /** Whether `total` rests on reported usage rather than on the meter's estimate alone. */
  exact: boolean;
  /** Where `total` comes from, in words (shown under the gauge). */
  source: string;
  /** Tokens counted locally on top of the cached report (0 when none), in tokens. */
  cachedAdded: number;
}

/**
 * Completes a {@link BudgetSnapshot} from the per-category estimates and the reading: the categories
 * are scaled (in place) so they add up to `reading.total`, rounding going to the largest one, and the
 * thresholds come from `budget` ({@link thresholds}). Shared by {@link budgetSnapshot} and the
 * service's incremental tally, so both show the same figures.
 *
 * @param meterExact Whether the tokenizer is loaded (otherwise the figures are character estimates).
 */
export function fillSnapshot(
  breakdown: BudgetBreakdown,
  reading: SnapshotReading,
  meterExact: boolean,
  budget: BudgetConfig,
  model: string,
  extraWarnings: readonly string[] = [],
): BudgetSnapshot {
  const th = thresholds(budget);
  const keys = Object.keys(breakdown) as Array<keyof BudgetBreakdown>;
  const estimated = keys.reduce((s, k) => s + breakdown[k], 0);
  if (estimated > 0 && estimated !== reading.total) {
    const scale = reading.total / estimated;
    for (const k of keys) breakdown[k] = Math.round(breakdown[k] * scale);
    const drift = reading.total - keys.reduce((s, k) => s + breakdown[k], 0);
    const largest = keys.reduce((a, b) => (breakdown[b] > breakdown[a] ? b : a));
    breakdown[largest] += drift;
  }
  return {
    used: reading.total,
    window: budget.contextWindow,
    reserved: th.reservedOutput,
    inputBudget: th.inputBudget,
    compactAt: { tokens: th.triggerTokens, fraction: budget.compactAt },
    compactTo: { tokens: th.targetTokens, fraction: budget.compactTo },
    usedFraction: th.base > 0 ? reading.total / th.base : 0,
    breakdown,
    exact: reading.exact && meterExact,
    // The tokenizer is still loading: the figures are character-based estimates, labelled as such.
    ...(meterExact ? {} : { counting: true }),
    usedSource: reading.source,
    ...(reading.cachedAdded > 0 ? { cachedAdded: reading.cachedAdded } : {}),
    model,
    warnings: [...th.warnings, ...extraWarnings],
  };
}
