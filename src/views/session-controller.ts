/**
 * Owns the context service of the session shown in this window and adapts it for the views.
 *
 * - Opens the service lazily (first sidebar view, first command, or shortly after startup when a
 *   session was open before, so the status bar shows its real level), so activation loads no tokenizer.
 * - Rebuilds it when settings or the API key change, resuming the same session from disk; a rebuild
 *   asked for while the agent works, or while a summary preview waits, waits until the service is
 *   idle and the preview applied or discarded.
 * - Keeps the workspace's session list: New Session, switch, rename, delete; an import opens as its
 *   own read-only session beside the working ones and can be continued in a new working session.
 * - Feeds the service's events into the sidebar's {@link SidebarModel} (deltas while a task runs).
 */
import * as vscode from 'vscode';
import { compactionLogLine } from './compaction-log';
import { DisposableStore } from '../lifecycle/disposables';
import type { ContextServiceApi } from '../service/api';
import type { ApprovalRequest } from '../agent/types';
import { resolveContextWindow, thresholds } from '../compaction/plan/budget';
import type { BudgetView, ErrorView, ViewState } from '../webview/shared/protocol';
import type { ContextKeeperSettings, Settings } from '../settings/settings';
import type { KeyStore } from '../secrets/key-store';
import { OPENAI_URL } from './onboarding';
import { recordingWindow } from '../models/recorded';
import type { ModelFailure } from '../compaction/outcome';
import { modelErrorFixes } from './notices';
import { continuedLabel, SessionList } from './session-list';
import type { SavedSession } from '../service/session/saved-sessions';
import { feedSidebar } from './sidebar/sidebar-feed';
import { SidebarModel } from './sidebar/view-model';
import { countAsImported } from './import-count';
import { cancelAndWait } from './commands/task-cancel';
import type { CheckpointRecord, ImportedTranscript, ServiceState } from '../service/records';
import { toBudgetView } from './sidebar/view-mappers';
import { errorMessage } from '../format/error-message';
import { notify } from './notify';

/** Everything the factory needs to build one service instance. */
export interface ServiceInput {
  settings: ContextKeeperSettings;
  apiKey: string | undefined;
  /** Session to resume, or undefined for a new one. */
  sessionId: string | undefined;
  /**
   * Set for an imported recording: the model it was recorded with (undefined when it names none).
   * Its gauge measures against that model's window (see `recordingWindow`); `promptTokens`, the
   * provider's reported prompt tokens of its newest request, is shown beside the gauge's count.
   */
  recording?: { model: string | undefined; promptTokens?: number; window?: number };
}

/** What the factory needs to know of an imported recording's session record. */
function recordingOf(record: {
  recordedModel?: string;
  recordedPromptTokens?: number;
  recordedWindow?: number;
}): NonNullable<ServiceInput['recording']> {
  return {
    model: record.recordedModel,
    ...(record.recordedWindow !== undefined ? { window: record.recordedWindow } : {}),
    ...(record.recordedPromptTokens !== undefined ? { promptTokens: record.recordedPromptTokens } : {}),
  };
}

/** Builds a context service; supplied by the composition root. */
export type ServiceFactory = (input: ServiceInput) => Promise<ContextServiceApi>;

/** The saved sessions whose ids are not in `known`, read from their folders (see `listSavedSessions`). */
export type SavedSessionLister = (known: ReadonlySet<string>) => Promise<SavedSession[]>;

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
    breakdown: { system: 0, instructions: 0, tools: 0, history: 0, summaries: 0, currentTask: 0, harness: 0 },
    model: settings.model,
    warnings: marks.warnings,
    autoCompact: settings.autoCompact,
  };
}

