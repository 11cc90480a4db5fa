/**
 * The context service: one agent conversation with its token meter, automatic and manual
 * compaction, checkpoints, pins and persistence. Implements {@link ContextServiceApi}; see there for
 * the contract. Plain Node: no `vscode` import.
 *
 * Ownership: the conversation's state (raw transcript, active context, checkpoints, pins) lives in a
 * pure {@link ConversationState}; this class orchestrates around it: the {@link AgentSession} appends
 * through the service's conversation and calls it at safe points, {@link Compactions} decides when to
 * compact and hands applied results back to {@link ContextService.commitCompaction}, and every rewrite
 * is planned on the state, applied, announced, and saved (in order, off the editor's thread) through
 * {@link SessionFiles}, whose `saveState` says why this order is safe; appends are on disk first.
 * Event plumbing lives in {@link ServiceEventSurface}, usage records in {@link UsageRecorder}.
 */
import { compactionBlocker } from '../compaction/plan/planner';
import { thresholds } from '../compaction/plan/budget';
import type { CallEstimate } from '../compaction/rewrite/compactor';
import type { BudgetConfig, ChatMessage, ContextItem, Entry, Summarizer, ToolSchema } from '../compaction/types';
import type { ContextOverflow } from '../models/context-errors';
import { TokenMeter } from '../compaction/meter/meter';
import { applyRecordedCompactions } from '../compaction/rewrite/imported';
import { ExtractiveSummarizer } from '../compaction/summary/extractive';
import { AgentSession, type Conversation } from '../agent/session';
import { WorkspaceTools } from '../agent/tools';
import { DEFAULT_SYSTEM_PROMPT } from '../agent/prompt';
import type { ApprovalHandler } from '../agent/types';
import type { CompactNowOptions, ContextServiceApi, ContextServiceOptions, LogSink } from './api';
import { ServiceEventSurface } from './service-events';
import { ConversationState, type ContextState } from './session/conversation-state';
import { SessionFiles, newSessionId } from './session/session-files';
import { editedSummaryIds, type Compactions } from './compaction/compactions';
import { serviceCompactions } from './compaction/service-compactions';
import { ContextTally, type SavedCalibration } from './meter/tally';
import { TranscriptSecrets } from './compaction/transcript-secrets';
import { countInSlices } from './meter/count-slices';
import { UsageRecorder, type ServiceStats } from './meter/usage';
import { ServiceStatus } from './status';
import { agentHooks } from './agent-hooks';
import { exportOf, forkedSession, importedEntries, importSource, ownEntryTest } from './session/transfer';
import { protectedRestoredIds } from './session/restored-ids';
import {
  changedInstructions,
  INSTRUCTION_FILES,
  instructionsEntry,
  readInstructionFiles,
  type InstructionFile,
} from './project-instructions';
import {
  describeOutcome,
  failureOfOutcome,
  isQuietOutcome,
  type CompactOutcomeStatus,
  type CompactOutcome,
} from './compaction/outcome';
import { taskOutcomeOf } from './task-outcome';
import { planRestoreOf, type RestorePlan } from './session/restore-plan';
import type { CompactionResult } from '../compaction/outcome';
import type {
  CheckpointRecord,
  CheckpointRestored,
  CompactionPreview,
  ExportedTranscript,
  ImportedTranscript,
  StateChange,
  TaskOutcome,
  TranscriptSnapshot,
} from './records';
import type { BudgetSnapshot } from './meter/budget-types';
import type { SavedSessionState } from './session/store-format';

/** Smallest window a server's refusal may set, in tokens; a smaller stated figure is not believed. */
const MIN_SERVER_WINDOW = 256;

/** The context service. Build with {@link ContextService.open}. */
export class ContextService extends ServiceEventSurface implements ContextServiceApi {
  readonly meter: TokenMeter;
  private readonly summarizer: Summarizer;
  private readonly tools: WorkspaceTools;
  private readonly agent: AgentSession;
  private readonly compactions: Compactions;
  private readonly log: LogSink;
  private readonly now: () => Date;

