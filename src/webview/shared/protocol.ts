/**
 * The one protocol between the sidebar webview and the extension host. Both sides import this file:
 * the webview with `import type` only (so no validator code reaches the webview bundle), the host for
 * the types and the {@link parseWebviewMessage} validator that every incoming message goes through.
 *
 * Flow: the webview posts `ready`; the host answers with a complete {@link ViewState} `snapshot`.
 * While the session changes (a task streams, a tool runs, the gauge moves) the host posts small
 * `delta` messages holding only what changed. Every host message carries a sequence number `seq`;
 * a webview that sees a gap asks for a snapshot (`resync`), and the host sends a complete snapshot
 * again whenever the view becomes visible. Texts in snapshots and deltas are capped (see
 * `TEXT_CAP_CHARS` in transcript-items.ts); the full text is fetched on demand (`expandItem`).
 */
import { z } from 'zod';
import { formatInteger } from '../../format/display';
import { MAX_FOCUS_CHARS, MAX_SUMMARY_EDIT_CHARS, MAX_TASK_CHARS } from './input-limits';

/** The service's coarse state, as shown by the sidebar and the status bar. */
export type ActivityState = 'idle' | 'streaming' | 'running-tool' | 'compacting' | 'error';

/** Token counts of the active context by category, as the gauge shows them. */
export interface BreakdownView {
  system: number;
  /** The workspace's project instructions (AGENTS.md and the like), never summarised. */
  instructions: number;
  tools: number;
  history: number;
  summaries: number;
  currentTask: number;
  /** Harness text sent with the current task (environment details, reminders); absent for a watched agent. */
  harness?: number;
  /**
   * A watched agent's prompt tokens that its session file does not account for: the provider's
   * reported figure minus what the file's messages count to (the agent's system prompt, tool schemas
   * and anything else it sent but did not record). Absent for ContextKeeper's own sessions.
   */
  unrecorded?: number;
}

/** The budget gauge: everything in tokens. */
export interface BudgetView {
  /** Tokens the next request would carry. */
  used: number;
  /** The model's whole context window. */
  window: number;
  /** Output tokens reserved for the reply (drawn at the right end of the bar). */
  reserved: number;
  /** Tokens a prompt may use: `window - reserved`. */
  inputBudget: number;
  /** Token level where automatic compaction fires, and its fraction of the base. */
  compactAt: number;
  compactAtFraction: number;
  /** Token level a compaction aims for, and its fraction of the base. */
  compactTo: number;
  compactToFraction: number;
  /** True when `used` is anchored on the provider's reported usage, false when it is an estimate. */
  exact: boolean;
  /** True while the tokenizer loads: `used` is a character-based estimate ("≈ 12k (estimate)"). */
  counting?: boolean;
  /** Which figure `used` rests on (reported, reported plus cached, or counted and why), one sentence. */
  usedSource?: string;
  /** True when the provider's cached tokens were added back to its reported prompt tokens. */
  cachedAdded?: boolean;
  breakdown: BreakdownView;
  /** Model whose window is shown. */
  model: string;
  /** Configuration warnings from the meter. */
  warnings: string[];
  /** Whether automatic compaction is on. */
  autoCompact: boolean;
  /** Where the window came from: "32,768 tokens, reported by the server" / "… from the model table" / "… from settings". */
  windowSource?: string;
  /**
   * An imported recording's newest request as the provider measured it (prompt tokens, with the
   * system prompt and tool schemas the recording does not hold); `used` counts the recording's messages
   * and the tool schemas it recorded, as the command line's `meter` does (`RECORDING_COUNT_BASIS`).
   */
  recordedPromptTokens?: number;
  /**
   * With `recordedPromptTokens`: the count of the recording as imported (prompt tokens), present once
   * ContextKeeper's compaction has changed the context, so the recorded figure is compared with it.
   */
  importedTokens?: number;
  /**
   * The level the context reached just before the latest compaction (its `tokensBefore`), with the
   * ISO time of that compaction; absent when nothing was compacted or the checkpoint was restored.
   */
  peak?: { tokens: number; time: string };
  /** Why Compact can do nothing now ("the conversation is empty", "nothing eligible: …"); absent when it can. */
  compactBlocked?: string;
  /** While automatic compaction is paused: why ("paused after 3 failed compactions in a row"). */
  autoPaused?: string;
}