/** The window's shown conversation, adapted for the sidebar, the status bar and the commands. */
export class SessionController implements vscode.Disposable {
  /** Subscriptions and emitters of the controller's lifetime. */
  private readonly store = new DisposableStore();
  /** Listeners on the attached service; cleared on every switch. */
  private readonly serviceListeners = new DisposableStore();
  private readonly _onDidChange = this.store.add(new vscode.EventEmitter<void>());
  /** Fires after anything the views show may have changed. */
  readonly onDidChange = this._onDidChange.event;
  private readonly _onDidAddCheckpoint = this.store.add(new vscode.EventEmitter<CheckpointRecord>());
  /** Fires for each checkpoint the service adds (automatic or manual). */
  readonly onDidAddCheckpoint = this._onDidAddCheckpoint.event;
  private readonly _onDidRequestApproval = this.store.add(new vscode.EventEmitter<ApprovalRequest>());
  /** Fires when the agent waits for the user to approve an edit or a command. */
  readonly onDidRequestApproval = this._onDidRequestApproval.event;
  private readonly _onDidSwitchSession = this.store.add(new vscode.EventEmitter<void>());
  /** Fires when the shown session was opened, closed or replaced (the sidebar then needs a complete snapshot). */
  readonly onDidSwitchSession = this._onDidSwitchSession.event;

  /** The sidebar's model of the shown session. */
  readonly model: SidebarModel;
  readonly sessions: SessionList;
  private service: ContextServiceApi | undefined;
  private opening: Promise<ContextServiceApi> | undefined;
  private rebuildPending = false;
  private lastError: ErrorView | undefined;
  /** Settles once the sessions saved on disk but missing from the list are listed (see {@link restoreSaved}). */
  readonly whenListed: Promise<void>;

  /** @param savedSessions reads the session folders, to list the saved sessions the list lacks */
  constructor(
    private readonly factory: ServiceFactory,
    private readonly settings: Settings,
    private readonly keys: KeyStore,
    memento: vscode.Memento,
    private readonly log: vscode.LogOutputChannel,
    savedSessions?: SavedSessionLister,
  ) {
    this.sessions = new SessionList(memento);
    this.whenListed = savedSessions ? this.restoreSaved(savedSessions) : Promise.resolve();
    this.model = new SidebarModel(undefined, this.chrome(), () => ({
      autoCompact: settings.value.autoCompact,
      emptyBudget: emptyBudgetView(settings.value),
    }));
    this.store.addAll(
      settings.onDidChange(() => this.requestRebuild('settings changed')),
      keys.onDidChange(() => this.requestRebuild('API key changed')),
    );
  }

  /**
   * Lists the sessions saved on disk that the list lacks: the list lives in the workspace state, which
   * the editor writes when it sees fit (a killed editor loses its latest records), while each session's
   * folder is written as the session goes. Runs once, at startup; the session to resume is chosen after
   * it. Never rejects: a failure is logged and the list stays as it was.
   */
  private async restoreSaved(savedSessions: SavedSessionLister): Promise<void> {
    try {
      const added = await this.sessions.restore(await savedSessions(new Set(this.sessions.all().map((s) => s.id))));
      if (added === 0) return;
      this.log.info(`Listed ${added} saved session(s) missing from the session list, from their folders.`);
      this.changed();
    } catch (error) {
      this.log.warn(`The saved sessions were not read from their folders: ${errorMessage(error)}`);
    }
  }

  /** The service if it was opened already. */
  get current(): ContextServiceApi | undefined {
    return this.service;
  }

  /** True when the shown session is an imported recording (no tasks run in it). */
  get readOnly(): boolean {
    return this.sessions.get(this.service?.sessionId ?? this.sessions.currentId)?.kind === 'imported';
  }

  /** The session open in this workspace before, if any (the status bar shows it at startup). */
  get storedSessionId(): string | undefined {
    return this.sessions.currentId;
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
    const session = this.sessions.get(this.service?.sessionId ?? this.sessions.currentId);
    if (!session) return 'Agent session';
    if (session.kind === 'working') return `Agent session: ${session.label}`;
    const configured = emptyBudgetView(this.settings.value);
    const budget = this.service?.getBudget();
    const shown = recordingWindow(
      session.recordedModel,
      { model: budget?.model ?? configured.model, window: budget?.window ?? configured.window },
      session.recordedWindow,
      this.settings.value.contextWindow,
    );
    return `Imported recording: ${session.label}, ${shown.note}`;
  }

