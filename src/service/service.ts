/**
 * The context service: one agent conversation with its token meter, automatic and manual
 * compaction, checkpoints, pins and persistence. Implements {@link ContextServiceApi}; see there for
 * the contract. Plain Node: no `vscode` import.
 *
 * Ownership: the service owns the raw transcript (append-only), the active context and the
 * checkpoint list; the {@link AgentSession} only appends through the service's conversation and
 * calls the service at safe points; {@link Compactions} decides when to compact and hands applied
 * results back to {@link ContextService.commitCompaction}, which persists before it changes memory.
 */
import type { ChatMessage, CompactionResult, ContextItem, Entry, Summarizer, ToolSchema } from '../compaction/types';
import { TokenMeter } from '../compaction/meter';
import { applyRecordedCompactions } from '../compaction/imported';
import { itemsFromEntries, toMessages, undoCheckpoint } from '../compaction/context';
import { ExtractiveSummarizer } from '../compaction/extractive';
import { repairToolPairing } from '../compaction/repair';
import { AgentSession, type AgentState, type Conversation } from '../agent/session';
import { WorkspaceTools } from '../agent/tools';
import { DEFAULT_SYSTEM_PROMPT } from '../agent/prompt';
import type { ApprovalHandler, ApprovalRequest } from '../agent/types';
import { PendingApprovals } from './approvals';
import type {
  BudgetSnapshot,
  CheckpointRecord,
  CheckpointRestored,
  CompactNowOptions,
  CompactOutcome,
  CompactionPreview,
  ContextServiceApi,
  ContextServiceOptions,
  EntryAppended,
  ExportedTranscript,
  ImportedTranscript,
  LogSink,
  ServiceState,
  StateChange,
  StreamText,
  TaskOutcome,
  ToolCallEvent,
  ToolResultEvent,
  TranscriptSnapshot,
} from './api';
import { Emitter } from './events';
import { SessionStore, unaccountedEntries, type SessionState } from './store';
import { Compactions, type CompactionStats } from './compactions';
import { budgetSnapshot } from './budgetView';
import { definedOnly, newSessionId } from './helpers';

export { newSessionId } from './helpers';

/** One model call as measured, for the totals the demo and the CLI print. All in tokens. */
export interface ModelCallRecord {
  /** `usage.prompt_tokens` reported by the provider (0 when not reported). */
  reportedPromptTokens: number;
  /** The meter's count of the request as sent. */
  estimatedPromptTokens: number;
  /** The meter's count of the same request had nothing ever been compacted (the whole raw transcript). */
  withoutCompactionTokens: number;
}

/** Running totals of a service, for the demo and the CLI. */
export interface ServiceStats {
  modelCalls: ModelCallRecord[];
  compaction: CompactionStats;
}

const noopLog: LogSink = () => {};

/** The context service. Build with {@link ContextService.open}. */
export class ContextService implements ContextServiceApi {
  private readonly _onDidChangeBudget = new Emitter<BudgetSnapshot>();
  private readonly _onDidAddCheckpoint = new Emitter<CheckpointRecord>();
  private readonly _onDidRestoreCheckpoint = new Emitter<CheckpointRestored>();
  private readonly _onDidChangeState = new Emitter<StateChange>();
  private readonly _onDidStreamText = new Emitter<StreamText>();
  private readonly _onDidAppendEntry = new Emitter<EntryAppended>();
  private readonly _onDidStartToolCall = new Emitter<ToolCallEvent>();
  private readonly _onDidFinishToolCall = new Emitter<ToolResultEvent>();
  private readonly _onDidChangePreview = new Emitter<CompactionPreview | undefined>();
  readonly onDidChangeBudget = this._onDidChangeBudget.event;
  readonly onDidAddCheckpoint = this._onDidAddCheckpoint.event;
  readonly onDidRestoreCheckpoint = this._onDidRestoreCheckpoint.event;
  readonly onDidChangeState = this._onDidChangeState.event;
  readonly onDidStreamText = this._onDidStreamText.event;
  readonly onDidAppendEntry = this._onDidAppendEntry.event;
  readonly onDidStartToolCall = this._onDidStartToolCall.event;
  readonly onDidFinishToolCall = this._onDidFinishToolCall.event;
  private readonly approvals = new PendingApprovals();
  readonly onDidRequestApproval = this.approvals.onDidRequest;
  readonly onDidChangePreview = this._onDidChangePreview.event;

