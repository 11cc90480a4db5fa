/**
 * The sidebar's host-side model: keeps the transcript lines, the compaction dividers and the rest of
 * the view state of one session, updated event by event, and produces either a complete
 * {@link ViewState} (`snapshot`) or the {@link ViewDelta} of what changed since the last message
 * (`takeDelta`). Pure: no `vscode` import, so the benchmark runs exactly this code.
 *
 * Cost rule: a streamed text delta, a tool start/finish or a new entry costs O(1) here and in the
 * message; only checkpoint changes walk the transcript (they are rare and the result is cached).
 */
import type { Entry } from '../../compaction/types';
import type { ContextServiceApi } from '../../service/api';
import type {
  ApprovalView,
  BudgetView,
  CheckpointView,
  CompactedAs,
  CompactionView,
  ErrorView,
  HostMessage,
  PreviewView,
  CompactionDetailView,
  ActivityState,
  SessionView,
  TranscriptItemView,
  ViewDelta,
  ViewState,
} from '../../webview/shared/protocol';
import { FULL_TEXT_CAP_CHARS } from '../../webview/shared/protocol';
import { latestRunPeak, placeCompactions } from './compaction-dividers';
import { fullTextOf, itemsForEntry, toolCallLineId, type ToolNames } from './transcript-items';
import { compactionDetailOf, toApprovalViews, toBudgetView, toCheckpointView, toPreviewView } from './view-mappers';
import { countAsImported } from '../import-count';
import { shownPreview } from '../preview-edits';
import type { CheckpointRecord } from '../../service/records';

/** Lines shown at first; `loadEarlier` adds this many more each time. */
export const WINDOW_STEP = 200;

/** What the controller knows beside the service: where the session came from, key, errors, sessions. */
export interface Chrome {
  source: string;
  hasApiKey: boolean;
  error?: ErrorView;
  sessions: SessionView[];
  sessionId?: string;
  readOnly: boolean;
}

type Flag = 'state' | 'budget' | 'checkpoints' | 'approvals' | 'preview' | 'chrome' | 'window';

/** The view state of one session, kept up to date incrementally. */
export class SidebarModel {
  private items: TranscriptItemView[] = [];
  private readonly itemIndex = new Map<string, number>();
  private readonly entries = new Map<string, Entry>();
  private readonly entryOrder: string[] = [];
  /** Entries other than system messages (see {@link hasEntries}). */
  private conversationEntries = 0;
  private readonly lastItemOfEntry = new Map<string, string>();
  private readonly toolNames: ToolNames = new Map();
  /** For entries that give lines: how many such entries come before (the "earlier messages" count). */
  private readonly messageOrdinal = new Map<string, number>();
  private readonly running = new Set<string>();
  private readonly outcomes = new Map<string, boolean>();
  private compactions: CompactionView[] = [];
  private checkpoints: CheckpointRecord[] = [];
  private compactedBy = new Map<string, string>();
  private compactedAs = new Map<string, CompactedAs>();
  private pinned = new Set<string>();
  private limit = WINDOW_STEP;
  private seq = 0;
  private readonly dirtyItems = new Set<string>();
  private readonly pendingText = new Map<string, string>();
  private readonly flags = new Set<Flag>();

  constructor(
    private service: ContextServiceApi | undefined,
    private chrome: Chrome,
    private readonly settings: () => { autoCompact: boolean; emptyBudget: BudgetView },
  ) {
    this.reset(service);
  }

  /**
   * True when the shown session holds a message of the conversation (a task ran, or a recording was
   * imported); the system prompt and instructions every new session starts with do not count.
   */
  get hasEntries(): boolean {
    return this.conversationEntries > 0;
  }

  /** Rebuilds everything from `service` (a new, switched or reopened session). O(entries). */
  reset(service: ContextServiceApi | undefined): void {
    this.service = service;
    this.items = [];
    this.itemIndex.clear();
    this.entries.clear();
    this.entryOrder.length = 0;
    this.conversationEntries = 0;
    this.lastItemOfEntry.clear();
    this.messageOrdinal.clear();
    this.toolNames.clear();
    this.running.clear();
    this.outcomes.clear();
    this.dirtyItems.clear();
    this.pendingText.clear();
    this.limit = WINDOW_STEP;
    if (service) {
      const transcript = service.getTranscript();
      this.pinned = new Set(transcript.pinned);
      for (const entry of transcript.entries) this.addEntry(entry, false);
      this.checkpoints = service.getCheckpoints();
    } else {
      this.pinned = new Set();
      this.checkpoints = [];
    }
    this.recomputeCompactions(false);
  }