  /** Opens `imported` as a new read-only session; the working session stays on disk, untouched. */
  async importTranscript(
    imported: ImportedTranscript,
    label: string,
    recordedModel?: string,
    recordedPromptTokens?: number,
    recordedWindow?: number,
  ): Promise<void> {
    await this.openNew(imported, {
      label,
      kind: 'imported',
      recordedModel,
      ...(recordedPromptTokens !== undefined ? { recordedPromptTokens } : {}),
      ...(recordedWindow !== undefined ? { recordedWindow } : {}),
    });
  }

  /**
   * Forks the shown (imported) session into a new working session that starts from its current
   * context (compacted as it stands), with its checkpoints, pins and every raw entry, so what the
   * summaries replaced stays inspectable and restorable there.
   */
  async continueInNewTask(): Promise<void> {
    const service = await this.ensure();
    const from = this.sessions.get(service.sessionId);
    const { entries, context, checkpoints, pinned } = service.exportTranscript();
    const source = from?.label ?? service.sessionId;
    await this.openNew(
      { source, entries, state: { context, checkpoints, pinned } },
      { label: continuedLabel(from?.label ?? 'session'), kind: 'working' },
    );
  }

  /** Renames session `id` and shows the new name at once (list, header). */
  async renameSession(id: string, label: string): Promise<void> {
    await this.sessions.rename(id, label);
    this.changed();
  }

  /** Starts a fresh, empty working session (the others stay on disk and in the list). */
  async startNewSession(): Promise<void> {
    this.assertIdle();
    await this.sessions.setCurrent(undefined);
    await this.rebuild('new session', true);
  }

  /** Shows session `id`. */
  async switchTo(id: string): Promise<void> {
    if (id === this.service?.sessionId) return;
    this.assertIdle();
    await this.sessions.setCurrent(id);
    await this.rebuild('switch session', true);
  }

  /**
   * Ids of sessions whose task is being cancelled so they can be deleted: the task's own end says
   * nothing then ("What the agent did so far is kept" would contradict the deletion the user chose).
   */
  readonly deleting = new Set<string>();

  /** Forgets session `id` (and deletes its folder); shows another one when it was shown. */
  async deleteSession(id: string): Promise<void> {
    const shown = id === this.service?.sessionId;
    if (shown) this.assertIdle();
    const dir = this.service?.sessionDir;
    if (shown) {
      // Leave the session before its folder goes: disposing its service writes any pending save,
      // and nothing can write into the folder after it is deleted.
      const next = this.sessions.all().find((s) => s.id !== id);
      if (next) await this.switchTo(next.id);
      else await this.startNewSession();
    }
    await this.sessions.remove(id);
    if (dir) {
      const target = vscode.Uri.joinPath(vscode.Uri.file(dir), '..', id);
      await vscode.workspace.fs.delete(target, { recursive: true, useTrash: false }).then(undefined, () => undefined);
    }
    this.changed();
  }

  /** The gauge alone (cheap: for the status bar, which redraws on every event). */
  budgetView(): BudgetView {
    const service = this.service;
    if (!service) return emptyBudgetView(this.settings.value);
    const budget = toBudgetView(service.getBudget(), this.settings.value.autoCompact);
    // As the gauge: an imported recording is named by the model it was recorded with.
    const record = this.sessions.get(service.sessionId);
    const recorded = record?.kind === 'imported' ? record.recordedModel?.trim() : undefined;
    const view = recorded ? { ...budget, model: recorded } : budget;
    // As the gauge: the recorded figure is compared with the recording as imported once compacted.
    const imported = view.recordedPromptTokens !== undefined ? countAsImported(service.getCheckpoints()) : undefined;
    return imported !== undefined ? { ...view, importedTokens: imported } : view;
  }