  readonly meter: TokenMeter;
  private readonly summarizer: Summarizer;
  private readonly tools: WorkspaceTools;
  private readonly agent: AgentSession;
  private readonly compactions: Compactions;
  private readonly log: LogSink;
  private readonly now: () => Date;

  private _sessionId: string;
  private store: SessionStore | undefined;
  private entries: Entry[] = [];
  private entryIds = new Set<string>();
  private items: ContextItem[] = [];
  private checkpoints: CheckpointRecord[] = [];
  private pinned = new Set<string>();
  private source = 'Agent session';
  private createdAt: string;
  /** Bumped on every rewrite of the active context (not on appends); prepared work checks it. */
  private version = 0;
  private entryCounter = 0;
  private lastSent: ContextItem[] = [];
  private readonly callRecords: ModelCallRecord[] = [];

  private state: StateChange = { state: 'idle' };
  private agentState: AgentState = 'idle';
  private compactingDetail: string | undefined;
  private taskController: AbortController | undefined;
  private disposed = false;

  private constructor(private readonly options: ContextServiceOptions, sessionId: string) {
    this._sessionId = sessionId;
    this.log = options.log ?? noopLog;
    this.now = options.now ?? (() => new Date());
    this.createdAt = this.now().toISOString();
    this.meter = new TokenMeter({ model: options.model, counter: options.tokenCounter });
    this.summarizer = options.summarizer ?? new ExtractiveSummarizer((text) => this.meter.countText(text));
    const approve: ApprovalHandler = options.approve ?? ((request, signal) => this.approvals.ask(request, signal));
    this.tools = new WorkspaceTools(options.host, { approve, autoApprove: options.autoApprove, commandTimeoutMs: options.toolTimeoutMs });
    this.agent = new AgentSession({
      client: options.client,
      model: options.model,
      tools: this.tools,
      conversation: this.conversation,
      maxSteps: options.maxSteps ?? 40,
      hooks: {
        beforeModelCall: (_info, signal) => this.compactions.atSafePoint(signal),
        onContextOverflow: ({ overflow }, signal) => this.compactions.afterOverflow(overflow, signal),
        onUsage: (usage) => this.recordUsage(usage.promptTokens),
        onStateChange: (state, detail) => {
          this.agentState = state;
          this.updateState(detail);
        },
        onTextDelta: (entryId, delta) => this._onDidStreamText.fire({ entryId, delta }),
        onToolCall: (call, entryId) => this._onDidStartToolCall.fire({ callId: call.id, name: call.name, arguments: call.arguments, entryId }),
        onToolResult: (call, outcome, entryId, durationMs) =>
          this._onDidFinishToolCall.fire({
            callId: call.id,
            name: call.name,
            ok: outcome.ok,
            cancelled: outcome.cancelled === true,
            entryId,
            content: outcome.content,
            size: outcome.content.length,
            durationMs,
          }),
      },
    });
    this.compactions = new Compactions(
      {
        items: () => this.items,
        tools: () => this.tools.schemas,
        meter: this.meter,
        summarizer: this.summarizer,
        budget: options.budget,
        keepRecentSteps: options.keepRecentSteps ?? 1,
        userBudget: options.userBudget,
        summaryBudget: options.summaryBudget,
        maxSummaryCalls: options.maxSummaryCalls,
        version: () => this.version,
        commit: (result) => this.commitCompaction(result),
        setBusy: (detail) => {
          this.compactingDetail = detail;
          this.updateState(detail);
        },
        log: (level, message) => this.log(level, message),
      },
      { prepareAheadMargin: options.prepareAheadMargin ?? 0.1, timeoutMs: options.compactionTimeoutMs ?? 120_000, maxImages: options.maxImagesPerRequest },
    );
  }

