/**
 * Builds the {@link BudgetSnapshot} the gauge shows from the meter's reading of the active context.
 */
import type { BudgetConfig, ContextItem, ToolSchema } from '../compaction/types';
import type { TokenMeter } from '../compaction/meter';
import { thresholds } from '../compaction/budget';
import { analyze } from '../compaction/structure';
import type { BudgetBreakdown, BudgetSnapshot } from './api';

/**
 * Reads the meter and splits the total into system, tools, history, summaries and current task.
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
  const th = thresholds(budget);
  const shape = analyze(items, 0);
  const breakdown: BudgetBreakdown = { system: 0, tools: reading.breakdown.tools, history: 0, summaries: 0, currentTask: 0 };
  items.forEach((item, i) => {
    const n = reading.perItem[i];
    if (i < shape.leadEnd) breakdown.system += n;
    else if (item.kind === 'summary') breakdown.summaries += n;
    else if (shape.lastUserIndex >= 0 && i >= shape.lastUserIndex) breakdown.currentTask += n;
    else breakdown.history += n;
  });
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
    exact: reading.basis !== 'estimate' && meter.exact,
    ...(meter.exact ? {} : { counting: true }),
    usedSource: reading.source,
    ...(reading.cachedAdded > 0 ? { cachedAdded: reading.cachedAdded } : {}),
    model,
    warnings: [...th.warnings, ...extraWarnings],
  };
}
