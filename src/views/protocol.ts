/**
 * The one protocol between the sidebar webview and the extension host. Both sides import this file:
 * the webview with `import type` only (so no validator code reaches the webview bundle), the host for
 * the types and the {@link parseWebviewMessage} validator that every incoming message goes through.
 *
 * Flow: the webview posts `ready`; the host answers with a complete {@link ViewState} snapshot and
 * pushes a fresh complete snapshot on every change and whenever the view becomes visible again.
 * There are no partial updates, so a webview that was disposed while hidden loses nothing.
 */
import { z } from 'zod';

/** The service's coarse state, as shown by the sidebar and the status bar. */
export type SessionState = 'idle' | 'streaming' | 'running-tool' | 'compacting' | 'error';

/** Token counts of the active context by category, as the gauge shows them. */
export interface BreakdownView {
  system: number;
  tools: number;
  history: number;
  summaries: number;
  currentTask: number;
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
  breakdown: BreakdownView;
  /** Model whose window is shown. */
  model: string;
  /** Configuration warnings from the meter. */
  warnings: string[];
  /** Whether automatic compaction is on. */
  autoCompact: boolean;
}

/** One row of the checkpoint history. */
export interface CheckpointView {
  id: string;
  /** ISO 8601 time of application. */
  time: string;
  trigger: 'auto' | 'manual' | 'import';
  strategy: string;
  tokensBefore: number;
  tokensAfter: number;
  messagesReplaced: number;
  summarizerModel?: string;
  dropped: number;
  focus?: string;
  /** True when the checkpoint was undone (kept in the list, greyed out). */
  restored?: boolean;
}

/** One line of the running transcript. Tool results are shown collapsed (first line + size). */
export type TranscriptItemView =
  | { kind: 'user'; id: string; text: string }
  | { kind: 'assistant'; id: string; text: string; streaming?: boolean }
  | { kind: 'tool-call'; id: string; name: string; argumentsPreview: string; running?: boolean }
  | { kind: 'tool-result'; id: string; name: string; ok: boolean; preview: string; size: number };

/** An edit or command the agent waits on the user to approve. */
export interface ApprovalView {
  requestId: string;
  kind: 'edit' | 'command';
  title: string;
  detail: string;
}

/** The summary shown for review when `contextKeeper.previewSummary` is on. */
export interface PreviewView {
  summary: string;
  tokensBefore: number;
  tokensAfter: number;
  messagesReplaced: number;
}

/** The complete state of the sidebar. Sent whole on every change. */
export interface ViewState {
  state: SessionState;
  /** One-line description of where the conversation came from ("Agent session", "Imported: x.jsonl"). */
  source: string;
  budget: BudgetView;
  /** Newest first. */
  checkpoints: CheckpointView[];
  transcript: TranscriptItemView[];
  approvals: ApprovalView[];
  preview?: PreviewView;
  hasApiKey: boolean;
  /** Last error, shown once as a banner until the next change of state. */
  error?: string;
}

/** Host → webview. */
export type HostMessage = { type: 'snapshot'; state: ViewState };

const id = z.string().min(1).max(200);

/** Webview → host, validated on arrival. Anything else is dropped and logged. */
export const webviewMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('runTask'), text: z.string().min(1).max(100_000) }),
  z.object({ type: z.literal('cancel') }),
  z.object({ type: z.literal('compact'), focus: z.string().max(10_000).optional() }),
  z.object({ type: z.literal('openCheckpoint'), id }),
  z.object({ type: z.literal('diffCheckpoint'), id }),
  z.object({ type: z.literal('restoreCheckpoint'), id }),
  z.object({ type: z.literal('copySummary'), id }),
  z.object({ type: z.literal('approve'), requestId: id, approved: z.boolean() }),
  z.object({ type: z.literal('applyPreview') }),
  z.object({ type: z.literal('discardPreview') }),
  z.object({ type: z.literal('importTranscript') }),
  z.object({ type: z.literal('setApiKey') }),
]);

/** Webview → host. */
export type WebviewMessage = z.infer<typeof webviewMessageSchema>;

/** Validates a message posted by the webview; returns undefined for anything malformed. */
export function parseWebviewMessage(raw: unknown): WebviewMessage | undefined {
  const result = webviewMessageSchema.safeParse(raw);
  return result.success ? result.data : undefined;
}