  /**
   * Builds a service. With `storageDir`, opens (or creates) the session folder `sessionId` and rebuilds
   * the active context exactly as it was persisted; load warnings go to the log. Throws for invalid
   * budgets (see `thresholds`) and I/O errors other than damaged content.
   */
  static async open(options: ContextServiceOptions): Promise<ContextService> {
    const service = new ContextService(options, options.sessionId ?? newSessionId());
    service.budgetCheck();
    if (options.storageDir) {
      const { store, loaded } = SessionStore.open(options.storageDir, service._sessionId);
      service.store = store;
      for (const warning of loaded.warnings) service.log('warn', warning);
      service.adopt(loaded.entries, loaded.state);
    }
    if (service.entries.length === 0) {
      await service.conversation.append({ id: service.conversation.newEntryId(), message: { role: 'system', content: options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT } });
      service.persistState();
    }
    return service;
  }

  get sessionId(): string {
    return this._sessionId;
  }

  get sessionDir(): string | undefined {
    return this.store?.folder;
  }

  // ---- conversation used by the agent -------------------------------------------------------

  private readonly conversation: Conversation = {
    newEntryId: () => {
      let id: string;
      do id = `e${String(++this.entryCounter).padStart(6, '0')}`;
      while (this.entryIds.has(id));
      return id;
    },
    append: async (entry) => {
      // Durable first: an acknowledged message is on disk before anything else sees it.
      this.store?.append(entry);
      this.entries.push(entry);
      this.entryIds.add(entry.id);
      this.items.push({ id: entry.id, kind: 'raw', message: entry.message, covers: [entry.id] });
      this._onDidAppendEntry.fire({ entry });
      this.fireBudget();
    },
    messages: () => {
      this.lastSent = [...this.items];
      return toMessages(this.items);
    },
  };

  // ---- tasks ---------------------------------------------------------------------------------

  async runTask(text: string, signal?: AbortSignal): Promise<TaskOutcome> {
    if (this.disposed) throw new Error('the context service was disposed');
    if (this.taskController) throw new Error('a task is already running; cancel it or wait for it to finish');
    const controller = new AbortController();
    this.taskController = controller;
    const taskSignal = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
    const checkpointsBefore = this.checkpoints.length;
    try {
      // The new request goes in first, so a compaction before the call keeps it verbatim and last (B49).
      await this.conversation.append({ id: this.conversation.newEntryId(), message: { role: 'user', content: text }, meta: { timestamp: this.now().toISOString() } });
      const run = await this.agent.run(taskSignal);
      // End of task: a safe point for manual compactions queued during the last step.
      await this.compactions.atSafePoint(taskSignal, false);
      const outcome: TaskOutcome = {
        status: run.status,
        finalText: run.finalText,
        modelCalls: run.modelCalls,
        toolCalls: run.toolCalls,
        compactions: this.checkpoints.slice(checkpointsBefore).filter((c) => c.trigger === 'auto').length,
        ...(run.error ? { error: run.error.message } : {}),
      };
      if (run.error) this.log('error', `task failed: ${run.error.message}`);
      return outcome;
    } finally {
      this.taskController = undefined;
      this.compactions.flushQueue('the task ended before the compaction could run');
      this.agentState = 'idle';
      this.updateState();
    }
  }

  cancel(): void {
    this.taskController?.abort(new Error('cancelled by the user'));
    this.compactions.cancel();
    this.approvals.declineAll();
  }

  // ---- compaction ----------------------------------------------------------------------------