  // ---- events ------------------------------------------------------------------------------------

  /** Streamed reply text for the assistant entry `entryId` (not in the transcript yet). */
  streamText(entryId: string, delta: string): void {
    const index = this.itemIndex.get(entryId);
    const item = index === undefined ? undefined : this.items[index];
    if (item?.kind === 'assistant' && item.streaming) {
      item.text += delta;
      if (this.dirtyItems.has(entryId)) return;
      this.pendingText.set(entryId, (this.pendingText.get(entryId) ?? '') + delta);
      return;
    }
    this.push({
      kind: 'assistant',
      id: entryId,
      entryId,
      text: delta,
      streaming: true,
      time: new Date().toISOString(),
    });
  }

  /** A raw entry was appended (it replaces the streaming line of the same id). */
  appendEntry(entry: Entry): void {
    const index = this.itemIndex.get(entry.id);
    if (index !== undefined && this.items[index]?.kind === 'assistant') {
      // The streamed line becomes the final one; it is always the newest line.
      this.items.splice(index, 1);
      this.itemIndex.delete(entry.id);
      this.pendingText.delete(entry.id);
      for (let i = index; i < this.items.length; i++) this.itemIndex.set(this.items[i].id, i);
    }
    this.addEntry(entry, true);
  }

  /** Tool call `callId` of assistant entry `entryId` started. */
  startTool(callId: string, entryId: string): void {
    const lineId = toolCallLineId(entryId, callId);
    this.running.add(lineId);
    this.patchItem(lineId, (item) => (item.kind === 'tool-call' ? { ...item, running: true } : item));
  }

  /**
   * A tool call finished; `resultEntryId` is its result's entry. The call is the running one with
   * that id (one step runs at a time; ids are unique inside a step).
   */
  finishTool(callId: string, ok: boolean, resultEntryId?: string): void {
    const lineId = [...this.running].find((id) => id.endsWith(`#${callId}`)) ?? this.toolNames.get(callId)?.lineId;
    if (lineId !== undefined) {
      this.running.delete(lineId);
      this.outcomes.set(lineId, ok);
      this.patchItem(lineId, (item) => (item.kind === 'tool-call' ? { ...item, running: undefined } : item));
    }
    if (resultEntryId) this.patchItem(resultEntryId, (item) => (item.kind === 'tool-result' ? { ...item, ok } : item));
  }

  budgetChanged(): void {
    this.flags.add('budget');
  }

  stateChanged(): void {
    this.flags.add('state');
  }

  approvalsChanged(): void {
    this.flags.add('approvals');
  }

  previewChanged(): void {
    this.flags.add('preview');
  }

  /** Checkpoints were added or restored: dividers and dimmed lines are recomputed. O(entries). */
  checkpointsChanged(): void {
    this.checkpoints = this.service?.getCheckpoints() ?? [];
    this.recomputeCompactions(true);
    this.flags.add('checkpoints').add('budget');
  }

  /** Pins changed (after `pin`). */
  pinsChanged(): void {
    const next = new Set(this.service?.getTranscript().pinned ?? []);
    for (const entryId of new Set([...next, ...this.pinned])) {
      if (next.has(entryId) === this.pinned.has(entryId)) continue;
      for (const item of this.itemsOfEntry(entryId))
        this.patchItem(item.id, (line) => ({ ...line, pinned: next.has(entryId) || undefined }));
    }
    this.pinned = next;
    // A pin rewrites the context: a restore can no longer be undone (the history rows say so).
    this.flags.add('budget').add('checkpoints');
  }

  /** Replaces the chrome; flags it only when something differs. */
  setChrome(chrome: Chrome): void {
    if (JSON.stringify(chrome) === JSON.stringify(this.chrome)) return;
    this.chrome = chrome;
    this.flags.add('chrome').add('budget'); // the gauge names an imported recording's model
  }

  /** Shows `WINDOW_STEP` more lines before the window (answered with a snapshot). */
  loadEarlier(): void {
    this.limit += WINDOW_STEP;
  }

  // ---- messages ----------------------------------------------------------------------------------

  /** The complete state, and forgets pending changes (the snapshot holds them). */
  snapshot(): HostMessage {
    this.dirtyItems.clear();
    this.pendingText.clear();
    this.flags.clear();
    return { type: 'snapshot', seq: ++this.seq, state: this.peek() };
  }