/** One row of the checkpoint history. */
export interface CheckpointView {
  id: string;
  /** ISO 8601 time of application (shown in local time). */
  time: string;
  trigger: 'auto' | 'manual' | 'import' | 'continue';
  strategy: string;
  tokensBefore: number;
  tokensAfter: number;
  messagesReplaced: number;
  summarizerModel?: string;
  /** What the summary covers and which part had no model, in words (summaries only; see `describeCoverage`). */
  coverage?: string;
  /** Raw messages summarised without a model because of the call limit or a failed model call. */
  withoutModel: number;
  focus?: string;
  /** True when the user edited its summary in the preview before applying it. */
  editedByHand?: boolean;
  /** True when the checkpoint was undone (kept in the list, greyed out). */
  restored?: boolean;
  /** True on the checkpoint whose restore can be undone now (the latest restore, nothing rewritten since). */
  undoRestore?: boolean;
  /**
   * Id of the first checkpoint of the compaction run that wrote this one (the run's divider id; see
   * compaction-dividers.ts); the history shows one entry per run. Absent: a run of its own.
   */
  run?: string;
}

/**
 * A divider at the place in the transcript where one compaction happened. Checkpoints written by one
 * compaction run (for example tool results collapsed, then a summary) share one divider.
 */
export interface CompactionView {
  /** Id of the first checkpoint of the group (the divider's key). */
  id: string;
  checkpointIds: string[];
  /** Transcript item after which the divider stands; undefined: before the first item. */
  afterId?: string;
  time: string;
  trigger: 'auto' | 'manual' | 'import' | 'continue';
  /**
   * The automatic trigger level when it fired, in tokens, and as a fraction of the budget; absent when
   * automatic compaction is off or something else caused it (`cause`).
   */
  thresholdTokens?: number;
  thresholdFraction?: number;
  /**
   * With `thresholdTokens`: the prompt budget the fraction applies to and the window the gauge is
   * drawn to, in tokens, so the headline says where the trigger stands on both.
   */
  thresholdBase?: { inputBudget: number; window: number };
  /** Why it ran when neither the trigger nor the user asked (the provider refused an oversized request). */
  cause?: string;
  tokensBefore: number;
  tokensAfter: number;
  /** Tool results shortened to a one-line note. */
  collapsed: number;
  /** Summary messages written. */
  summaries: number;
  /** Messages clipped to a head and tail. */
  clipped: number;
  /** Raw messages the group stands for. */
  messagesReplaced: number;
  /**
   * Raw messages summarised without a model because of the call limit (`contextKeeper.maxSummaryCalls`)
   * or because the model call failed (the extractive fallback).
   */
  withoutModel: number;
  /** What the group's summaries cover, in words, when part of it had no model (see `describeCoverage`). */
  coverage?: string;
  summarizerModel?: string;
  focus?: string;
  /** True when the user edited a summary of the group in the preview before applying it. */
  editedByHand?: boolean;
  /** True when every checkpoint of the group was restored. */
  restored?: boolean;
  /** Files re-attached after the summary (current contents from the workspace), with their tokens. */
  attachedFiles?: Array<{ path: string; tokens: number }>;
  /**
   * What the group's summaries kept of the span they replaced (its retention scorecard): `line` in
   * one line for the divider, `details` one line each (counts, then what was left out by name).
   */
  retention?: { line: string; details: string[] };
}

/** How a compaction holds a replaced message: inside a summary, as a one-line record, or clipped. */
export type CompactedAs = 'summarized' | 'collapsed' | 'clipped';