  async compactNow(options: CompactNowOptions = {}, signal?: AbortSignal): Promise<CompactOutcome> {
    if (this.disposed) throw new Error('the context service was disposed');
    const request = { focus: options.focus, preview: options.preview === true };
    let outcome: CompactOutcome;
    if (this.taskController) {
      // Never while a reply streams or tool results are outstanding (B07, B51): wait for the safe point.
      this.log('info', 'compaction queued until the current step ends');
      outcome = await this.compactions.enqueue({ ...request, signal });
    } else {
      outcome = await this.compactions.manual(request, signal);
    }
    if (outcome.preview) this._onDidChangePreview.fire(outcome.preview);
    if (!outcome.applied && !outcome.preview) this.reportProblem(outcome.reason);
    return outcome;
  }

  async applyPreview(editedText?: string): Promise<CompactOutcome> {
    if (this.taskController) throw new Error('wait for the task to finish before applying the preview');
    const outcome = await this.compactions.applyPreview(editedText);
    this._onDidChangePreview.fire(undefined);
    if (!outcome.applied) this.reportProblem(outcome.reason);
    return outcome;
  }

  discardPreview(): void {
    this.compactions.discardPreview();
    this._onDidChangePreview.fire(undefined);
  }

  /** Applies an applied compaction result: persist first, then memory, then events. */
  private commitCompaction(result: CompactionResult): CheckpointRecord[] {
    const time = this.now().toISOString();
    // Undefined fields are dropped so a record equals its reloaded form (JSON has no undefined).
    const records: CheckpointRecord[] = result.checkpoints.map((cp) => definedOnly({ ...cp, time }));
    const context = this.withPins(result.context);
    this.persistState({ context, checkpoints: [...this.checkpoints, ...records] });
    this.items = context;
    this.checkpoints.push(...records);
    this.version++;
    this.compactions.invalidate();
    for (const record of records) this._onDidAddCheckpoint.fire(record);
    this.fireBudget();
    return records;
  }

  async restoreCheckpoint(id: string): Promise<CheckpointRestored> {
    if (this.taskController || this.compactions.busy) throw new Error('wait for the task or compaction to finish before restoring a checkpoint');
    const record = this.checkpoints.find((c) => c.id === id);
    if (!record) throw new Error(`no checkpoint with id ${id}`);
    if (record.restored) throw new Error(`checkpoint ${id} was already restored`);
    const active = this.checkpoints.filter((c) => !c.restored);
    const undo = undoCheckpoint(this.items, active, id);
    const restoredAt = this.now().toISOString();
    const checkpoints = this.checkpoints.map((c) => (undo.undone.includes(c.id) ? { ...c, restored: true, restoredAt } : c));
    const context = this.withPins(undo.items);
    this.persistState({ context, checkpoints });
    this.items = context;
    this.checkpoints = checkpoints;
    this.version++;
    this.compactions.invalidate();
    this.compactions.guard.reset();
    const event: CheckpointRestored = { id, undone: undo.undone };
    this._onDidRestoreCheckpoint.fire(event);
    this.fireBudget();
    return event;
  }

  async pin(entryId: string, pinned = true): Promise<void> {
    const index = this.items.findIndex((i) => i.kind === 'raw' && i.id === entryId);
    if (index < 0) {
      const holder = this.checkpoints.find((c) => !c.restored && c.replacedIds.includes(entryId));
      throw new Error(holder ? `message ${entryId} is summarized by checkpoint ${holder.id}; restore it first` : `no message ${entryId} in the active context`);
    }
    const next = new Set(this.pinned);
    if (pinned) next.add(entryId);
    else next.delete(entryId);
    const previous = this.pinned;
    this.pinned = next;
    const context = this.withPins(this.items);
    try {
      this.persistState({ context });
    } catch (error) {
      this.pinned = previous;
      throw error;
    }
    this.items = context;
    this.version++;
    this.compactions.invalidate();
    this.fireBudget();
  }