  private readonly files: SessionFiles;
  private readonly session = new ConversationState();
  private readonly usage: UsageRecorder;
  /** The meter's running reading of the active context (see tally.ts). */
  private readonly tally: ContextTally;
  /** The transcript's secret values, for compactions (see transcript-secrets.ts). */
  private readonly secrets = new TranscriptSecrets();
  private readonly status = new ServiceStatus(
    (change) => this.events.state.fire(change),
    () => !this.disposed,
  );
  private taskController: AbortController | undefined;
  private disposed = false;
  /** Raw entry ids brought back by restores, kept out of automatic compaction (see `Compactions`). */
  private readonly restored = new Set<string>();
  /**
   * The budget in force: the configured one until the server refuses a request stating a smaller
   * window (`adoptServerWindow`), then that window for the rest of the session.
   */
  private budget: BudgetConfig;
  /** Where the window in force comes from ("N tokens, reported by …"), shown beside the gauge. */
  private windowSource: string | undefined;

  private constructor(
    private readonly options: ContextServiceOptions,
    sessionId: string,
  ) {
    super();
    this.budget = options.budget;
    this.windowSource = options.windowSource;
    this.log = options.log ?? (() => {});
    this.now = options.now ?? (() => new Date());
    this.files = new SessionFiles(
      options.storageDir,
      sessionId,
      options.model,
      this.now().toISOString(),
      () => this.session.snapshot(),
      (error) => this.saveFailed(error),
    );
    const meter = (this.meter = new TokenMeter({ model: options.model, counter: options.tokenCounter }));
    this.usage = new UsageRecorder(this.log);
    this.tally = new ContextTally(this.meter);
    // Labelled estimates (never cached) until the tokenizer loads, then an exact recount in slices; lineAdditive is read per summary.
    void this.meter.counter.ready
      ?.then(() =>
        countInSlices(
          this.meter,
          () => [this.session.items, this.session.entries],
          () => this.disposed,
          () => this.countedTools,
        ),
      )
      .then(() => this.recountExactly());
    this.summarizer =
      options.summarizer ??
      new ExtractiveSummarizer((text) => meter.countText(text), {
        get lineAdditive() {
          return meter.lineAdditive;
        },
      });
    const approve: ApprovalHandler = options.approve ?? ((request, signal) => this.approvals.ask(request, signal));
    this.tools = new WorkspaceTools(options.host, {
      approve,
      autoApprove: options.autoApprove,
      commandTimeoutMs: options.toolTimeoutMs,
      // What compactions replaced stays readable: the raw transcript and the checkpoints in force.
      history: () => ({
        entries: this.session.entries,
        checkpoints: this.session.checkpoints.filter((c) => !c.restored),
      }),
    });
    this.agent = new AgentSession({
      client: options.client,
      model: options.model,
      tools: this.tools,
      conversation: this.conversation,
      maxSteps: options.maxSteps ?? 40,
      hooks: agentHooks({
        compactions: () => this.compactions,
        recordUsage: (tokens, cached) => this.recordUsage(tokens, cached),
        serverWindow: (overflow) => this.adoptServerWindow(overflow),
        status: this.status,
        events: this.events,
        tokenizerReady: () => this.meter.counter.ready,
      }),
    });
    this.compactions = serviceCompactions(
      { ...options, budget: () => this.budget },
      {
        items: () => this.session.items,
        tools: () => this.countedTools,
        meter: this.meter,
        summarizer: this.summarizer,
        used: () => {
          this.tally.sync(this.session.items);
          return this.tally.read(this.countedTools).total;
        },
        version: () => this.session.version,
        commit: (result, runTime) => this.commitCompaction(result, runTime),
        setBusy: (detail) => this.status.compacting(detail),
        ownEntries: () => ownEntryTest(this.session.entries, (id) => this.session.hasEntry(id), this.files.source),
        instructions: async (items, signal) => changedInstructions(items, await this.readInstructions(signal)),
        restoredIds: () => this.restored,
        releaseRestored: () => this.restored.clear(),
        editedSummaryIds: () => editedSummaryIds(this.session.checkpoints),
        knownSecretValues: (signal) => this.secrets.values(this.session.entries, signal),
        log: (level, message) => this.log(level, message),
      },
    );
  }

