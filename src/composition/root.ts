/**
 * Composition root: builds the logger, settings, key store, session controller, status bar, sidebar,
 * checkpoint documents, approvals and commands with plain constructors, wires their events, and puts
 * every one of them in one {@link DisposableStore}. Nothing else happens here; in particular no
 * tokenizer is loaded and no service is opened until first use (see ./service-factory).
 */
import * as vscode from 'vscode';
import { importTranscriptText } from '../transcripts';
import { coalesce } from '../lifecycle/coalesce';
import { DisposableStore, toDisposable } from '../lifecycle/disposables';
import { KeyStore } from '../secrets/key-store';
import { redactingLog } from '../secrets/redacting-log';
import { Settings } from '../settings/settings';
import { registerAgentSessions } from '../views/commands/agent-sessions-commands';
import { AgentSessionsView } from '../views/agent-sessions';
import { ApprovalPresenter } from '../views/approvals';
import { CHECKPOINT_SCHEME, CheckpointDocumentProvider } from '../views/documents/checkpoint-documents';
import { registerCommands } from '../views/commands/commands';
import { ContextKeys } from '../views/onboarding';
import { showPreviewEdits } from '../views/documents/preview-review';
import { ReadOnlyDocuments } from '../views/documents/read-only-documents';
import type { ViewState } from '../webview/shared/protocol';
import { SessionController } from '../views/session-controller';
import { SidebarProvider } from '../views/sidebar/sidebar-provider';
import { StatusBarMeter } from '../views/status-bar';
import { LastBudgetMemory } from '../views/sidebar/last-budget';
import { createServiceFactory, sessionsDir } from './service-factory';
import { listSavedSessions } from '../service/session/saved-sessions';
import { configureHttpWorker } from './http-worker';
import { checkpointLookup, checkpointRunLookup } from '../views/documents/checkpoint-lookup';
import { errorMessage } from '../format/error-message';
import { setDisplayLocale } from '../format/display';

/** What other extensions (and the end-to-end tests) can read. */
export interface ContextKeeperApi {
  /** The sidebar's current state: budget, checkpoints, transcript. */
  getViewState(): ViewState;
  /** Fires after anything in the view state may have changed. */
  readonly onDidChange: vscode.Event<void>;
}

/** The running extension: its API and everything to dispose on deactivation. */
export interface ComposedExtension {
  readonly api: ContextKeeperApi;
  readonly disposables: DisposableStore;
}