  /** The sidebar's complete state, without sending it (for the extension's API and tests). */
  viewState(): ViewState {
    this.model.setChrome(this.chrome());
    return this.model.peek();
  }

  /** Brings the chrome (source, key, error, sessions) up to date before a flush. */
  syncChrome(): void {
    this.model.setChrome(this.chrome());
  }

  /**
   * Shows `message` as the sidebar's error banner, naming the endpoint, until the agent works again.
   * For a failed model call, the fixes are decided from `failure` (kind and HTTP status), never from
   * the message's words (see `modelErrorFixes`).
   */
  reportError(message: string, fromModelCall = false, failure?: ModelFailure, task?: string): void {
    const endpoint = this.settings.value.baseUrl || OPENAI_URL;
    this.lastError = {
      message,
      endpoint: fromModelCall ? endpoint : undefined,
      actions: fromModelCall ? modelErrorFixes(failure, this.needsKey) : ['showLog'],
      ...(task !== undefined ? { retryTask: task } : {}),
    };
    this.changed();
  }

  /** The task that failed last, while its error is shown (Retry sends it again); undefined otherwise. */
  get failedTask(): string | undefined {
    return this.lastError?.retryTask;
  }

  /** True when no key is stored and the endpoint is the OpenAI default, which needs one. */
  get needsKey(): boolean {
    return !this.keys.hasKey && !this.settings.value.baseUrl;
  }

  /** The coarse state, `idle` before the service exists; `error` after a failed task until the next one. */
  state(): ServiceState {
    const state = this.service?.getState().state ?? 'idle';
    return state === 'idle' && this.lastError?.retryTask !== undefined ? 'error' : state;
  }

  /**
   * True while the shown session's task or a compaction runs: then it may not be deleted, left or
   * rebuilt. Asks the task itself, not the state alone: a failed save shows `error` while a task goes on.
   */
  get busy(): boolean {
    const state = this.state();
    return this.service?.taskRunning === true || (state !== 'idle' && state !== 'error');
  }

  /**
   * Cancels the shown session's task (and any compaction) and resolves once it has ended, so what a
   * running task forbids can follow at once. Resolves at once when nothing runs.
   * @throws Error when the task has not ended within `timeoutMs` milliseconds of the cancel.
   */
  async cancelTask(timeoutMs = 10_000): Promise<void> {
    if (this.service) await cancelAndWait(this.service, () => this.busy, timeoutMs);
  }

  private chrome() {
    return {
      source: this.describeSource(),
      hasApiKey: this.keys.hasKey,
      error: this.lastError,
      sessions: this.sessions.all(),
      sessionId: this.service?.sessionId ?? this.sessions.currentId,
      readOnly: this.readOnly,
    };
  }

  private changed(): void {
    this._onDidChange.fire();
  }

  private assertIdle(): void {
    if (this.busy) throw new Error('The agent is working: cancel the task or wait for it to end first.');
  }

  /** Builds a new session holding `imported` and shows it. */
  private async openNew(
    imported: ImportedTranscript,
    record: {
      label: string;
      kind: 'working' | 'imported';
      recordedModel?: string;
      recordedPromptTokens?: number;
      recordedWindow?: number;
    },
  ): Promise<void> {
    this.assertIdle();
    if (this.opening) await this.opening.catch(() => undefined);
    const recording = record.kind === 'imported' ? recordingOf(record) : undefined;
    const service = await this.factory({
      settings: this.settings.value,
      apiKey: await this.keys.get(),
      sessionId: undefined,
      recording,
    });
    try {
      await service.importTranscript(imported);
    } catch (error) {
      service.dispose();
      throw error;
    }
    await this.sessions.upsert({ id: service.sessionId, ...record, updated: new Date().toISOString() });
    await this.sessions.setCurrent(service.sessionId);
    this.attach(service);
    this.log.info(`Opened ${record.kind} session ${service.sessionId} (${record.label}).`);
    this.changed();
  }