  /**
   * Builds a service. With `storageDir`, opens (or creates) the session folder `sessionId` and rebuilds
   * the active context exactly as it was persisted; load warnings go to the log. Throws for invalid
   * budgets (see `thresholds`) and I/O errors other than damaged content.
   */
  static async open(options: ContextServiceOptions): Promise<ContextService> {
    const service = new ContextService(options, options.sessionId ?? newSessionId());
    for (const warning of service.getBudget().warnings) service.log('warn', `budget: ${warning}`);
    const loaded = service.files.load(service.log);
    if (loaded) service.adopt(loaded.entries, loaded.state, loaded.calibration);
    if (service.session.entries.length === 0) {
      await service.conversation.append({
        id: service.conversation.newEntryId(),
        message: { role: 'system', content: options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT },
      });
      const instructions = instructionsEntry(await service.readInstructions());
      if (instructions) await service.conversation.append(instructions);
      service.files.saveState();
    }
    return service;
  }

  get sessionId(): string {
    return this.files.sessionId;
  }

  get sessionDir(): string | undefined {
    return this.files.folder;
  }

  // ---- conversation used by the agent -------------------------------------------------------

  private readonly conversation: Conversation = {
    newEntryId: () => this.session.newEntryId(),
    append: async (appended) => {
      // Marked as this session's own work in this workspace (see `EntryMeta.local`).
      const entry: Entry = { ...appended, meta: { ...appended.meta, local: true } };
      // Durable first: an acknowledged message is on disk before anything else sees it.
      this.files.append(entry);
      this.session.append(entry);
      this.tally.sync(this.session.items);
      this.tally.syncEntries(this.session.entries);
      this.secrets.sync(this.session.entries);
      this.events.entryAppended.fire({ entry });
      this.dropStalePreview('a new message was added');
      this.fireBudget();
    },
    messages: () => {
      this.tally.sync(this.session.items);
      this.tally.markSent(this.tools.schemas);
      return this.session.messages();
    },
  };

  // ---- tasks ---------------------------------------------------------------------------------

  async runTask(text: string, signal?: AbortSignal): Promise<TaskOutcome> {
    if (this.disposed) throw new Error('the context service was disposed');
    if (this.taskController) throw new Error('a task is already running; cancel it or wait for it to finish');
    const controller = new AbortController();
    this.taskController = controller;
    this.status.task(true);
    const taskSignal = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
    const checkpointsBefore = this.session.checkpoints.length;
    try {
      // The new request goes in first, so a compaction before the call keeps it verbatim and last. The
      // same request sent again while it is still the last message (a retry after a failed model call
      // that left no reply) continues from it: the model would otherwise see it twice.
      if (!this.awaitsReplyTo(text))
        await this.conversation.append({
          id: this.conversation.newEntryId(),
          message: { role: 'user', content: text },
          meta: { timestamp: this.now().toISOString() },
        });
      const run = await this.agent.run(taskSignal);
      // End of task: a safe point for manual compactions queued during the last step.
      await this.compactions.atSafePoint(taskSignal, false);
      const outcome = taskOutcomeOf(run, this.session.checkpoints.slice(checkpointsBefore));
      if (run.error) this.log('error', `task failed: ${run.error.message}`);
      return outcome;
    } finally {
      this.taskController = undefined;
      this.compactions.flushQueue({ kind: 'task-ended' });
      this.status.agent('idle');
      this.status.task(false);
    }
  }

  /** True when the newest item of the context is the user's request `text`, with nothing after it. */
  private awaitsReplyTo(text: string): boolean {
    const items = this.session.items;
    const last = items.length > 0 ? items[items.length - 1] : undefined;
    return last?.kind === 'raw' && last.message.role === 'user' && last.message.content === text;
  }