  /** Items with `pinned` set exactly for raw items whose id is pinned (new objects where it changes). */
  private withPins(items: readonly ContextItem[]): ContextItem[] {
    return items.map((item) => {
      const want = item.kind === 'raw' && this.pinned.has(item.id);
      if (Boolean(item.pinned) === want) return item;
      const { pinned: _drop, ...rest } = item;
      return want ? { ...rest, pinned: true } : rest;
    });
  }

  // ---- approvals -----------------------------------------------------------------------------

  resolveApproval(requestId: string, approved: boolean): void {
    this.approvals.resolve(requestId, approved);
  }

  getPendingApprovals(): ApprovalRequest[] {
    return this.approvals.list();
  }

  // ---- reading -------------------------------------------------------------------------------

  getState(): StateChange {
    return this.state;
  }

  getBudget(): BudgetSnapshot {
    const notes = [this.compactions.guard.status().advice, this.compactions.stuckReason].filter((n): n is string => n !== undefined);
    const snapshot = budgetSnapshot(this.items, this.tools.schemas, this.meter, this.options.budget, this.options.model, notes);
    return this.options.windowSource ? { ...snapshot, windowSource: this.options.windowSource } : snapshot;
  }

  getCheckpoints(): CheckpointRecord[] {
    return [...this.checkpoints];
  }

  getTranscript(): TranscriptSnapshot {
    return { entries: [...this.entries], context: [...this.items], pinned: [...this.pinned] };
  }

  getPreview(): CompactionPreview | undefined {
    return this.compactions.currentPreview;
  }

  /** The messages the next request would send. */
  getMessages(): ChatMessage[] {
    return toMessages(this.items);
  }

  /** Tool schemas sent with every request. */
  getToolSchemas(): ToolSchema[] {
    return this.tools.schemas;
  }

  /** Totals for the demo and the CLI. */
  getStats(): ServiceStats {
    return { modelCalls: [...this.callRecords], compaction: { ...this.compactions.stats } };
  }

  /** Waits until background summary preparation has settled (tests, orderly shutdown). */
  whenIdle(): Promise<void> {
    return this.compactions.idle();
  }

  // ---- import / export -----------------------------------------------------------------------

  async importTranscript(imported: ImportedTranscript): Promise<void> {
    if (this.taskController || this.compactions.busy) throw new Error('wait for the task to finish before importing');
    const repaired = repairToolPairing(imported.entries, { closeTrailing: true });
    for (const warning of repaired.warnings) this.log('warn', `import: ${warning}`);
    const entries = repaired.entries;
    const ids = new Set<string>();
    for (const e of entries) {
      if (ids.has(e.id)) throw new Error(`import: duplicate entry id ${e.id}`);
      ids.add(e.id);
    }
    const sessionId = newSessionId(this.now());
    let store: SessionStore | undefined;
    if (this.options.storageDir) {
      store = SessionStore.open(this.options.storageDir, sessionId).store;
      store.append(...entries);
    }
    this.store?.close();
    this.store = store;
    this._sessionId = sessionId;
    this.source = `Imported: ${imported.source}`;
    this.createdAt = this.now().toISOString();
    this.adopt(entries, undefined);
    if (imported.compactions?.length) {
      const applied = applyRecordedCompactions(this.items, imported.compactions, this.meter, this.tools.schemas, this.now().toISOString());
      for (const warning of applied.warnings) this.log('warn', `import: ${warning}`);
      this.items = applied.items;
      this.checkpoints = applied.checkpoints;
    }
    this.persistState();
    this.fireBudget();
  }

  exportTranscript(): ExportedTranscript {
    return {
      format: 'context-keeper/transcript',
      version: 1,
      sessionId: this._sessionId,
      model: this.options.model,
      exportedAt: this.now().toISOString(),
      entries: [...this.entries],
      context: [...this.items],
      checkpoints: [...this.checkpoints],
      pinned: [...this.pinned],
      messages: toMessages(this.items),
    };
  }

