/**
 * Builds the compaction coordinator of a context service from the service's options: the budget,
 * summary and re-attach settings with their defaults, and the coordinator's own limits. The service
 * supplies the parts that live in it (its state, meter, summarizer, commit and log).
 */
import { DEFAULT_ATTACH_BUDGET } from '../../compaction/plan/budget';
import { DEFAULT_REATTACH_MAX_FILES } from '../../compaction/rewrite/reattach';
import type { BudgetConfig, ContextItem } from '../../compaction/types';
import type { AttachedFile } from '../../compaction/rewrite/reattach';
import type { ContextServiceOptions } from '../api';
import type { CompactionHost } from './compaction-host';
import { Compactions } from './compactions';
import { ownWork, readReattachFiles } from './reattach-files';
import { compactionWorkerFile } from './worker/runner';
import { CompactionWorker } from './worker/session-worker';
import { nextTurn } from '../../lifecycle/time-slices';

/** The parts of a {@link CompactionHost} that the service holds (state, meter, summarizer, events). */
export type ServiceCompactionParts = Pick<
  CompactionHost,
  | 'items'
  | 'tools'
  | 'meter'
  | 'summarizer'
  | 'used'
  | 'version'
  | 'commit'
  | 'setBusy'
  | 'restoredIds'
  | 'editedSummaryIds'
  | 'releaseRestored'
  | 'knownSecretValues'
  | 'log'
> & {
  /**
   * Whether a raw entry id is the session's own work in its workspace (see `ownEntryTest`); only
   * their files are re-attached. Absent: every entry counts as the session's own.
   */
  ownEntries?(): (entryId: string | undefined) => boolean;
  /**
   * Instruction files whose text on disk differs from what the context holds (see
   * `changedInstructions`): re-attached first after a summary. Absent: none.
   */
  instructions?(items: readonly ContextItem[], signal?: AbortSignal): Promise<AttachedFile[]>;
};

/** The options {@link serviceCompactions} reads. */
export type CompactionSettings = Pick<
  ContextServiceOptions,
  | 'budget'
  | 'host'
  | 'keepRecentSteps'
  | 'userBudget'
  | 'summaryBudget'
  | 'maxSummaryCalls'
  | 'reattachBudget'
  | 'reattachMaxFiles'
  | 'confirmCompactRestored'
  | 'prepareAheadMargin'
  | 'compactionTimeoutMs'
  | 'maxImagesPerRequest'
  | 'compactionThread'
>;

/**
 * A {@link Compactions} for a service opened with `options`; `budget` may be a function, read at each
 * use, for a budget that changes during the session. Defaults: 1 newest step kept verbatim,
 * a prepare-ahead margin of 0.1 of the threshold base, a 120 s timeout per compaction, the default
 * re-attach share and file count (`compaction/budget.ts`, `compaction/reattach.ts`). Without a
 * `confirmCompactRestored` callback nobody can be asked, so restored messages are not compacted again.
 */
export function serviceCompactions(
  options: Omit<CompactionSettings, 'budget'> & { budget: CompactionSettings['budget'] | (() => BudgetConfig) },
  parts: ServiceCompactionParts,
): Compactions {
  // The budget may change during a session (a server that serves a smaller window): read at each use.
  const budget = options.budget;
  // The session's compaction worker: started by the first large compaction, stopped on dispose or idle.
  const workerFile = options.compactionThread === 'inline' ? undefined : compactionWorkerFile();
  return new Compactions(
    {
      ...parts,
      get budget(): BudgetConfig {
        return typeof budget === 'function' ? budget() : budget;
      },
      keepRecentSteps: options.keepRecentSteps ?? 1,
      userBudget: options.userBudget,
      summaryBudget: options.summaryBudget,
      maxSummaryCalls: options.maxSummaryCalls,
      reattach: {
        fraction: options.reattachBudget ?? DEFAULT_ATTACH_BUDGET,
        maxFiles: options.reattachMaxFiles ?? DEFAULT_REATTACH_MAX_FILES,
        // Only what the session itself read or changed here: a recording's paths name another project's files.
        read: async (items, limits, signal) => {
          // Changed project instructions first: they are re-read after every compaction that summarises.
          const instructions = (await parts.instructions?.(items, signal)) ?? [];
          // Each pass over the context (hundreds of thousands of messages) in slices of its own.
          await nextTurn();
          const own = parts.ownEntries?.();
          const touched = await readReattachFiles(
            options.host,
            own ? await ownWork(items, own) : items,
            limits,
            (text) => parts.meter.countText(text),
            signal,
          );
          const first = new Set(instructions.map((f) => f.path));
          return [...instructions, ...touched.filter((f) => !first.has(f.path))].slice(0, limits.maxFiles);
        },
      },
      confirmCompactRestored: (info) => options.confirmCompactRestored?.(info) ?? Promise.resolve(false),
    },
    {
      prepareAheadMargin: options.prepareAheadMargin ?? 0.1,
      timeoutMs: options.compactionTimeoutMs ?? 120_000,
      maxImages: options.maxImagesPerRequest,
      thread: options.compactionThread,
      worker: workerFile ? new CompactionWorker(workerFile) : undefined,
    },
  );
}