/** Fields every transcript line has. */
interface ItemCommon {
  /** Key of the line: the raw entry id, or the tool call id for a tool call. */
  id: string;
  /** The raw entry the line shows (pins and compaction apply to entries). */
  entryId: string;
  /** Id of the compaction (see {@link CompactionView.id}) that replaced this entry in the context. */
  compactedBy?: string;
  /** Set with `compactedBy`: what stands for the entry in the context now (the line shows it instead of a pin). */
  compactedAs?: CompactedAs;
  /** Pinned entries are never summarized, collapsed or clipped. */
  pinned?: boolean;
  /** ISO 8601 time the message was produced, when known. */
  time?: string;
  /** Set when `text`/`preview` was capped: the full length, in characters. */
  fullLength?: number;
}

/** One line of the running transcript. Long texts are capped; `expandItem` fetches the rest. */
export type TranscriptItemView =
  | (ItemCommon & {
      kind: 'user';
      text: string;
      /** Set when a harness wrote the message, not the user (e.g. "Cline (environment)"): shown instead of "You". */
      speaker?: string;
    })
  /** `interrupted`: the reply was cut short by a cancel (its text ends with the cancel marker, `agent/cancelled-reply.ts`). */
  | (ItemCommon & { kind: 'assistant'; text: string; streaming?: boolean; interrupted?: boolean })
  | (ItemCommon & { kind: 'tool-call'; name: string; argumentsPreview: string; running?: boolean })
  | (ItemCommon & { kind: 'tool-result'; name: string; ok: boolean; preview: string; size: number });

/** An edit or command the agent waits on the user to approve. */
export interface ApprovalView {
  requestId: string;
  kind: 'edit' | 'command';
  title: string;
  detail: string;
}

/** One summary of a preview, as Apply writes it. */
export interface PreviewSummaryView {
  /** The line Apply writes before the summary (not editable): what it is and how to read it. */
  header: string;
  summary: string;
  /** What it stands for and who wrote it, in words ("messages 1-40, by gpt-4o"). */
  label: string;
}

/** The plan shown for review (`contextKeeper.previewSummary`): everything Apply writes, in order. */
export interface PreviewView {
  summaries: PreviewSummaryView[];
  /** The plan's other rewrites, in words (tool results collapsed, files re-attached). */
  steps: string[];
  tokensBefore: number;
  /** Tokens after Apply, as proposed. */
  tokensAfter: number;
  messagesReplaced: number;
}

/** One conversation of the workspace, as the session list shows it. */
export interface SessionView {
  id: string;
  label: string;
  /** `working`: the agent's own session; `imported`: a read-only recording opened for inspection. */
  kind: 'working' | 'imported';
  /** ISO time of the last change. */
  updated?: string;
  /** True while a working session has no name of its own: its first task names it ("New session" until then). */
  untitled?: boolean;
  /** Model and window the recording was made with (imports only). */
  recordedModel?: string;
  /** The provider's reported prompt tokens of the recording's newest request (imports that record usage). */
  recordedPromptTokens?: number;
  /** The context window the recording's file states, in tokens (imports whose format records it). */
  recordedWindow?: number;
}

/** An error shown as a banner with the actions that can fix it. */
export interface ErrorView {
  message: string;
  /** The endpoint the failing request went to, when the error came from a model call. */
  endpoint?: string;
  actions: Array<'setApiKey' | 'openSettings' | 'showLog' | 'testConnection'>;
  /** The task that failed, when a task did: Retry sends it again (the sidebar shows the `error` state then). */
  retryTask?: string;
}

/** The complete state of the sidebar, sent on ready, on becoming visible and after a gap. */
export interface ViewState {
  state: ActivityState;
  /** One-line description of where the conversation came from ("Agent session", "Imported: x.jsonl"). */
  source: string;
  budget: BudgetView;
  /** Newest first. */
  checkpoints: CheckpointView[];
  /** Compaction dividers, in transcript order. */
  compactions: CompactionView[];
  /** The newest transcript lines (a window of the whole transcript), oldest first. */
  transcript: TranscriptItemView[];
  /**
   * Messages before the window (fetched with `loadEarlier`): transcript entries with at least one line
   * whose lines all come before the first line shown. Not lines: one message can give several.
   */
  earlier: number;
  /** Most lines the webview keeps: older ones fall out of the window as new ones arrive. */
  limit: number;
  approvals: ApprovalView[];
  preview?: PreviewView;
  hasApiKey: boolean;
  /** Last error, shown as a banner until the next change of state. */
  error?: ErrorView;
  sessions: SessionView[];
  /** Id of the session shown. */
  sessionId?: string;
  /** True when the shown session is an imported recording (read-only: no tasks run in it). */
  readOnly: boolean;
}

