/**
 * Public surface of the context service: what the VS Code views, the commands and the command-line
 * demo code against. Plain TypeScript (no `vscode` import) so tests and the CLI run it in Node.
 *
 * Units: every size here is in tokens unless its name says otherwise; fractions are of the
 * threshold base (see `BudgetConfig.thresholdBase` in `src/compaction/types.ts`).
 *
 * Event discipline follows VS Code's own: one emitter per event, named `onDid*`, subscribing returns a
 * {@link Disposable}; listeners are called synchronously in subscription order and a throwing
 * listener does not stop the others.
 */
import type { CallEstimate } from '../compaction/rewrite/compactor';
import type { ChatClient } from '../agent/session';
import type { BudgetConfig, Summarizer } from '../compaction/types';
import type { ApprovalHandler, ApprovalRequest, AutoApprove, ToolHost } from '../agent/types';
import type { TokenCounter } from '../tokenizer/tokenizer';
import type { BudgetSnapshot } from './meter/budget-types';
import type { RestorePlan } from './session/restore-plan';
import type { CompactOutcome } from './compaction/outcome';
import type {
  CheckpointRecord,
  CheckpointRestored,
  CompactionPreview,
  EntryAppended,
  ExportedTranscript,
  ImportedTranscript,
  RestoredOverflow,
  StateChange,
  StreamText,
  TaskOutcome,
  ToolCallEvent,
  ToolResultEvent,
  TranscriptSnapshot,
} from './records';
import type { CompactionProgress } from './compaction/worker/session-worker';

/** Something that holds resources until disposed. */
export interface Disposable {
  dispose(): void;
}

/** Subscribe to an event; call `dispose()` on the result to unsubscribe. */
export type Event<T> = (listener: (event: T) => void) => Disposable;

/** Options of {@link ContextServiceApi.compactNow}. */
export interface CompactNowOptions {
  /** Focus instructions for the summarizer ("keep the migration details"). */
  focus?: string;
  /** Return a preview instead of applying; apply later with `applyPreview`. */
  preview?: boolean;
  /** Progress of a large compaction (run in a worker thread): messages summarized of the context's. */
  onProgress?: (progress: CompactionProgress) => void;
  /**
   * When the summaries need more model calls than `maxSummaryCalls`: a number of calls allowed for
   * this compaction instead, or `extractive` for summaries written without a model (see
   * {@link ContextServiceApi.estimateCompaction}). Absent: the limit holds and the oldest part beyond
   * it is written without a model.
   */
  calls?: number | 'extractive';
  /** The checkpoints' trigger: `manual` (default), or `continue` when a recording is continued in a new task. */
  trigger?: 'manual' | 'continue';
}
/**
 * The context service: an agent session plus meter, automatic/manual compaction, checkpoints and
 * persistence. One instance per conversation.
 *
 * Concurrency rules: one task at a time (`runTask` rejects while another runs); compaction is
 * single-flight (concurrent requests share one run and one checkpoint); compaction never runs while a
 * reply is streaming — a manual request during a step is queued until the step's tool results are in.
 */
export interface ContextServiceApi extends Disposable {
  readonly onDidChangeBudget: Event<BudgetSnapshot>;
  readonly onDidAddCheckpoint: Event<CheckpointRecord>;
  readonly onDidRestoreCheckpoint: Event<CheckpointRestored>;
  readonly onDidChangeState: Event<StateChange>;
  readonly onDidStreamText: Event<StreamText>;
  readonly onDidAppendEntry: Event<EntryAppended>;
  readonly onDidStartToolCall: Event<ToolCallEvent>;
  readonly onDidFinishToolCall: Event<ToolResultEvent>;
  /**
   * An edit or command waits for approval. Answer with {@link ContextServiceApi.resolveApproval}.
   * Only fired when the service was built without its own approval handler and auto-approve is off.
   */
  readonly onDidRequestApproval: Event<ApprovalRequest>;
  /** The pending preview changed (set, applied or discarded → undefined). */
  readonly onDidChangePreview: Event<CompactionPreview | undefined>;
  /**
   * The pending preview was discarded because the context it was computed on changed (a restore, an
   * undone restore, a new message, a compaction, a pin): what changed, in words ("a checkpoint was
   * restored"). Fired after {@link onDidChangePreview} (undefined).
   */
  readonly onDidDropPreview: Event<string>;

  /** Session id (folder name under the storage directory). */
  readonly sessionId: string;
  /** Folder holding this session's files, or undefined when persistence is off. */
  readonly sessionDir: string | undefined;

