/**
 * Owns the current context service for the window and adapts it for the views.
 *
 * - Opens the service lazily (first sidebar view or first command), so activation loads no tokenizer.
 * - Rebuilds it when settings or the API key change, resuming the same session from disk; a rebuild
 *   asked for while the agent works waits until the service is idle.
 * - Subscribes to the service's events once per service instance and replaces those listeners cleanly.
 * - Keeps the live state the raw transcript does not hold yet (streamed text, running tools).
 * - Produces the complete {@link ViewState} the sidebar renders.
 */
import * as vscode from 'vscode';
import type {
  BudgetSnapshot,
  CheckpointRecord,
  ContextServiceApi,
  ImportedTranscript,
  ServiceState,
} from '../service/api';
import type { ApprovalRequest } from '../agent/types';
import { resolveContextWindow, thresholds } from '../compaction/budget';
import type { BudgetView, CheckpointView, ViewState } from './protocol';
import type { ContextKeeperSettings, Settings } from './settings';
import type { KeyStore } from './key-store';
import { transcriptItems } from './transcript-items';

/** Everything the factory needs to build one service instance. */
export interface ServiceInput {
  settings: ContextKeeperSettings;
  apiKey: string | undefined;
  /** Session to resume, or undefined for a new one. */
  sessionId: string | undefined;
}

/** Builds a context service; supplied by the composition root. */
export type ServiceFactory = (input: ServiceInput) => Promise<ContextServiceApi>;

const SESSION_KEY = 'contextKeeper.sessionId';
const SOURCE_KEY = 'contextKeeper.sessionSource';
const MAX_TRANSCRIPT_ITEMS = 200;

/** The service's budget as the gauge shows it. */
export function toBudgetView(budget: BudgetSnapshot, autoCompact: boolean): BudgetView {
  return {
    used: budget.used,
    window: budget.window,
    reserved: budget.reserved,
    inputBudget: budget.inputBudget,
    compactAt: budget.compactAt.tokens,
    compactAtFraction: budget.compactAt.fraction,
    compactTo: budget.compactTo.tokens,
    compactToFraction: budget.compactTo.fraction,
    exact: budget.exact,
    breakdown: { ...budget.breakdown },
    model: budget.model,
    warnings: [...budget.warnings],
    autoCompact,
  };
}

/** A checkpoint record as one history row. */
export function toCheckpointView(checkpoint: CheckpointRecord): CheckpointView {
  return {
    id: checkpoint.id,
    time: checkpoint.time,
    trigger: checkpoint.trigger,
    strategy: checkpoint.strategy,
    tokensBefore: checkpoint.tokensBefore,
    tokensAfter: checkpoint.tokensAfter,
    messagesReplaced: checkpoint.replacedIds.length,
    summarizerModel: checkpoint.summarizerModel,
    dropped: checkpoint.dropped,
    focus: checkpoint.focus,
    restored: checkpoint.restored || undefined,
  };
}

/** The gauge before any service exists: an empty conversation against the configured window. */
export function emptyBudgetView(settings: ContextKeeperSettings): BudgetView {
  const window = resolveContextWindow(settings.model, settings.contextWindow || undefined);
  const marks = thresholds({
    contextWindow: window,
    reservedOutput: settings.maxOutputTokens,
    compactAt: settings.compactAt,
    compactTo: settings.compactTo,
  });
  return {
    used: 0,
    window,
    reserved: marks.reservedOutput,
    inputBudget: marks.inputBudget,
    compactAt: marks.triggerTokens,
    compactAtFraction: settings.compactAt,
    compactTo: marks.targetTokens,
    compactToFraction: settings.compactTo,
    exact: false,
    breakdown: { system: 0, tools: 0, history: 0, summaries: 0, currentTask: 0 },
    model: settings.model,
    warnings: marks.warnings,
    autoCompact: settings.autoCompact,
  };
}