/** Builds and wires the extension for `context`. */
export function composeExtension(context: vscode.ExtensionContext): ComposedExtension {
  // Times and figures in VS Code's display language, as the editor writes its own.
  setDisplayLocale(vscode.env.language);
  const store = new DisposableStore();
  const channel = store.add(vscode.window.createOutputChannel('ContextKeeper', { log: true }));
  const keys = store.add(new KeyStore(context.secrets));
  // Every log line is redacted with the stored key (servers echo it in errors, masked or encoded).
  let storedKey: string | undefined;
  const loadKey = () =>
    void keys.get().then(
      (key) => (storedKey = key),
      () => undefined,
    );
  loadKey();
  store.add(keys.onDidChange(loadKey));
  const log = redactingLog(channel, () => storedKey);
  // Model calls run their HTTP work off this thread where the editor's proxy support allows (./http-worker).
  store.add(configureHttpWorker(log));
  const settings = store.add(new Settings(log));
  const controller = store.add(
    new SessionController(createServiceFactory(context, log), settings, keys, context.workspaceState, log, (known) =>
      listSavedSessions(sessionsDir(context), known),
    ),
  );
  const statusBar = store.add(new StatusBarMeter());
  const lastBudget = new LastBudgetMemory(context.workspaceState);
  const readOnly = store.add(new ReadOnlyDocuments());
  const documents = store.add(
    new CheckpointDocumentProvider(
      checkpointLookup(controller, sessionsDir(context)),
      () => controller.current?.sessionId,
      checkpointRunLookup(controller, sessionsDir(context)),
    ),
  );
  // Set when opening the stored session failed: the status bar stops saying it is loading.
  let openFailed = false;
  const openSession = () =>
    void controller.ensure().catch((error: unknown) => {
      openFailed = true;
      log.error('Could not open the session:', error);
      controller.reportError(`Could not open the session: ${errorMessage(error)}`);
    });
  const sidebar = store.add(new SidebarProvider(context.extensionUri, () => controller.model, log, openSession));
  const approvals = store.add(new ApprovalPresenter(controller));
  const contextKeys = store.add(new ContextKeys());

  const agentRegistrations = registerAgentSessions(log, readOnly, context.extensionUri);
  const agents = agentRegistrations.find((d): d is AgentSessionsView => d instanceof AgentSessionsView);
  /**
   * When a task of ours last ran or the sidebar was given another session to show (ms): the watched
   * agent takes the status bar only when active after it, so the status bar shows the session the
   * sidebar shows until the agent works again. A window that opens on a session of this workspace (a
   * reload) counts from its opening: activity of the agent from before it does not take the status
   * bar from the session the sidebar shows.
   */
  let lastOwnActivity = controller.storedSessionId !== undefined ? Date.now() : 0;
  /** The session the sidebar shows (or will show once opened), to tell when it shows another. */
  let shownSession = controller.storedSessionId;

  // One coalesced redraw: status bar, context keys, then the sidebar (a delta, or a snapshot after a switch).
  let snapshotDue = false;
  const render = store.add(
    coalesce(() => {
      const state = controller.state();
      const budget = controller.budgetView();
      const service = controller.current;
      const loading = !service && controller.storedSessionId !== undefined && !openFailed;
      if (service?.sessionId) lastBudget.remember(service.sessionId, budget);
      if (state !== 'idle') lastOwnActivity = Date.now();
      if (service?.sessionId !== undefined && service.sessionId !== shownSession) {
        shownSession = service.sessionId;
        lastOwnActivity = Date.now();
      }
      // While no task of ours runs, the status bar follows the watched agent when it was active since.
      const agentGauge =
        state === 'idle' && agents && agents.lastActivity >= lastOwnActivity ? agents.gaugeView() : undefined;
      if (agentGauge) statusBar.showAgent(agentGauge);
      else if (!service && controller.storedSessionId === undefined) statusBar.showNoSession();
      else statusBar.update(budget, state, loading, loading ? lastBudget.get(controller.storedSessionId) : undefined);
      contextKeys.update({
        state,
        needsSetup: !keys.hasKey && settings.value.baseUrl === '',
        // The Get Started view gives way to the Context view once there is a session to show.
        hasSession: controller.model.hasEntries,
        hasApiKey: keys.hasKey,
        hasCheckpoints: (service?.getCheckpoints().length ?? 0) > 0,
        // Compact is offered only when something is eligible (the sidebar's button says why not).
        canCompact: service !== undefined && service.compactBlocker() === undefined,
        hasPreview: service?.getPreview() !== undefined,
        canUndoRestore: service?.getUndoableRestore() !== undefined,
        readOnly: controller.readOnly,
      });
      controller.syncChrome();
      if (snapshotDue) sidebar.refresh();
      else sidebar.flush();
      snapshotDue = false;
    }),
  );
  render.schedule();
  void keys.whenLoaded.then(() => render.schedule());
  // A session open before the reload: show its real level in the status bar soon after startup.
  const startup = setTimeout(() => {
    if (controller.storedSessionId !== undefined) openSession();
  }, 1_500);

  store.addAll(
    toDisposable(() => clearTimeout(startup)),
    controller.onDidSwitchSession(() => {
      snapshotDue = true;
      render.schedule();
      // A document that names no session reads the shown one (one restored with the window reads it once opened).
      documents.refresh();
    }),
    vscode.window.registerWebviewViewProvider(SidebarProvider.viewId, sidebar),
    vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, documents),
    // Served as a file system too: the workbench keeps only such editors across a window reload.
    vscode.workspace.registerFileSystemProvider(CHECKPOINT_SCHEME, documents, {
      isCaseSensitive: true,
      isReadonly: true,
    }),
    controller.onDidChange(() => render.schedule()),
    controller.onDidAddCheckpoint(() => documents.refresh()),
    keys.onDidChange(() => render.schedule()),
    sidebar.onDidEditPreview((texts) =>
      showPreviewEdits(controller.current, texts, (tokensAfter) => sidebar.showPreviewTokens(tokensAfter)),
    ),
    settings.onDidChange(() => render.schedule()),
    // eslint-disable-next-line no-restricted-syntax -- bounded: one disposable per contributed command
    ...registerCommands({
      controller,
      keys,
      settings,
      sidebar,
      documents,
      importer: (bytes, fileName) => importTranscriptText(bytes, fileName),
      log,
      readOnly,
    }),
    // eslint-disable-next-line no-restricted-syntax -- bounded: the disposables of one view
    ...agentRegistrations,
    vscode.commands.registerCommand('contextKeeper.allowProposedEdit', () => approvals.answerActive(true)),
    vscode.commands.registerCommand('contextKeeper.denyProposedEdit', () => approvals.answerActive(false)),
  );
  if (agents) store.add(agents.onDidUpdateGauge(() => render.schedule()));
  log.info(`ContextKeeper ${String((context.extension.packageJSON as { version?: unknown }).version)} activated.`);
  return {
    api: { getViewState: () => controller.viewState(), onDidChange: controller.onDidChange },
    disposables: store,
  };
}
