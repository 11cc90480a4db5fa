/**
 * The sidebar webview view. A thin transport: it renders the HTML shell, validates every message the
 * webview posts (see `protocol.ts`), turns user actions into the extension's commands, and pushes a
 * complete snapshot after `ready`, on every change and whenever the view becomes visible again.
 * `retainContextWhenHidden` stays off: a hidden webview is dropped and rebuilt from the next snapshot.
 */
import * as vscode from 'vscode';
import { Commands } from './command-ids';
import { parseWebviewMessage } from './protocol';
import type { HostMessage, ViewState, WebviewMessage } from './protocol';
import { renderSidebarHtml, webviewRoots } from './webview-html';

/** Supplies the current complete view state. */
export type SnapshotSource = () => ViewState;

/** Called when a webview instance said `ready` (the first one opens the session). */
export type ReadyHook = () => void;

/** Provides the `contextKeeper.sidebar` view. */
export class SidebarProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  /** The view id, as contributed in package.json. */
  static readonly viewId = 'contextKeeper.sidebar';

  private view: vscode.WebviewView | undefined;
  private viewSubscriptions: vscode.Disposable[] = [];
  private ready = false;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly snapshot: SnapshotSource,
    private readonly log: vscode.LogOutputChannel,
    private readonly onReady: ReadyHook,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.disposeView();
    this.view = view;
    this.ready = false;
    view.webview.options = { enableScripts: true, localResourceRoots: webviewRoots(this.extensionUri) };
    view.webview.html = renderSidebarHtml(view.webview, this.extensionUri);
    this.viewSubscriptions.push(
      view.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      view.onDidChangeVisibility(() => {
        if (view.visible) this.pushNow();
      }),
      view.onDidDispose(() => {
        if (this.view === view) this.disposeView();
      }),
    );
  }

  /** Pushes a fresh snapshot to a visible, ready webview (callers coalesce bursts). */
  refresh(): void {
    this.pushNow();
  }

  /** Reveals the sidebar. */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${SidebarProvider.viewId}.focus`);
  }

  private pushNow(): void {
    const view = this.view;
    if (!view || !this.ready || !view.visible) return;
    const message: HostMessage = { type: 'snapshot', state: this.snapshot() };
    void view.webview.postMessage(message);
  }

  private receive(raw: unknown): void {
    const message = parseWebviewMessage(raw);
    if (!message) {
      this.log.warn('Dropped a malformed message from the sidebar webview.');
      return;
    }
    this.log.trace(`sidebar → host: ${message.type}`);
    if (message.type === 'ready') {
      this.ready = true;
      this.pushNow();
      this.onReady();
      return;
    }
    void this.dispatch(message).catch((error: unknown) => {
      this.log.error(`Sidebar action ${message.type} failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  private async dispatch(message: Exclude<WebviewMessage, { type: 'ready' }>): Promise<unknown> {
    switch (message.type) {
      case 'runTask':
        return vscode.commands.executeCommand(Commands.newAgentTask, message.text);
      case 'cancel':
        return vscode.commands.executeCommand(Commands.cancel);
      case 'compact':
        return vscode.commands.executeCommand(Commands.compactConversation, { focus: message.focus });
      case 'openCheckpoint':
        return vscode.commands.executeCommand(Commands.openCheckpoint, message.id);
      case 'diffCheckpoint':
        return vscode.commands.executeCommand(Commands.diffCheckpoint, message.id);
      case 'restoreCheckpoint':
        return vscode.commands.executeCommand(Commands.restoreCheckpoint, message.id);
      case 'copySummary':
        return vscode.commands.executeCommand(Commands.copySummary, message.id);
      case 'approve':
        return vscode.commands.executeCommand(Commands.answerApproval, message.requestId, message.approved);
      case 'applyPreview':
        return vscode.commands.executeCommand(Commands.applyPreview);
      case 'discardPreview':
        return vscode.commands.executeCommand(Commands.discardPreview);
      case 'importTranscript':
        return vscode.commands.executeCommand(Commands.importTranscript);
      case 'setApiKey':
        return vscode.commands.executeCommand(Commands.setApiKey);
    }
  }

  private disposeView(): void {
    for (const subscription of this.viewSubscriptions) subscription.dispose();
    this.viewSubscriptions = [];
    this.view = undefined;
    this.ready = false;
  }

  dispose(): void {
    this.disposeView();
  }
}
