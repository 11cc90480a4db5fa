/**
 * Composition root: builds the logger, settings, key store, session controller, status bar, sidebar,
 * checkpoint documents, approvals and commands, and registers all of them for disposal. Nothing else
 * happens here; in particular no tokenizer is loaded and no service is opened until first use.
 */
import * as vscode from 'vscode';
import { importTranscriptText } from './transcripts';
import { ApprovalPresenter } from './views/approvals';
import { CHECKPOINT_SCHEME, CheckpointDocumentProvider } from './views/checkpoint-documents';
import { coalesce } from './views/coalesce';
import { registerCommands } from './views/commands';
import { KeyStore } from './views/key-store';
import { ContextKeys } from './views/onboarding';
import { reviewDocumentText } from './views/preview-review';
import { redactingLog } from './views/redacting-log';
import { createServiceFactory } from './views/service-factory';
import { SessionController } from './views/session-controller';
import { Settings } from './views/settings';
import { SidebarProvider } from './views/sidebar-provider';
import { StatusBarMeter } from './views/status-bar';
import type { ViewState } from './views/protocol';

/** What other extensions (and the end-to-end tests) can read. */
export interface ContextKeeperApi {
  /** The sidebar's current state: budget, checkpoints, transcript. */
  getViewState(): ViewState;
  /** Fires after anything in the view state may have changed. */
  readonly onDidChange: vscode.Event<void>;
}

/** Called by VS Code on first use of a contribution. */
export function activate(context: vscode.ExtensionContext): ContextKeeperApi {
  const channel = vscode.window.createOutputChannel('ContextKeeper', { log: true });
  const keys = new KeyStore(context.secrets);
  // Every log line is redacted with the stored key (servers echo it in errors, masked or encoded).
  let storedKey: string | undefined;
  const loadKey = () => void keys.get().then((key) => (storedKey = key), () => undefined);
  loadKey();
  const log = redactingLog(channel, () => storedKey);
  const settings = new Settings();
  const controller = new SessionController(createServiceFactory(context, log), settings, keys, context.workspaceState, log);
  const statusBar = new StatusBarMeter();
  const documents = new CheckpointDocumentProvider((id) => controller.current?.getCheckpoints().find((c) => c.id === id));
  const openSession = () =>
    void controller.ensure().catch((error: unknown) => {
      log.error(`Could not open the session: ${error instanceof Error ? error.message : String(error)}`);
      controller.reportError(`Could not open the session: ${error instanceof Error ? error.message : String(error)}`);
    });
  const sidebar = new SidebarProvider(context.extensionUri, () => controller.model, log, openSession);
  const approvals = new ApprovalPresenter(controller);
  const contextKeys = new ContextKeys();

  // One coalesced redraw: status bar, context keys, then the sidebar (a delta, or a snapshot after a switch).
  let snapshotDue = false;
  const render = coalesce(() => {
    const state = controller.state();
    statusBar.update(controller.budgetView(), state);
    const service = controller.current;
    contextKeys.update({
      state,
      needsSetup: !keys.hasKey && settings.value.baseUrl === '',
      hasApiKey: keys.hasKey,
      hasCheckpoints: (service?.getCheckpoints().length ?? 0) > 0,
      hasPreview: service?.getPreview() !== undefined,
      readOnly: controller.readOnly,
    });
    controller.syncChrome();
    if (snapshotDue) sidebar.refresh();
    else sidebar.flush();
    snapshotDue = false;
  });
  render.schedule();
  void keys.whenLoaded.then(() => render.schedule());
  // A session open before the reload: show its real level in the status bar soon after startup.
  const startup = setTimeout(() => {
    if (controller.hasStoredSession) openSession();
  }, 1_500);

  context.subscriptions.push(
    channel,
    keys.onDidChange(loadKey),
    settings,
    keys,
    controller,
    statusBar,
    documents,
    sidebar,
    approvals,
    contextKeys,
    render,
    { dispose: () => clearTimeout(startup) },
    controller.onDidSwitchSession(() => {
      snapshotDue = true;
      render.schedule();
    }),
    vscode.window.registerWebviewViewProvider(SidebarProvider.viewId, sidebar),
    vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, documents),
    controller.onDidChange(() => render.schedule()),
    controller.onDidAddCheckpoint(() => documents.refresh()),
    keys.onDidChange(() => render.schedule()),
    settings.onDidChange(() => render.schedule()),
    ...registerCommands({ controller, keys, settings, sidebar, documents, importer: (bytes, fileName) => importTranscriptText(bytes, fileName), log, previewText: reviewDocumentText }),
    vscode.commands.registerCommand('contextKeeper.allowProposedEdit', () => approvals.answerActive(true)),
    vscode.commands.registerCommand('contextKeeper.denyProposedEdit', () => approvals.answerActive(false)),
  );
  log.info(`ContextKeeper ${String((context.extension.packageJSON as { version?: unknown }).version)} activated.`);
  return { getViewState: () => controller.viewState(), onDidChange: controller.onDidChange };
}

/** Everything is disposed through `context.subscriptions`. */
export function deactivate(): void {}