  dispose(): void {
    if (this.disposed) return;
    this.cancel();
    this.disposed = true;
    this.store?.close();
    this.approvals.dispose();
    for (const emitter of [
      this._onDidChangeBudget,
      this._onDidAddCheckpoint,
      this._onDidRestoreCheckpoint,
      this._onDidChangeState,
      this._onDidStreamText,
      this._onDidAppendEntry,
      this._onDidStartToolCall,
      this._onDidFinishToolCall,
      this._onDidChangePreview,
    ]) {
      emitter.dispose();
    }
  }

  // ---- internals -----------------------------------------------------------------------------

  /** Takes over loaded or imported entries and state; entries not in the state are appended raw. */
  private adopt(entries: Entry[], state: SessionState | undefined): void {
    this.entries = [...entries];
    this.entryIds = new Set(entries.map((e) => e.id));
    this.entryCounter = entries.length;
    this.pinned = new Set(state?.pinned ?? []);
    this.checkpoints = state?.checkpoints ?? [];
    if (state) {
      this.source = state.source;
      this.createdAt = state.createdAt;
    }
    const context = state?.context ?? [];
    const missing = unaccountedEntries(entries, context, this.checkpoints);
    this.items = this.withPins([...context, ...itemsFromEntries(missing)]);
    this.version++;
    this.compactions.invalidate();
    this.compactions.guard.reset();
  }

  /** Writes the state (with optional replacements) atomically; throws when the write fails. */
  private persistState(replace: { context?: ContextItem[]; checkpoints?: CheckpointRecord[] } = {}): void {
    this.store?.writeState({
      sessionId: this._sessionId,
      model: this.options.model,
      source: this.source,
      createdAt: this.createdAt,
      context: replace.context ?? this.items,
      pinned: [...this.pinned],
      checkpoints: replace.checkpoints ?? this.checkpoints,
    });
  }

  private usageDiscrepancyLogged = false;

  private recordUsage(promptTokens: number): void {
    const sent = this.lastSent;
    const outcome = this.meter.calibrate(promptTokens, sent, this.tools.schemas);
    // Logged once per session: every call of a misreporting proxy would repeat it.
    if (!outcome.accepted && outcome.reason && !this.usageDiscrepancyLogged) {
      this.usageDiscrepancyLogged = true;
      this.log('warn', `provider usage ignored: ${outcome.reason}`);
    }
    this.callRecords.push({
      reportedPromptTokens: promptTokens,
      estimatedPromptTokens: this.meter.measure(sent, this.tools.schemas).total,
      withoutCompactionTokens: this.meter.measure(itemsFromEntries(this.entries.slice(0, this.entryCountAt(sent))), this.tools.schemas).total,
    });
    this.fireBudget();
  }

  /** Number of raw entries that existed when `sent` was the active context (its newest covered entry). */
  private entryCountAt(sent: readonly ContextItem[]): number {
    const last = sent[sent.length - 1]?.covers.at(-1);
    const index = last === undefined ? -1 : this.entries.findIndex((e) => e.id === last);
    return index + 1;
  }

  private budgetCheck(): void {
    const warnings = this.getBudget().warnings;
    for (const warning of warnings) this.log('warn', `budget: ${warning}`);
  }

  private fireBudget(): void {
    if (this.disposed) return;
    this._onDidChangeBudget.fire(this.getBudget());
  }

  private updateState(detail?: string): void {
    const state: ServiceState = this.compactingDetail ? 'compacting' : this.agentState;
    const next: StateChange = { state, ...(this.compactingDetail ?? detail ? { detail: this.compactingDetail ?? detail } : {}) };
    if (next.state === this.state.state && next.detail === this.state.detail) return;
    this.state = next;
    if (!this.disposed) this._onDidChangeState.fire(next);
  }

  /** Shows a problem once as the `error` state; the next state change clears it. */
  private reportProblem(reason: string): void {
    if (/cancelled|below the trigger|already small|nothing eligible/.test(reason) || this.taskController) return;
    this.state = { state: 'error', detail: reason };
    if (!this.disposed) this._onDidChangeState.fire(this.state);
  }
}