  get taskRunning(): boolean {
    return this.taskController !== undefined;
  }

  cancel(): void {
    this.taskController?.abort(new Error('cancelled by the user'));
    this.compactions.cancel();
    this.approvals.declineAll();
  }

  // ---- compaction ----------------------------------------------------------------------------

  estimateCompaction(trigger: 'manual' | 'continue' = 'manual'): CallEstimate | undefined {
    return this.compactions.estimateManual(trigger);
  }

  private blocker: { version: number; length: number; reason: string | undefined } | undefined;

  compactBlocker(): string | undefined {
    const items = this.session.items;
    const version = this.session.version;
    const known = this.blocker;
    // Appends only make more of the context eligible (the latest request and the recent steps move
    // to the new messages; an open tool call gets its result), so once a compaction could apply it
    // still can until the next rewrite: the plan over every item is not run again on each append,
    // which the sidebar asks for at every budget update.
    if (known?.version === version && known.reason === undefined && items.length >= known.length) return undefined;
    if (known?.version !== version || known.length !== items.length)
      this.blocker = {
        version,
        length: items.length,
        reason: this.blockerReason(items),
      };
    return this.blocker!.reason;
  }

  /**
   * Why Compact could do nothing for `items` (see `compactionBlocker`), measured as the compaction
   * measures them (cached per item): the same plan, the same answer. The input budget is what is left
   * for the messages beside what the meter counts outside them (tool schemas, the reply's start).
   */
  private blockerReason(items: readonly ContextItem[]): string | undefined {
    const m = this.meter.measure(items, this.countedTools);
    const outside = m.total - m.perItem.reduce((sum, n) => sum + n, 0);
    return compactionBlocker(
      items,
      m.perItem,
      this.options.keepRecentSteps ?? 1,
      thresholds(this.budget).inputBudget - outside,
    );
  }

  async compactNow(options: CompactNowOptions = {}, signal?: AbortSignal): Promise<CompactOutcome> {
    if (this.disposed) throw new Error('the context service was disposed');
    const request = {
      focus: options.focus,
      preview: options.preview === true,
      calls: options.calls,
      onProgress: options.onProgress,
      trigger: options.trigger,
    };
    let outcome: CompactOutcome;
    if (this.taskController) {
      // Never while a reply streams or tool results are outstanding: wait for the safe point.
      this.log('info', 'compaction queued until the current step ends');
      outcome = await this.compactions.enqueue({ ...request, signal });
    } else {
      outcome = await this.compactions.manual(request, signal);
    }
    if (outcome.preview) this.events.preview.fire(outcome.preview);
    if (outcome.status.kind !== 'applied' && !outcome.preview) this.reportProblem(outcome.status);
    return outcome;
  }

  previewTokensAfter(edited: readonly (string | undefined)[]): number | undefined {
    return this.compactions.previewTokensAfter(edited);
  }

  async applyPreview(edited?: readonly (string | undefined)[]): Promise<CompactOutcome> {
    if (this.taskController) throw new Error('wait for the task to finish before applying the preview');
    const outcome = await this.compactions.applyPreview(edited);
    // A preview refused for an empty summary stays pending, to be written or discarded.
    if (outcome.status.kind !== 'empty-summary') this.events.preview.fire(undefined);
    // A preview refused (stale, already gone, or with an empty summary) is the caller's to report: no
    // agent or compaction ran, so the state does not turn to error.
    const refused =
      outcome.status.kind === 'rewritten' ||
      outcome.status.kind === 'no-preview' ||
      outcome.status.kind === 'empty-summary';
    if (outcome.status.kind !== 'applied' && !refused) this.reportProblem(outcome.status);
    return outcome;
  }

  /**
   * Discards the pending preview, if any, because the context it was computed on changed (`why`, in
   * words): applying it would be refused as stale, so it is not offered any longer.
   */
  private dropStalePreview(why: string): void {
    if (!this.compactions.currentPreview) return;
    this.compactions.discardPreview();
    this.log('info', `summary preview discarded: ${why}`);
    this.events.preview.fire(undefined);
    this.events.previewDropped.fire(why);
  }