  /**
   * Appends `text` as a user message and runs the agent loop until the model answers without tool
   * calls, the step limit is hit, or the task is cancelled (`signal` or {@link cancel}).
   * Never rejects for model or tool errors (they end the task with status `error`); rejects only
   * when another task is already running.
   */
  runTask(text: string, signal?: AbortSignal): Promise<TaskOutcome>;
  /** True from a {@link runTask} call until it settles (the state is never `idle` meanwhile): ask this before anything a running task forbids. */
  readonly taskRunning: boolean;
  /** Cancels the running task and any running compaction; the transcript stays valid. */
  cancel(): void;
  /**
   * Manual compaction (forced: runs below the threshold too). With `preview`, proposes a summary
   * without applying it. Queued while a reply is streaming. Resolves (never rejects) with the outcome;
   * a summarizer failure leaves the context unchanged and says why in `reason`.
   */
  compactNow(options?: CompactNowOptions, signal?: AbortSignal): Promise<CompactOutcome>;
  /**
   * The summarizer calls {@link compactNow} would make now, from the same plan, without calling the
   * summarizer; undefined when it would write no summary with a model. For warning before a
   * compaction that needs more calls than the limit (`contextKeeper.maxSummaryCalls`). `trigger`
   * names the compaction: `manual` (the default) or `continue` (see {@link CompactNowOptions.trigger}).
   */
  estimateCompaction(trigger?: 'manual' | 'continue'): CallEstimate | undefined;
  /**
   * Why Compact could do nothing now (the conversation is empty, everything left is anchored), in
   * words, or undefined when something is eligible. Cached per conversation version and length.
   */
  compactBlocker(): string | undefined;
  /**
   * Applies the pending preview exactly as shown, with the user's edited summary texts where given
   * (`edited[k]` replaces `summaries[k]`; undefined or blank keeps it). Not applied, and `reason`
   * says so, when the conversation changed since the preview was made (rewritten or grown). Rejects
   * while a task runs.
   */
  applyPreview(edited?: readonly (string | undefined)[]): Promise<CompactOutcome>;
  /**
   * Tokens the context would hold after {@link applyPreview} with `edited`, counted exactly as Apply
   * counts them (the tokenizer on the edited summaries' text); undefined without a pending preview.
   */
  previewTokensAfter(edited: readonly (string | undefined)[]): number | undefined;
  /** Drops the pending preview. */
  discardPreview(): void;
  /**
   * Undoes a checkpoint: its replaced items return to the active context. Later checkpoints whose
   * items depend on it are undone first. Several ids (the steps of one compaction run) are undone as
   * one restore, which one {@link undoRestore} takes back; the event is named by the first. Rejects
   * when an id is unknown or already restored, and while a task or a compaction runs.
   */
  restoreCheckpoint(id: string | readonly string[]): Promise<CheckpointRestored>;
  /** What {@link restoreCheckpoint} of `id` would undo and the prompt tokens after it, changing nothing; throws where it would reject for the id. */
  planRestore(id: string | readonly string[]): RestorePlan;
  /**
   * Undoes the latest restore: the context it replaced comes back (its checkpoints are in force
   * again), followed by any message appended since. Fires {@link onDidRestoreCheckpoint} with
   * `undo: true`. Kept with the session's state: it survives a switch to another session and a reload,
   * and ends with the next rewrite of the context (a compaction, a pin or another restore). Rejects when no restore can be undone (see
   * {@link getUndoableRestore}), and while a task or a compaction runs.
   */
  undoRestore(): Promise<CheckpointRestored>;
  /** The restore {@link undoRestore} would undo: the latest one, while nothing rewrote the context after it. */
  getUndoableRestore(): CheckpointRestored | undefined;
  /**
   * Pins (or unpins) a raw entry so that it is never summarized, collapsed or clipped. Rejects when the
   * entry is not in the active context as itself (restore the checkpoint that summarized it first).
   */
  pin(entryId: string, pinned?: boolean): Promise<void>;
  /** Answers an approval request fired by {@link onDidRequestApproval}. Unknown ids are ignored. */
  resolveApproval(requestId: string, approved: boolean): void;

  /** The coarse state now (`idle`, `streaming`, `running-tool`, `compacting`, `error`) with its detail. */
  getState(): StateChange;
  /**
   * The meter now, every figure in tokens: what the next request would carry (`used`, exact when
   * anchored on the provider's last `usage.prompt_tokens`, else estimated), the window, the reserved
   * output and the trigger/target marks. Cheap: per-entry counts are cached.
   */
  getBudget(): BudgetSnapshot;
  /** All checkpoints, oldest first, restored ones included (flagged). */
  getCheckpoints(): CheckpointRecord[];
  /** Shallow copies of the raw transcript (append-only), the active context and the pinned ids, oldest first. */
  getTranscript(): TranscriptSnapshot;
  /** The summary proposed by a manual compaction with `preview`, until it is applied or discarded. */
  getPreview(): CompactionPreview | undefined;
  /** Approval requests the agent is waiting on, oldest first (empty when none or auto-approved). */
  getPendingApprovals(): ApprovalRequest[];
  /**
   * Replaces the conversation with an imported one (a new session folder when persistence is on).
   * Rejects while a task runs.
   */
  importTranscript(imported: ImportedTranscript): Promise<void>;
  /**
   * The whole session as plain JSON-ready data: raw entries, active context, checkpoints, pins and the
   * sendable messages. Message bodies are included verbatim; nothing is redacted.
   */
  exportTranscript(): ExportedTranscript;
  /**
   * Resolves once every state save so far is on disk (a rewrite's state is saved after it returns, in
   * order; `dispose()` writes what is pending). Rejects with the error naming the file when a save fails.
   */
  whenSaved(): Promise<void>;
}

