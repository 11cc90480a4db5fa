/**
 * The contract between the compaction coordinator ({@link Compactions}) and the context service that
 * owns it: what the coordinator reads and calls, its options and its counters.
 */
import type { BudgetConfig, ContextItem, Summarizer, ToolSchema } from '../../compaction/types';
import type { TokenMeter } from '../../compaction/meter/meter';
import type { AttachedFile } from '../../compaction/rewrite/reattach';
import type { ReattachLimits } from './reattach-files';
import type { CompactionWorker } from './worker/session-worker';
import type { CompactionResult } from '../../compaction/outcome';
import type { CheckpointRecord, RestoredOverflow } from '../records';

/** How a service re-attaches files; absent or with a 0 share or count: it does not. */
export interface ReattachConfig {
  /** Share of the compaction target for the files, in (0, 1]; 0 turns re-attaching off. */
  fraction: number;
  /** Most files after one summary; 0 turns re-attaching off. */
  maxFiles: number;
  /** Reads the candidates of `items` from the workspace (see `readReattachFiles`). */
  read(items: readonly ContextItem[], limits: ReattachLimits, signal?: AbortSignal): Promise<AttachedFile[]>;
}

/** What the coordinator needs from its owner. */
export interface CompactionHost {
  /** The active context as it stands now. */
  items(): readonly ContextItem[];
  tools(): readonly ToolSchema[];
  readonly meter: TokenMeter;
  readonly summarizer: Summarizer;
  readonly budget: BudgetConfig;
  readonly keepRecentSteps: number;
  /** Shares of the compaction target for typed requests and for a summary's notes. */
  readonly userBudget?: number;
  readonly summaryBudget?: number;
  /** Model calls one compaction may make (invariant 7). */
  readonly maxSummaryCalls?: number;
  /** Files re-attached after a summary (live sessions); absent: none. */
  readonly reattach?: ReattachConfig;
  /**
   * The meter's reading of the active context with the tools, in tokens: calibrated on the last
   * reported usage when that still applies. Kept up to date by the owner (constant time).
   */
  used(): number;
  /** Counter bumped on every rewrite of the context (compaction, restore, pin, import), not on appends. */
  version(): number;
  /**
   * Persists and applies an applied result; returns the records added. Throws when persisting fails,
   * in which case nothing was changed. `runTime` (ISO 8601): the time of the run's earlier commit when
   * one run commits more than once, so every step of it is stamped alike and the history and a
   * restore take it as one run (see `session/run-steps.ts`); the time of the commit otherwise.
   */
  commit(result: CompactionResult, runTime?: string): CheckpointRecord[];
  /**
   * Raw entry ids a checkpoint restore brought back. Automatic compaction keeps them out (as if
   * pinned) until the user compacts manually or agrees to compact them; absent or empty when none.
   */
  restoredIds?(): ReadonlySet<string>;
  /**
   * Asks the user whether restored messages may be compacted again because the context cannot fit
   * the window; resolves false when declined or when nobody can answer.
   */
  confirmCompactRestored?(info: RestoredOverflow): Promise<boolean>;
  /**
   * Ids of the summary items in the context whose text the user edited by hand before applying
   * (checkpoints marked `editedByHand`, not restored); absent or empty when none.
   */
  editedSummaryIds?(): ReadonlySet<string>;
  /** Forgets the restored ids (the user compacted, or agreed to). */
  releaseRestored?(): void;
  /**
   * Secret values of the whole raw transcript (`CompactionOptions.knownSecretValues`), kept up to date
   * as messages are appended; a transcript not read yet (just loaded or imported) is read in slices of
   * the host's time first. Rejects with the reason of `signal` when it aborts in between. Absent: only
   * each span's own values are masked.
   */
  knownSecretValues?(signal?: AbortSignal): Promise<readonly string[]>;
  /** Reports that a compaction started (`detail`) or ended (undefined). */
  setBusy(detail: string | undefined): void;
  log(level: 'debug' | 'info' | 'warn' | 'error', message: string): void;
}

/** Options of {@link Compactions}. */
export interface CompactionsOptions {
  /** Fraction of the base below `compactAt` at which a summary is prepared ahead; 0 = off. */
  prepareAheadMargin: number;
  /** Milliseconds after which one compaction run is aborted. */
  timeoutMs: number;
  /** Most images per request (undefined: no limit); see `stripImages`. */
  maxImages?: number;
  /** Where compactions run (`prepareOffThread`'s mode); default `auto`. */
  thread?: 'auto' | 'inline' | 'worker';
  /** The session's compaction worker (kept warm between runs); without it each run starts its own. */
  worker?: CompactionWorker;
}

/** Counters for the demo and the tests. */
export interface CompactionStats {
  automatic: number;
  manual: number;
  /** Automatic compactions applied from a summary prepared ahead. */
  preparedUsed: number;
  /** Prepared summaries thrown away because the context was rewritten in between. */
  preparedDiscarded: number;
  /** Summarizer runs started (prepare-ahead included). */
  summarizerRuns: number;
  failures: number;
}