/** The window's one conversation, adapted for the sidebar, the status bar and the commands. */
export class SessionController implements vscode.Disposable {
  private readonly _onDidChange = new vscode.EventEmitter<void>();
  /** Fires after anything the views show may have changed. */
  readonly onDidChange = this._onDidChange.event;
  private readonly _onDidAddCheckpoint = new vscode.EventEmitter<CheckpointRecord>();
  /** Fires for each checkpoint the service adds (automatic or manual). */
  readonly onDidAddCheckpoint = this._onDidAddCheckpoint.event;
  private readonly _onDidRequestApproval = new vscode.EventEmitter<ApprovalRequest>();
  /** Fires when the agent waits for the user to approve an edit or a command. */
  readonly onDidRequestApproval = this._onDidRequestApproval.event;

  private service: ContextServiceApi | undefined;
  private opening: Promise<ContextServiceApi> | undefined;
  private serviceListeners: Array<{ dispose(): void }> = [];
  private readonly subscriptions: vscode.Disposable[] = [];
  private rebuildPending = false;
  private lastError: string | undefined;
  private readonly streaming = new Map<string, string>();
  private readonly running = new Set<string>();
  private readonly outcomes = new Map<string, boolean>();

  constructor(
    private readonly factory: ServiceFactory,
    private readonly settings: Settings,
    private readonly keys: KeyStore,
    private readonly memento: vscode.Memento,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscriptions.push(
      settings.onDidChange(() => this.requestRebuild('settings changed')),
      keys.onDidChange(() => this.requestRebuild('API key changed')),
    );
  }

  /** The service if it was opened already. */
  get current(): ContextServiceApi | undefined {
    return this.service;
  }