  discardPreview(): void {
    this.compactions.discardPreview();
    this.events.preview.fire(undefined);
  }

  /**
   * Applies an applied compaction result: persist first, then memory, then events. `runTime`: see
   * `CompactionHost.commit`.
   */
  private commitCompaction(result: CompactionResult, runTime?: string): CheckpointRecord[] {
    const { next, records } = this.session.planCommit(result, runTime ?? this.now().toISOString());
    // The meter's own figures of the result: the messages are not counted again, and the tally
    // needs only the summaries among the items removed and added (see ContextTally.rewrite).
    const summaries = (items: readonly ContextItem[]) => items.filter((i) => i.kind === 'summary');
    this.rewrite(next, {
      removed: result.checkpoints.flatMap((c) => summaries(c.replaced)),
      added: result.checkpoints.flatMap((c) => summaries(c.inserted)),
      messages: result.tokensAfter - result.tokensBefore,
    });
    for (const record of records) this.events.checkpointAdded.fire(record);
    this.dropStalePreview('a compaction rewrote the context');
    this.fireBudget();
    return records;
  }

  /** Takes over a planned state and queues its save; throws (changing nothing) when the folder is read-only. */
  private rewrite(
    next: ContextState,
    change?: { removed: readonly ContextItem[]; added: readonly ContextItem[]; messages?: number },
  ): void {
    this.files.checkWritable();
    this.session.apply(next);
    this.tally.rewrite(this.session.items, change);
    this.compactions.invalidate();
    this.files.saveState();
  }

  async restoreCheckpoint(id: string | readonly string[]): Promise<CheckpointRestored> {
    if (this.taskController || this.compactions.busy)
      throw new Error('wait for the task or compaction to finish before restoring a checkpoint');
    const { next, event } = this.session.planRestore(id, this.now().toISOString());
    const undone = this.session.checkpoints.filter((c) => event.undone.includes(c.id));
    this.rewrite(next, { removed: undone.flatMap((c) => c.inserted), added: undone.flatMap((c) => c.replaced) });
    // What came back stays out of the next automatic compaction: a restore is never silently undone.
    for (const cp of undone) for (const rid of cp.replacedIds) this.restored.add(rid);
    this.compactions.guard.reset();
    this.events.checkpointRestored.fire(event);
    this.dropStalePreview('a checkpoint was restored');
    this.fireBudget();
    return event;
  }

  planRestore(id: string | readonly string[]): RestorePlan {
    return planRestoreOf(this.session, this.meter, this.getBudget().used, id, this.now().toISOString());
  }

  async undoRestore(): Promise<CheckpointRestored> {
    if (this.taskController || this.compactions.busy)
      throw new Error('wait for the task or compaction to finish before undoing a restore');
    const { next, event } = this.session.planRedo();
    // A full recount of the running tally: an undo is rare, and a nested restore's item sets overlap.
    this.rewrite(next);
    const undone = { ...event, undo: true };
    this.events.checkpointRestored.fire(undone);
    this.dropStalePreview('the restore was undone');
    this.fireBudget();
    return undone;
  }

  /**
   * The tool schemas the count includes: an inspected recording's own (see
   * {@link ContextServiceOptions.countsRecording}), else the agent's, which it sends with every request.
   */
  private get countedTools(): readonly ToolSchema[] {
    return this.options.countsRecording ? this.files.recordedTools : this.tools.schemas;
  }

  getUndoableRestore(): CheckpointRestored | undefined {
    return this.session.redoable;
  }

  async pin(entryId: string, pinned = true): Promise<void> {
    this.rewrite(this.session.planPin(entryId, pinned), { removed: [], added: [] });
    this.dropStalePreview(pinned ? 'a message was pinned' : 'a message was unpinned');
    this.fireBudget();
  }