  private async open(): Promise<ContextServiceApi> {
    // The session to resume, and its record, may come from the folders.
    await this.whenListed;
    const record = this.sessions.get(this.sessions.currentId);
    const recording = record?.kind === 'imported' ? recordingOf(record) : undefined;
    const service = await this.factory({
      settings: this.settings.value,
      apiKey: await this.keys.get(),
      sessionId: this.sessions.currentId,
      recording,
    });
    await this.sessions.setCurrent(service.sessionId);
    await this.sessions.ensureListed(service.sessionId, new Date());
    // Attached last and synchronously: nobody sees a service that is still being set up.
    this.attach(service);
    // A banner from an earlier failed open no longer holds once a service is open.
    this.lastError = undefined;
    this.log.info(`Context service ready (session ${service.sessionId}).`);
    this.changed();
    if (this.rebuildPending) void this.rebuild('settings changed while opening');
    return service;
  }

  private attach(service: ContextServiceApi): void {
    this.detach();
    this.service = service;
    this.model.reset(service);
    const changed = () => this.changed();
    this.serviceListeners.addAll(
      feedSidebar(service, this.model, changed),
      service.onDidAddCheckpoint((checkpoint) => {
        this.log.info(compactionLogLine(checkpoint));
        this._onDidAddCheckpoint.fire(checkpoint);
      }),
      service.onDidChangeState((change) => {
        if (change.state === 'error')
          this.reportError(change.detail ?? 'The agent stopped with an error.', true, change.failure);
        else if (change.state !== 'idle') this.lastError = undefined;
        if (change.state === 'idle')
          void this.sessions.upsert({ ...this.sessions.get(service.sessionId)!, updated: new Date().toISOString() });
        if (change.state === 'idle' && this.rebuildPending && !service.taskRunning && !service.getPreview())
          void this.rebuild('deferred');
      }),
      // A rebuild deferred while a preview waited runs once it is applied or discarded (after the
      // apply that ended it has returned: the service is not disposed under its caller).
      service.onDidChangePreview((preview) => {
        if (!preview && this.rebuildPending)
          queueMicrotask(() => {
            if (this.rebuildPending && !this.busy && !this.service?.getPreview()) void this.rebuild('deferred');
          });
      }),
      service.onDidRequestApproval((request) => this._onDidRequestApproval.fire(request)),
      // The preview card and its review document go with the preview; say why it went.
      service.onDidDropPreview((why) => {
        void notify('info', `ContextKeeper: summary preview discarded: ${why}.`);
      }),
      service.onDidAppendEntry(({ entry }) => {
        // The first task names a new session (a name given by the user stays).
        if (entry.message.role !== 'user' || typeof entry.message.content !== 'string') return;
        void this.sessions.nameByTask(service.sessionId, entry.message.content).then(
          (renamed) => renamed && this.changed(),
          (error: unknown) => this.log.warn(`The session was not named after its task: ${String(error)}`),
        );
      }),
    );
    this._onDidSwitchSession.fire();
  }

  private detach(): void {
    this.serviceListeners.clear();
    this.service?.dispose();
    this.service = undefined;
    this.model.reset(undefined);
    this._onDidSwitchSession.fire();
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
      this.changed();
      return;
    }
    // Reopening would end a running task, or throw away a summary preview the user is reviewing.
    if (this.busy || this.service.getPreview()) {
      this.rebuildPending = true;
      this.log.info(
        `Settings change deferred until ${this.busy ? 'the agent is idle' : 'the summary preview is applied or discarded'} (${reason}).`,
      );
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
      this.reportError(`Could not open the session: ${errorMessage(error)}`);
      this.log.error('Could not open the context service:', error);
    }
  }

  dispose(): void {
    this.detach();
    this.serviceListeners.dispose();
    this.store.dispose();
  }
}