  /** The complete state without sending it (pending deltas stay pending). */
  peek(): ViewState {
    const start = Math.max(0, this.items.length - this.limit);
    return {
      state: this.sessionState(),
      ...this.chromeFields(),
      budget: this.budgetView(),
      checkpoints: this.checkpointViews(),
      compactions: this.compactions,
      transcript: this.items.slice(start),
      earlier: this.messagesBefore(start),
      limit: this.limit,
      approvals: this.approvalViews(),
      preview: this.previewView(),
    };
  }

  /** What changed since the last message, or undefined when nothing did. */
  takeDelta(): HostMessage | undefined {
    if (this.flags.size === 0 && this.dirtyItems.size === 0 && this.pendingText.size === 0) return undefined;
    const delta: ViewDelta = {};
    const flags = this.flags;
    if (flags.has('state')) delta.state = this.sessionState();
    if (flags.has('budget')) delta.budget = this.budgetView();
    if (flags.has('checkpoints')) {
      delta.checkpoints = this.checkpointViews();
      delta.compactions = this.compactions;
    }
    if (flags.has('approvals')) delta.approvals = this.approvalViews();
    if (flags.has('preview')) delta.preview = this.previewView() ?? null;
    if (flags.has('chrome')) {
      Object.assign(delta, this.chromeFields(), { error: this.chrome.error ?? null });
      // A failed task's error turns the state to `error` (and its end back): the state goes with it.
      delta.state = this.sessionState();
    }
    if (this.dirtyItems.size > 0) {
      const start = Math.max(0, this.items.length - this.limit);
      const items: TranscriptItemView[] = [];
      // In transcript order, so new lines are appended in the right order.
      const indices = [...this.dirtyItems]
        .map((id) => this.itemIndex.get(id))
        .filter((i): i is number => i !== undefined && i >= start);
      indices.sort((a, b) => a - b);
      for (const i of indices) items.push(this.items[i]);
      if (items.length > 0) delta.items = items;
      delta.earlier = this.messagesBefore(start);
    }
    if (this.pendingText.size > 0) delta.text = [...this.pendingText].map(([id, append]) => ({ id, append }));
    this.dirtyItems.clear();
    this.pendingText.clear();
    this.flags.clear();
    return { type: 'delta', seq: ++this.seq, delta };
  }

  /** The full text of a line (capped at FULL_TEXT_CAP_CHARS), or undefined for unknown lines. */
  fullText(itemId: string): { text: string; fullLength: number } | undefined {
    const index = this.itemIndex.get(itemId);
    const item = index === undefined ? undefined : this.items[index];
    const entry = item && this.entries.get(item.entryId);
    const text = entry ? fullTextOf(entry, itemId) : item?.kind === 'assistant' ? item.text : undefined;
    return text === undefined ? undefined : { text: text.slice(0, FULL_TEXT_CAP_CHARS), fullLength: text.length };
  }

  /** The summary text and replaced messages of a compaction divider (first `max` messages). */
  compactionDetail(id: string, max = 300): CompactionDetailView | undefined {
    const group = this.compactions.find((c) => c.id === id);
    return group && compactionDetailOf(group, this.checkpoints, this.entries, this.toolNames, max);
  }

  // ---- internals ---------------------------------------------------------------------------------

  private addEntry(entry: Entry, live: boolean): void {
    if (this.entries.has(entry.id)) return;
    this.entries.set(entry.id, entry);
    this.entryOrder.push(entry.id);
    if (entry.message.role !== 'system') this.conversationEntries++;
    const lines = itemsForEntry(entry, this.toolNames, { running: this.running, outcomes: this.outcomes });
    if (lines.length > 0) this.messageOrdinal.set(entry.id, this.messageOrdinal.size);
    for (const item of lines) {
      if (this.pinned.has(entry.id)) item.pinned = true;
      const by = this.compactedBy.get(entry.id);
      if (by) {
        item.compactedBy = by;
        item.compactedAs = this.compactedAs.get(entry.id);
      }
      if (live) this.push(item);
      else {
        this.itemIndex.set(item.id, this.items.length);
        this.items.push(item);
      }
      this.lastItemOfEntry.set(entry.id, item.id);
    }
  }

  /** Messages whose lines all come before line `start`. */
  private messagesBefore(start: number): number {
    const first = this.items[start];
    if (start === 0 || !first) return 0;
    return this.messageOrdinal.get(first.entryId) ?? this.messageOrdinal.size;
  }