  // ---- reading -------------------------------------------------------------------------------

  getState(): StateChange {
    return this.status.current;
  }

  getBudget(): BudgetSnapshot {
    const notes = this.compactions.notes();
    this.tally.sync(this.session.items);
    const snapshot = this.tally.snapshot(this.countedTools, this.budget, this.options.model, notes);
    const { windowSource } = this;
    const { recordedPromptTokens } = this.options;
    const autoPaused = this.compactions.pauseReason();
    return {
      ...snapshot,
      ...(autoPaused ? { autoPaused } : {}),
      ...(windowSource ? { windowSource } : {}),
      ...(recordedPromptTokens !== undefined ? { recordedPromptTokens } : {}),
    };
  }

  getCheckpoints(): CheckpointRecord[] {
    return [...this.session.checkpoints];
  }

  getTranscript(): TranscriptSnapshot {
    return { entries: [...this.session.entries], context: [...this.session.items], pinned: [...this.session.pinned] };
  }

  getPreview(): CompactionPreview | undefined {
    return this.compactions.currentPreview;
  }

  /** The messages the next request would send. */
  getMessages(): ChatMessage[] {
    return this.session.messages();
  }

  /** Tool schemas sent with every request. */
  getToolSchemas(): ToolSchema[] {
    return this.tools.schemas;
  }

  /** Totals for the demo and the CLI. */
  getStats(): ServiceStats {
    return { modelCalls: [...this.usage.calls], compaction: { ...this.compactions.stats } };
  }

  /** Waits until background summary preparation has settled (tests, orderly shutdown). */
  whenIdle(): Promise<void> {
    return this.compactions.idle();
  }

  /** Resolves once every state save so far is on disk (retrying a failed one); rejects when it fails. */
  whenSaved(): Promise<void> {
    return this.files.whenSaved();
  }

  // ---- import / export -----------------------------------------------------------------------

  async importTranscript(imported: ImportedTranscript): Promise<void> {
    if (this.taskController || this.compactions.busy) throw new Error('wait for the task to finish before importing');
    const { entries, state } = forkedSession(
      imported,
      importedEntries(imported, this.log),
      this.options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
      // A continued recording works in this workspace from now on: under its instructions.
      imported.state ? instructionsEntry(await this.readInstructions()) : undefined,
    );
    // A recording's own tool schemas stay with it; a fork is a working session, sending the agent's.
    const recordedTools = imported.state ? [] : (imported.tools ?? []);
    this.files.startNew(
      newSessionId(this.now()),
      importSource(imported),
      this.now().toISOString(),
      entries,
      recordedTools,
    );
    this.adopt(
      entries,
      state && {
        sessionId: this.sessionId,
        model: this.options.model,
        source: this.files.source,
        createdAt: this.files.createdAt,
        ...state,
      },
    );
    if (!imported.state && imported.compactions?.length) {
      const applied = applyRecordedCompactions(
        this.session.items,
        imported.compactions,
        this.meter,
        this.countedTools,
        this.now().toISOString(),
      );
      for (const warning of applied.warnings) this.log('warn', `import: ${warning}`);
      this.session.apply({ context: applied.items, checkpoints: applied.checkpoints, pinned: [] });
      this.tally.rewrite(this.session.items);
    }
    this.files.saveState();
    this.fireBudget();
  }

  exportTranscript(): ExportedTranscript {
    return exportOf(this.session, this.files.sessionId, this.options.model, this.now().toISOString());
  }

  /**
   * Resolves once nothing writes into the session folder any more after {@link dispose} (a state or
   * calibration write in flight at dispose ends on its own, off this thread). Never rejects.
   */
  whenClosed(): Promise<void> {
    return this.files.whenClosed();
  }

