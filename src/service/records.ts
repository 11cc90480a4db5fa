/**
 * The records the context service hands out: its state, checkpoints as listed, events' payloads,
 * task outcomes, previews and transcripts imported or exported. Plain data, no behaviour; the
 * service interface that produces them is in `api.ts`.
 *
 * Units: every size here is in tokens unless its name says otherwise.
 */
import type { Checkpoint, ContextItem, Entry, ChatMessage, ToolSchema } from '../compaction/types';
import type { RecordedCompaction } from '../compaction/rewrite/imported';
import type { ModelFailure } from '../compaction/outcome';

/** The service's coarse state. Exactly one at a time. */
export type ServiceState = 'idle' | 'streaming' | 'running-tool' | 'compacting' | 'error';

/** Payload of `ContextServiceApi.onDidChangeState`. */
export interface StateChange {
  state: ServiceState;
  /** Human-readable detail: the tool running, "auto compaction", the error message… */
  detail?: string;
  /** For an `error` from a failed model call (a summarizer's): its kind and HTTP status. */
  failure?: ModelFailure;
}

/** What the user is asked about when restored messages would have to be compacted again. Tokens. */
export interface RestoredOverflow {
  /** Raw messages the restore brought back. */
  restoredMessages: number;
  /** Prompt tokens the next request would carry. */
  used: number;
  /** Prompt tokens a request may carry. */
  inputBudget: number;
  /** True when the provider refused the request as too long (rather than the meter's reading). */
  providerRefused: boolean;
}

/** A checkpoint as listed by the service: the core record plus whether it was undone. */
export interface CheckpointRecord extends Checkpoint {
  /** True once the checkpoint was undone by a restore; kept in the list for history. */
  restored?: boolean;
  /** ISO 8601 time of the restore. */
  restoredAt?: string;
}

/** Payload of `ContextServiceApi.onDidRestoreCheckpoint`. */
export interface CheckpointRestored {
  /** The checkpoint the user asked to restore. */
  id: string;
  /**
   * Every checkpoint undone, in the order undone: a later one built on a summary before that summary's
   * checkpoint, and every step of a later run built on it (see `session/run-steps.ts`).
   */
  undone: string[];
  /** True when this undoes a restore: the checkpoints in `undone` are in force again. */
  undo?: boolean;
}

/**
 * The undo of an applied restore: the active context it replaced, the restore, and the length of the
 * active context right after it (messages appended since follow the context that comes back).
 */
export interface RestoreUndo {
  context: ContextItem[];
  event: CheckpointRestored;
  length: number;
}

/** A piece of streamed assistant text. */
export interface StreamText {
  /** Entry id the finished assistant message will get. */
  entryId: string;
  delta: string;
}

/** The model asked for a tool call (emitted before it runs). */
export interface ToolCallEvent {
  /** Tool call id (`tool_calls[i].id`). */
  callId: string;
  name: string;
  /** Raw JSON arguments as the model wrote them. */
  arguments: string;
  /** Entry id of the assistant message carrying the call. */
  entryId: string;
}

/** A tool call finished (or was cancelled); its result is now in the transcript. */
export interface ToolResultEvent {
  callId: string;
  name: string;
  ok: boolean;
  cancelled: boolean;
  /** Entry id of the `tool` message. */
  entryId: string;
  /** Result text as sent to the model (capped). */
  content: string;
  /** Length of `content`, in characters. */
  size: number;
  durationMs: number;
}

/** Payload of `ContextServiceApi.onDidAppendEntry`: a raw message was added to the transcript. */
export interface EntryAppended {
  entry: Entry;
}

/** One summary of a preview, as Apply writes it (see {@link CompactionPreview.summaries}). */
export interface PreviewSummary {
  /** The checkpoint that writes it. */
  checkpointId: string;
  /** The proposed summary text (the user may edit it before applying). */
  summary: string;
  /** Raw messages it stands for. */
  messages: number;
  summarizerModel?: string;
  /** What it covers and which part had no model, in words (see `describeCoverage`). */
  coverage?: string;
}

/**
 * A proposed compaction awaiting the user's decision (manual compaction with `preview`): the whole
 * plan Apply writes. Apply writes exactly these checkpoints (with the user's edits of the summary
 * texts) or nothing: when the conversation changed since, nothing is written and the outcome says so.
 */
export interface CompactionPreview {
  /** Every summary Apply writes, in the order they stand in the context (oldest span first). */
  summaries: PreviewSummary[];
  /** The other rewrites of the plan, in order, in words (tool results collapsed, files re-attached). */
  steps: string[];
  /** Active items the plan replaces, oldest first. */
  replaced: ContextItem[];
  /** Raw entry ids covered by the plan. */
  replacedIds: string[];
  tokensBefore: number;
  /** Tokens after applying the plan as proposed (the meter's count of the context Apply would leave). */
  tokensAfter: number;
  summarizerModel: string;
  focus?: string;
}

/** How a task ended. */
export type TaskStatus = 'done' | 'cancelled' | 'step-limit' | 'error';

/** Outcome of `ContextServiceApi.runTask`. */
export interface TaskOutcome {
  status: TaskStatus;
  /** Text of the final assistant message (empty when none). */
  finalText: string;
  /** Model calls made for this task. */
  modelCalls: number;
  /** Tool calls run (including refused and cancelled ones). */
  toolCalls: number;
  /** Checkpoints added during the task (automatic compactions). */
  compactions: number;
  /** Error message when `status` is `error`. */
  error?: string;
  /** What kind of failure the error was (from its class and HTTP status), when `status` is `error`. */
  failure?: ModelFailure;
}

/** The transcript as the service holds it. */
export interface TranscriptSnapshot {
  /** Every raw entry ever appended, oldest first (never edited). */
  entries: Entry[];
  /** The active context: what the next request sends, oldest first. */
  context: ContextItem[];
  /** Ids of pinned raw entries. */
  pinned: string[];
}

/** A conversation brought in from elsewhere (an importer's output). */
export interface ImportedTranscript {
  /** Where it came from, shown to the user ("claude-code: session.jsonl"; for a fork, the source session's name). */
  source: string;
  /** Canonical entries, oldest first; ids must be unique. */
  entries: Entry[];
  /** Compactions the recording agent made itself; they become checkpoints with trigger `import`. */
  compactions?: RecordedCompaction[];
  /** Tool schemas the recording holds (OpenAI chat trajectories, OpenHands); counted while it is only inspected. */
  tools?: ToolSchema[];
  /**
   * A fork of another session: its active context, checkpoints and pins, taken over as they stand
   * (raw items refer to `entries` by id) instead of rebuilding the context from `entries`;
   * `compactions` is then ignored.
   */
  state?: { context: ContextItem[]; checkpoints: CheckpointRecord[]; pinned: string[] };
}

/** What `ContextServiceApi.exportTranscript` writes: enough to rebuild the session elsewhere. */
export interface ExportedTranscript {
  format: 'context-keeper/transcript';
  version: 1;
  sessionId: string;
  model: string;
  exportedAt: string;
  entries: Entry[];
  /** The active context as refs (`raw` items by id) and summary items. */
  context: ContextItem[];
  checkpoints: CheckpointRecord[];
  pinned: string[];
  /** The active context rendered as sendable messages. */
  messages: ChatMessage[];
}
