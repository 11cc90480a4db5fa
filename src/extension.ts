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
  const sidebar = new SidebarProvider(context.extensionUri, () => controller.viewState(), log, openSession);
  const approvals = new ApprovalPresenter(controller);

  const render = coalesce(() => {
    statusBar.update(controller.budgetView(), controller.state());
    sidebar.refresh();
  });
  render.schedule();
  void keys.whenLoaded.then(() => render.schedule());

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
    render,
    vscode.window.registerWebviewViewProvider(SidebarProvider.viewId, sidebar),
    vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, documents),
    controller.onDidChange(() => render.schedule()),
    controller.onDidAddCheckpoint(() => documents.refresh()),
    keys.onDidChange(() => render.schedule()),
    ...registerCommands({ controller, keys, settings, sidebar, documents, importer: (bytes, fileName) => importTranscriptText(bytes, fileName), log }),
  );
  log.info(`ContextKeeper ${String(context.extension.packageJSON.version)} activated.`);
  return { getViewState: () => controller.viewState(), onDidChange: controller.onDidChange };
}

/** Everything is disposed through `context.subscriptions`. */
export function deactivate(): void {}