/** Log sink; the extension passes its LogOutputChannel, the CLI stderr. */
export type LogSink = (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;

/**
 * What a context service is built from. Build with `ContextService.open(options)` (it loads the
 * session folder when `sessionId` names an existing one).
 */
export interface ContextServiceOptions {
  /** OpenAI-compatible client (any `baseURL`), or an editor model's adapter, for the agent's model calls. */
  client: ChatClient;
  /** Model id sent in each request. */
  model: string;
  /** Window, reservation and thresholds. */
  budget: BudgetConfig;
  /** Where the window came from, for the gauge ("32,768 tokens, reported by the server"). */
  windowSource?: string;
  /** An imported recording's provider-reported prompt tokens of its newest request, shown beside the count. */
  recordedPromptTokens?: number;
  /**
   * True for an imported recording opened for inspection (no task runs in it): its count holds the
   * tool schemas the recording itself recorded (kept with the session; most formats record none)
   * instead of the agent's own, as the command line's `meter` counts a recording.
   */
  countsRecording?: boolean;
  /** File system and process access for the workspace tools. */
  host: ToolHost;
  /** Writes summaries; default: the extractive summarizer (no model call). */
  summarizer?: Summarizer;
  /** System prompt of new sessions (a resumed session keeps its own). */
  systemPrompt?: string;
  /**
   * Workspace-relative instruction files read into new sessions and continued recordings after the
   * system prompt, and re-attached after a summary when they changed (see `project-instructions.ts`).
   * Default: AGENTS.md, CLAUDE.md and `.github/copilot-instructions.md`; empty: none.
   */
  instructionFiles?: readonly string[];
  /** Folder holding one sub-folder per session; persistence is off when undefined. */
  storageDir?: string;
  /** Resume this session (when its folder exists) or create it under this id. */
  sessionId?: string;
  /** Upper bound on model calls per task. Default 40. */
  maxSteps?: number;
  /** Side effects that run without asking. Default: none. */
  autoApprove?: AutoApprove;
  /**
   * Decides approvals (the extension shows a diff). When absent, requests are fired through
   * `onDidRequestApproval` and answered by `resolveApproval`.
   */
  approve?: ApprovalHandler;
  /**
   * Asked when messages a checkpoint restore brought back would have to be compacted again because
   * the context cannot fit the window (they are otherwise kept out of automatic compaction until a
   * manual compaction). Resolve true to compact them; false stops the task with a clear error. When
   * absent, restored messages are never compacted again automatically.
   */
  confirmCompactRestored?: (info: RestoredOverflow) => Promise<boolean>;
  /**
   * Margin below `compactAt` (fraction of the base) at which the summary of the next span is prepared
   * in the background, so that the compaction at the threshold applies without waiting; inside the
   * margin it starts once the next model call may reach the threshold (by recent growth). Default
   * 0.1; 0 turns preparation off.
   */
  prepareAheadMargin?: number;
  /**
   * Most images one request may carry; older images beyond it are replaced by placeholders before the
   * next model call, even when tokens are fine (providers refuse requests past an image count).
   * Undefined: no limit.
   */
  maxImagesPerRequest?: number;
  /** A compaction that takes longer is aborted and the context left unchanged. Default 120 000 ms. */
  compactionTimeoutMs?: number;
  /** Where compactions run: `auto` (default: large extractive ones in a worker thread), or always `inline`/`worker` (benchmarks). */
  compactionThread?: 'auto' | 'inline' | 'worker';
  /** Newest agent steps never summarized. Default 1. */
  keepRecentSteps?: number;
  /** Shares of the compaction target for typed requests and for a summary's notes (`summaryBudgets`). */
  userBudget?: number;
  summaryBudget?: number;
  /**
   * Files re-attached after a summary (see `reattach.ts`): share of the compaction target they may take
   * (default 0.1; 0 = off) and most files (default 5; 0 = off). Read through `host`.
   */
  reattachBudget?: number;
  reattachMaxFiles?: number;
  /** Model calls one compaction may make; messages beyond them are summarised without a model (see `SummaryCoverage`). Default 4. */
  maxSummaryCalls?: number;
  /** Timeout of one tool call, in milliseconds. Default 60 000. */
  toolTimeoutMs?: number;
  /** Token counter; default: the exact tokenizer chosen by `model` (its tables load on first use). */
  tokenCounter?: TokenCounter;
  log?: LogSink;
  /** Clock, for deterministic tests. */
  now?: () => Date;
}