/**
 * What changed since the previous host message. Absent fields did not change; `null` clears an
 * optional field. `items` are replaced by id or appended when new; `text` appends streamed text to
 * an assistant line.
 */
export interface ViewDelta {
  state?: ActivityState;
  source?: string;
  budget?: BudgetView;
  checkpoints?: CheckpointView[];
  compactions?: CompactionView[];
  items?: TranscriptItemView[];
  text?: Array<{ id: string; append: string }>;
  earlier?: number;
  approvals?: ApprovalView[];
  preview?: PreviewView | null;
  hasApiKey?: boolean;
  error?: ErrorView | null;
  sessions?: SessionView[];
  sessionId?: string;
  readOnly?: boolean;
}

/** Host → webview. `seq` rises by one per snapshot or delta. */
export type HostMessage =
  | { type: 'snapshot'; seq: number; state: ViewState }
  | { type: 'delta'; seq: number; delta: ViewDelta }
  /** Answer to `expandItem`: the item's full text (capped at {@link FULL_TEXT_CAP_CHARS}). */
  | { type: 'itemText'; id: string; text: string; fullLength: number }
  /** Answer to `compactionDetail`. */
  | ({ type: 'compactionDetail'; id: string } & CompactionDetailView)
  /** A task from the box that was not taken (no endpoint set up): back into the box, which Run cleared. */
  | { type: 'restoreTask'; text: string }
  /** The pending preview's tokens after Apply, counted on the summaries as edited in the card. */
  | { type: 'previewTokens'; tokensAfter: number };

/** The body of a compaction divider, fetched when it is opened. */
export interface CompactionDetailView {
  /** The run's summaries, oldest first, each cut with a note naming the button that opens it whole. */
  summary: string;
  /** The first replaced messages, and how many more there are. */
  replaced: ReplacedItemView[];
  more: number;
  /**
   * One Open button per checkpoint of the run, oldest first: `label` is what the button says and what
   * a cut summary's note names ("Open" when the run has one checkpoint, else "Open <strategy>").
   */
  opens: Array<{ id: string; label: string }>;
}

/** One message a compaction replaced, as listed under its divider. */
export interface ReplacedItemView {
  role: string;
  /** Tool name for tool calls and results. */
  tool?: string;
  /** A path named in the tool call's arguments, when there is one. */
  path?: string;
  preview: string;
}

/** Longest text `itemText` returns, in characters. */
export const FULL_TEXT_CAP_CHARS = 200_000;

const id = z.string().min(1).max(200);

