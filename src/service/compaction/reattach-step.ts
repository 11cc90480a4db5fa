/**
 * The re-attach step of a live session's compaction: before planning, the files to re-attach are read
 * (so the plan keeps room for them below the target); after planning, they are added after the
 * summary (`compaction/reattach.ts`). Used by the compaction coordinator for every compaction it runs:
 * automatic ones inside an agent task, manual ones, previews applied, summaries prepared ahead.
 */
import type { BudgetConfig, ContextItem, ToolSchema } from '../../compaction/types';
import type { TokenMeter } from '../../compaction/meter/meter';
import { summaryBudgets, thresholds } from '../../compaction/plan/budget';
import {
  attachReserve,
  withAttachedFiles,
  type AttachedFile,
  type AttachOptions,
} from '../../compaction/rewrite/reattach';
import type { CompactionHost, ReattachConfig } from './compaction-host';
import type { PreparedCompaction } from '../../compaction/rewrite/commit';

/** Files read for one compaction, with the room to keep for them and the limits to apply. */
export interface ReattachPlan {
  files: AttachedFile[];
  /** Tokens to keep free below the target (`CompactionOptions.reserveTokens`). */
  reserve: number;
  options: AttachOptions;
}

/**
 * Reads the files for a compaction of `items` under `budget`; undefined when re-attaching is off or
 * nothing is to be attached. A failed read leaves the compaction without files rather than failing
 * it (the files are a help, the compaction is the point): the error goes to `log`.
 */
export async function planReattach(
  config: ReattachConfig | undefined,
  items: readonly ContextItem[],
  budget: BudgetConfig,
  meter: TokenMeter,
  log: (message: string) => void,
  signal?: AbortSignal,
): Promise<ReattachPlan | undefined> {
  if (!config || !(config.fraction > 0) || config.maxFiles <= 0) return undefined;
  const targetTokens = thresholds(budget).targetTokens;
  const budgetTokens = summaryBudgets(targetTokens, { attach: Math.min(1, config.fraction) }).attachTokens;
  if (budgetTokens <= 0) return undefined;
  let files: AttachedFile[];
  try {
    files = await config.read(items, { maxFiles: config.maxFiles, budgetTokens }, signal);
  } catch (error) {
    log(`files not re-attached: ${(error as Error)?.message ?? String(error)}`);
    return undefined;
  }
  if (files.length === 0) return undefined;
  const options: AttachOptions = { budgetTokens, maxFiles: config.maxFiles, targetTokens };
  return { files, reserve: attachReserve(files, meter, options), options };
}

/** Adds the plan's files to `prepared` (made on `items`); `prepared` unchanged without a plan. */
export function applyReattach(
  prepared: PreparedCompaction,
  items: readonly ContextItem[],
  plan: ReattachPlan | undefined,
  meter: TokenMeter,
  tools: readonly ToolSchema[],
): PreparedCompaction {
  return plan ? withAttachedFiles(prepared, items, plan.files, meter, tools, plan.options) : prepared;
}

/**
 * `prepared` with the files to re-attach added after its summary, read now for the context as it
 * stands (a preview applied, a summary prepared ahead); `prepared` itself when there are none, or
 * when the context changed so that it no longer applies (the commit that follows reports it).
 */
export async function reattachFiles(
  host: CompactionHost,
  prepared: PreparedCompaction,
  signal: AbortSignal,
): Promise<PreparedCompaction> {
  const items = host.items();
  const plan = await planReattach(host.reattach, items, host.budget, host.meter, (m) => host.log('warn', m), signal);
  try {
    return applyReattach(prepared, items, plan, host.meter, host.tools());
  } catch {
    return prepared; // stale: the commit that follows reports it
  }
}