  /** The service, opened on first use. */
  async ensure(): Promise<ContextServiceApi> {
    if (this.service) return this.service;
    this.opening ??= this.open().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  /** Where the conversation came from, one line. */
  describeSource(): string {
    return this.memento.get<string>(SOURCE_KEY) ?? 'Agent session';
  }

  /** Replaces the conversation with an imported one and remembers where it came from. */
  async importTranscript(imported: ImportedTranscript, label: string): Promise<void> {
    const service = await this.ensure();
    await service.importTranscript(imported);
    this.resetLive();
    await this.memento.update(SESSION_KEY, service.sessionId);
    await this.memento.update(SOURCE_KEY, label);
    this._onDidChange.fire();
  }

  /** Starts a fresh, empty conversation (the old one stays on disk). */
  async startNewSession(): Promise<void> {
    await this.memento.update(SESSION_KEY, undefined);
    await this.memento.update(SOURCE_KEY, undefined);
    await this.rebuild('new session', true);
  }

  /** The gauge alone (cheap: for the status bar, which redraws on every event). */
  budgetView(): BudgetView {
    const service = this.service;
    return service ? toBudgetView(service.getBudget(), this.settings.value.autoCompact) : emptyBudgetView(this.settings.value);
  }

  /** The sidebar's complete state. */
  viewState(): ViewState {
    const settings = this.settings.value;
    const service = this.service;
    if (!service) {
      return {
        state: 'idle',
        source: this.describeSource(),
        budget: emptyBudgetView(settings),
        checkpoints: [],
        transcript: [],
        approvals: [],
        hasApiKey: this.keys.hasKey,
        error: this.lastError,
      };
    }
    const preview = service.getPreview();
    const transcript = transcriptItems(service.getTranscript().entries, {
      streaming: this.streaming,
      running: this.running,
      outcomes: this.outcomes,
    });
    return {
      state: service.getState().state,
      source: this.describeSource(),
      budget: toBudgetView(service.getBudget(), settings.autoCompact),
      checkpoints: service.getCheckpoints().map(toCheckpointView).reverse(),
      transcript: transcript.slice(-MAX_TRANSCRIPT_ITEMS),
      approvals: service.getPendingApprovals().map((request) => ({
        requestId: request.requestId,
        kind: request.kind,
        title: request.title,
        detail: request.detail,
      })),
      preview: preview && {
        summary: preview.summary,
        tokensBefore: preview.tokensBefore,
        tokensAfter: preview.tokensAfter,
        messagesReplaced: preview.replacedIds.length,
      },
      hasApiKey: this.keys.hasKey,
      error: this.lastError,
    };
  }

  /** Shows `message` as the sidebar's error banner until the agent starts working again. */
  reportError(message: string): void {
    this.lastError = message;
    this._onDidChange.fire();
  }

  /** The coarse state, `idle` before the service exists. */
  state(): ServiceState {
    return this.service?.getState().state ?? 'idle';
  }

  private async open(): Promise<ContextServiceApi> {
    const service = await this.factory({
      settings: this.settings.value,
      apiKey: await this.keys.get(),
      sessionId: this.memento.get<string>(SESSION_KEY),
    });
    await this.memento.update(SESSION_KEY, service.sessionId);
    // Attached last and synchronously: nobody sees a service that is still being set up.
    this.attach(service);
    // A banner from an earlier failed open no longer holds once a service is open.
    this.lastError = undefined;
    this.log.info(`Context service ready (session ${service.sessionId}).`);
    this._onDidChange.fire();
    if (this.rebuildPending) void this.rebuild('settings changed while opening');
    return service;
  }

  private attach(service: ContextServiceApi): void {
    this.detach();
    this.service = service;
    const changed = () => this._onDidChange.fire();
    this.serviceListeners = [
      service.onDidChangeBudget(changed),
      service.onDidAddCheckpoint((checkpoint) => {
        this._onDidAddCheckpoint.fire(checkpoint);
        changed();
      }),
      service.onDidRestoreCheckpoint(changed),
      service.onDidChangeState((change) => {
        if (change.state === 'error') this.lastError = change.detail ?? 'The agent stopped with an error.';
        else if (change.state !== 'idle') this.lastError = undefined;
        if (change.state === 'idle' && this.rebuildPending) void this.rebuild('deferred');
        changed();
      }),
      service.onDidStreamText((event) => {
        this.streaming.set(event.entryId, (this.streaming.get(event.entryId) ?? '') + event.delta);
        changed();
      }),
      service.onDidAppendEntry((event) => {
        this.streaming.delete(event.entry.id);
        changed();
      }),
      service.onDidStartToolCall((event) => {
        this.running.add(event.callId);
        changed();
      }),
      service.onDidFinishToolCall((event) => {
        this.running.delete(event.callId);
        this.outcomes.set(event.callId, event.ok);
        changed();
      }),
      service.onDidRequestApproval((request) => {
        this._onDidRequestApproval.fire(request);
        changed();
      }),
      service.onDidChangePreview(changed),
    ];
  }

  private detach(): void {
    for (const listener of this.serviceListeners) listener.dispose();
    this.serviceListeners = [];
    this.service?.dispose();
    this.service = undefined;
    this.resetLive();
  }

  private resetLive(): void {
    this.streaming.clear();
    this.running.clear();
    this.outcomes.clear();
  }

  private requestRebuild(reason: string): void {
    if (!this.service) {
      // A service being opened was built from the old settings: rebuild it once it is there.
      if (this.opening) this.rebuildPending = true;
      // The last open failed: the change (a key, an endpoint) may be the fix, so try again.
      else if (this.lastError) {
        void this.rebuild(reason, true);
        return;
      }
      this._onDidChange.fire();
      return;
    }
    if (this.service.getState().state !== 'idle' && this.service.getState().state !== 'error') {
      this.rebuildPending = true;
      this.log.info(`Settings change deferred until the agent is idle (${reason}).`);
      return;
    }
    void this.rebuild(reason);
  }

  private async rebuild(reason: string, force = false): Promise<void> {
    this.rebuildPending = false;
    // Let an open in flight finish first, so `ensure()` below cannot hand out the old instance.
    if (this.opening) await this.opening.catch(() => undefined);
    if (!this.service && !force) return;
    this.log.info(`Reloading the context service (${reason}).`);
    this.detach();
    try {
      await this.ensure();
    } catch (error) {
      this.lastError = error instanceof Error ? error.message : String(error);
      this.log.error(`Could not open the context service: ${this.lastError}`);
      this._onDidChange.fire();
    }
  }

  dispose(): void {
    this.detach();
    for (const subscription of this.subscriptions) subscription.dispose();
    this._onDidChange.dispose();
    this._onDidAddCheckpoint.dispose();
    this._onDidRequestApproval.dispose();
  }
}