/** Webview → host, validated on arrival. Anything else is dropped and logged. */
export const webviewMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('ready'),
    // The webview's account of itself, logged by the host: which time it says ready (it repeats until a
    // snapshot is applied), host messages received and snapshots applied so far, whether its page is
    // hidden, and its last uncaught error.
    attempt: z.number().int().min(1).optional(),
    received: z.number().int().min(0).optional(),
    applied: z.number().int().min(0).optional(),
    hidden: z.boolean().optional(),
    error: z.string().max(500).optional(),
  }),
  z.object({ type: z.literal('resync') }),
  /** A resource of the page (a stylesheet, a font) failed to load: the host loads the page again. */
  z.object({ type: z.literal('resourcesLost'), what: z.string().max(300) }),
  z.object({ type: z.literal('runTask'), text: z.string().min(1).max(MAX_TASK_CHARS) }),
  z.object({ type: z.literal('cancel') }),
  z.object({ type: z.literal('compact'), focus: z.string().max(MAX_FOCUS_CHARS).optional() }),
  z.object({ type: z.literal('openCheckpoint'), id }),
  z.object({ type: z.literal('diffCheckpoint'), id }),
  z.object({ type: z.literal('restoreCheckpoint'), id }),
  z.object({ type: z.literal('undoRestore') }),
  z.object({ type: z.literal('copySummary'), id }),
  z.object({ type: z.literal('approve'), requestId: id, approved: z.boolean() }),
  z.object({
    type: z.literal('applyPreview'),
    /** The texts of the preview's summaries as edited, one per summary, in order; absent: as proposed. */
    summaries: z.array(z.string().max(MAX_SUMMARY_EDIT_CHARS)).min(1).max(64).optional(),
  }),
  z.object({
    type: z.literal('editPreview'),
    /** The texts of the preview's summaries as the user is editing them, one per summary, in order. */
    summaries: z.array(z.string().max(MAX_SUMMARY_EDIT_CHARS)).min(1).max(64),
  }),
  z.object({ type: z.literal('discardPreview') }),
  z.object({ type: z.literal('importTranscript') }),
  z.object({ type: z.literal('setApiKey') }),
  z.object({ type: z.literal('openSettings') }),
  z.object({ type: z.literal('showLog') }),
  z.object({ type: z.literal('retryTask') }),
  z.object({ type: z.literal('testConnection') }),
  z.object({ type: z.literal('loadEarlier') }),
  z.object({ type: z.literal('expandItem'), id }),
  z.object({ type: z.literal('compactionDetail'), id }),
  z.object({ type: z.literal('togglePin'), entryId: id }),
  z.object({ type: z.literal('newSession') }),
  z.object({ type: z.literal('switchSession'), id }),
  z.object({ type: z.literal('renameSession'), id }),
  z.object({ type: z.literal('deleteSession'), id }),
  z.object({ type: z.literal('continueInNewTask') }),
]);

/** Webview → host. */
export type WebviewMessage = z.infer<typeof webviewMessageSchema>;

/** Validates a message posted by the webview; returns undefined for anything malformed. */
export function parseWebviewMessage(raw: unknown): WebviewMessage | undefined {
  const result = webviewMessageSchema.safeParse(raw);
  return result.success ? result.data : undefined;
}

/** User input the host could not take, as {@link refusedInput} describes it. */
export interface RefusedInput {
  /** The message type that carried it. */
  type: 'runTask' | 'compact' | 'applyPreview' | 'editPreview';
  /** The task text, when the refused message was a task (so the box gets it back). */
  task?: string;
  /** Why, in words for a notification ("the task has 5,000,001 characters; at most 4,000,000 are taken"). */
  reason: string;
}

/**
 * For a message {@link parseWebviewMessage} refused: whether it carried something the user typed
 * (a task, a focus, an edited summary) and why it was refused, so the host can say so instead of
 * dropping it silently. Undefined for anything else (a malformed message from no user action).
 */
export function refusedInput(raw: unknown): RefusedInput | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const message = raw as Record<string, unknown>;
  const count = formatInteger;
  switch (message.type) {
    case 'runTask': {
      const text = message.text;
      if (typeof text !== 'string') return undefined;
      if (!text.trim()) return undefined; // an empty task is no input
      return {
        type: 'runTask',
        task: text,
        reason: `the task has ${count(text.length)} characters; at most ${count(MAX_TASK_CHARS)} are taken`,
      };
    }
    case 'compact': {
      const focus = message.focus;
      if (typeof focus !== 'string') return undefined;
      return {
        type: 'compact',
        reason: `the focus has ${count(focus.length)} characters; at most ${count(MAX_FOCUS_CHARS)} are taken`,
      };
    }
    case 'applyPreview':
    case 'editPreview': {
      const summaries = message.summaries;
      if (!Array.isArray(summaries)) return undefined;
      const longest = summaries.reduce<number>((most, s) => Math.max(most, typeof s === 'string' ? s.length : 0), 0);
      return {
        type: message.type,
        reason:
          longest > MAX_SUMMARY_EDIT_CHARS
            ? `an edited summary has ${count(longest)} characters; at most ${count(MAX_SUMMARY_EDIT_CHARS)} are taken`
            : `the edited summaries could not be read (${count(summaries.length)} given, 1 to 64 taken)`,
      };
    }
    default:
      return undefined;
  }
}