  /**
   * Cancels what runs, writes what is pending and closes the session folder. A pending preview ends
   * with the service: {@link onDidChangePreview} fires `undefined` first, so whatever waits on it (a
   * review and its notification) ends too rather than waiting on events that never come.
   */
  dispose(): void {
    if (this.disposed) return;
    this.cancel();
    this.disposed = true;
    if (this.compactions.currentPreview) {
      this.compactions.discardPreview();
      this.events.preview.fire(undefined);
    }
    this.compactions.dispose();
    this.files.close();
    this.disposeEvents();
  }

  // ---- internals -----------------------------------------------------------------------------

  /** The workspace's instruction files as they are on disk now (`instructionFiles`). */
  private readInstructions(signal?: AbortSignal): Promise<InstructionFile[]> {
    return readInstructionFiles(this.options.host, this.options.instructionFiles ?? INSTRUCTION_FILES, signal);
  }

  /** Rebuilds the running sums from exact counts once the tokenizer is loaded, and redraws the gauge. */
  private recountExactly(): void {
    if (this.disposed) return;
    this.tally.recount(this.session.items, this.session.entries);
    this.fireBudget();
  }

  /** Takes over loaded or imported entries and state (and a saved calibration); entries not in the state are appended raw. */
  private adopt(entries: Entry[], state: SavedSessionState | undefined, calibration?: SavedCalibration): void {
    this.session.adopt(entries, state);
    this.restored.clear();
    // Restores made before a reload keep their messages out of automatic compaction.
    for (const id of protectedRestoredIds(this.session.checkpoints)) this.restored.add(id);
    this.tally.recount(this.session.items, this.session.entries);
    if (calibration) this.tally.restoreCalibration(calibration);
    this.compactions.invalidate();
    this.compactions.guard.reset();
  }

  /**
   * A refusal for length that states the server's window (`context-errors.ts`: "maximum context length
   * is N tokens", llama.cpp's `n_ctx`, LM Studio's "context length of only N tokens") and names one
   * smaller than the window in force: that window becomes the session's, for the trigger, the target
   * and the gauge alike, labelled as reported by the server. A stated window below
   * {@link MIN_SERVER_WINDOW} or not smaller than the one in force is logged and not adopted.
   */
  private adoptServerWindow(overflow: ContextOverflow): void {
    const stated = overflow.window;
    if (stated === undefined) return;
    const current = this.budget.contextWindow;
    if (!Number.isSafeInteger(stated) || stated < MIN_SERVER_WINDOW || stated >= current) {
      if (stated < current)
        this.log(
          'warn',
          `The server's refusal states a window of ${stated} tokens; not used (below ${MIN_SERVER_WINDOW} or not a whole number).`,
        );
      return;
    }
    const n = (x: number): string => x.toLocaleString('en-US');
    this.budget = { ...this.budget, contextWindow: stated };
    this.windowSource = `${n(stated)} tokens, reported by the server when it refused a request as too long (${n(this.options.budget.contextWindow)} configured)`;
    this.log(
      'warn',
      `The server serves a ${n(stated)}-token window, smaller than the ${n(current)} in force: compaction and the gauge use ${n(stated)} tokens for the rest of this session.`,
    );
    this.fireBudget();
  }

  private recordUsage(promptTokens: number, cachedTokens = 0): void {
    this.usage.record(
      promptTokens,
      this.tally.calibrate(promptTokens, cachedTokens),
      this.tally.sentReading(),
      cachedTokens,
    );
    this.files.saveCalibration(this.tally.calibrationSaver(), this.log);
    this.fireBudget();
  }

  private fireBudget(): void {
    if (this.disposed) return;
    this.events.budget.fire(this.getBudget());
  }

  /** A state save failed: an error in the log and the `error` state; the state is kept and saved again later. */
  private saveFailed(error: Error): void {
    this.log('error', error.message);
    this.status.problem(
      `${error.message}. The session keeps working; its state is saved again on the next change and on close.`,
    );
  }

  /** Shows a problem once as the `error` state; the next state change clears it. */
  private reportProblem(status: CompactOutcomeStatus): void {
    if (isQuietOutcome(status) || this.taskController) return;
    this.status.problem(describeOutcome(status), failureOfOutcome(status));
  }
}