  private push(item: TranscriptItemView): void {
    this.itemIndex.set(item.id, this.items.length);
    this.items.push(item);
    this.dirtyItems.add(item.id);
  }

  private patchItem(itemId: string, change: (item: TranscriptItemView) => TranscriptItemView): void {
    const index = this.itemIndex.get(itemId);
    if (index === undefined) return;
    const before = this.items[index];
    const after = change(before);
    if (after === before) return;
    this.items[index] = after;
    this.dirtyItems.add(itemId);
  }

  private itemsOfEntry(entryId: string): TranscriptItemView[] {
    const last = this.lastItemOfEntry.get(entryId);
    const end = last === undefined ? undefined : this.itemIndex.get(last);
    if (end === undefined) return [];
    const out: TranscriptItemView[] = [];
    for (let i = end; i >= 0 && this.items[i].entryId === entryId; i--) out.push(this.items[i]);
    return out;
  }

  private recomputeCompactions(markDirty: boolean): void {
    const budget = this.service?.getBudget();
    const placed = placeCompactions(
      this.checkpoints,
      this.entryOrder,
      this.entries,
      this.lastItemOfEntry,
      budget,
      this.settings().autoCompact,
    );
    this.compactions = placed.compactions;
    const previous = this.compactedBy;
    const previousAs = this.compactedAs;
    this.compactedBy = placed.compactedBy;
    this.compactedAs = placed.compactedAs;
    for (const entryId of new Set([...previous.keys(), ...placed.compactedBy.keys()])) {
      const by = placed.compactedBy.get(entryId);
      const as = placed.compactedAs.get(entryId);
      if (previous.get(entryId) === by && previousAs.get(entryId) === as) continue;
      for (const item of this.itemsOfEntry(entryId)) {
        if (markDirty) this.patchItem(item.id, (line) => ({ ...line, compactedBy: by, compactedAs: as }));
        else {
          item.compactedBy = by;
          item.compactedAs = as;
        }
      }
    }
  }

  /** The service's state; `error` while idle after a failed task whose Retry is offered. */
  private sessionState(): ActivityState {
    const state = this.service?.getState().state ?? 'idle';
    return state === 'idle' && this.chrome.error?.retryTask !== undefined ? 'error' : state;
  }

  private budgetView(): BudgetView {
    const settings = this.settings();
    if (!this.service) return { ...settings.emptyBudget, compactBlocked: 'the conversation is empty' };
    const view = toBudgetView(this.service.getBudget(), settings.autoCompact);
    const blocked = this.service.compactBlocker();
    if (blocked) view.compactBlocked = blocked;
    // An imported recording: the header names the model it was recorded with, also when its window is
    // unknown and the configured model's stands in (the window's note says so).
    const session = this.chrome.sessions.find((s) => s.id === this.chrome.sessionId);
    const recorded = session?.kind === 'imported' ? session.recordedModel?.trim() : undefined;
    if (recorded) view.model = recorded;
    const peak = latestRunPeak(this.checkpoints);
    if (peak && peak.tokens > view.used) view.peak = peak;
    const imported = view.recordedPromptTokens !== undefined ? countAsImported(this.checkpoints) : undefined;
    if (imported !== undefined) view.importedTokens = imported;
    return view;
  }

  /** The history's checkpoints, newest first, each with the run that wrote it (see checkpoint-runs.ts). */
  checkpointViews(): CheckpointView[] {
    const undoable = this.service?.getUndoableRestore()?.id;
    const runOf = new Map<string, string>();
    for (const group of this.compactions)
      for (const id of group.checkpointIds) if (id !== group.id) runOf.set(id, group.id);
    return this.checkpoints
      .map((c) => {
        const view = toCheckpointView(c, undoable);
        const run = runOf.get(c.id);
        if (run) view.run = run;
        return view;
      })
      .reverse();
  }

  private approvalViews(): ApprovalView[] {
    return toApprovalViews(this.service?.getPendingApprovals() ?? []);
  }

  private previewView(): PreviewView | undefined {
    // The edits typed in the card, so a page that reloads shows what Apply writes.
    return toPreviewView(shownPreview(this.service));
  }

  private chromeFields(): Omit<Chrome, 'error'> & { error?: ErrorView } {
    const { source, hasApiKey, error, sessions, sessionId, readOnly } = this.chrome;
    return { source, hasApiKey, error, sessions, sessionId, readOnly };
  }
}
