/**
 * The sidebar webview view. A thin transport: it renders the HTML shell, validates every message the
 * webview posts (see `protocol.ts`), turns user actions into the extension's commands, and posts a
 * complete snapshot after `ready`, after a gap (`resync`) and whenever the view becomes visible
 * again; between those it posts only the deltas the model has collected (`flush`, coalesced by the
 * caller). `retainContextWhenHidden` stays off: a hidden webview is dropped and rebuilt from the
 * next snapshot.
 */
import * as vscode from 'vscode';
import { DisposableStore } from '../lifecycle/disposables';
import { Commands } from './command-ids';
import { parseWebviewMessage } from './protocol';
import type { HostMessage, ReplacedItemView, WebviewMessage } from './protocol';
import { renderSidebarHtml, webviewRoots } from './webview-html';

/** Where the view's messages come from: the current session's sidebar model. */
export interface SidebarSource {
  snapshot(): HostMessage;
  takeDelta(): HostMessage | undefined;
  fullText(itemId: string): { text: string; fullLength: number } | undefined;
  compactionDetail(id: string): { summary: string; replaced: ReplacedItemView[]; more: number } | undefined;
  loadEarlier(): void;
}

/** The model of the session shown now (it changes when the session does). */
export type SidebarSourceGetter = () => SidebarSource;

/** Called when a webview instance said `ready` (the first one opens the session). */
export type ReadyHook = () => void;

/** Provides the `contextKeeper.sidebar` view. */
export class SidebarProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  /** The view id, as contributed in package.json. */
  static readonly viewId = 'contextKeeper.sidebar';

  private view: vscode.WebviewView | undefined;
  /** Listeners on the current view; cleared when the view is replaced or disposed. */
  private readonly viewSubscriptions = new DisposableStore();
  private ready = false;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly source: SidebarSourceGetter,
    private readonly log: vscode.LogOutputChannel,
    private readonly onReady: ReadyHook,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.disposeView();
    this.view = view;
    this.ready = false;
    view.webview.options = { enableScripts: true, localResourceRoots: webviewRoots(this.extensionUri) };
    view.webview.html = renderSidebarHtml(view.webview, this.extensionUri);
    this.viewSubscriptions.addAll(
      view.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      view.onDidChangeVisibility(() => {
        if (view.visible) this.pushSnapshot();
      }),
      view.onDidDispose(() => {
        if (this.view === view) this.disposeView();
      }),
    );
  }

  /** Posts what changed since the last message to a visible, ready webview (callers coalesce bursts). */
  flush(): void {
    const view = this.view;
    if (!view || !this.ready || !view.visible) return;
    const message = this.source().takeDelta();
    if (message) void view.webview.postMessage(message);
  }

  /** Posts a complete snapshot (a session switch, or anything a delta cannot express). */
  refresh(): void {
    this.pushSnapshot();
  }

  /** Reveals the sidebar. */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${SidebarProvider.viewId}.focus`);
  }

  private pushSnapshot(): void {
    const view = this.view;
    if (!view || !this.ready || !view.visible) return;
    void view.webview.postMessage(this.source().snapshot());
  }

  private post(message: HostMessage): void {
    if (this.view && this.ready) void this.view.webview.postMessage(message);
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
      this.pushSnapshot();
      this.onReady();
      return;
    }
    if (this.answerLocally(message)) return;
    void this.dispatch(message).catch((error: unknown) => {
      this.log.error(`Sidebar action ${message.type} failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  /** Messages answered from the model without a command; true when handled. */
  private answerLocally(message: WebviewMessage): boolean {
    const source = this.source();
    switch (message.type) {
      case 'resync':
        this.pushSnapshot();
        return true;
      case 'loadEarlier':
        source.loadEarlier();
        this.pushSnapshot();
        return true;
      case 'expandItem': {
        const full = source.fullText(message.id);
        if (full) this.post({ type: 'itemText', id: message.id, ...full });
        return true;
      }
      case 'compactionDetail': {
        const detail = source.compactionDetail(message.id);
        if (detail) this.post({ type: 'compactionDetail', id: message.id, ...detail });
        return true;
      }
      default:
        return false;
    }
  }

  private async dispatch(message: WebviewMessage): Promise<unknown> {
    switch (message.type) {
      case 'ready':
      case 'resync':
      case 'loadEarlier':
      case 'expandItem':
      case 'compactionDetail':
        return undefined;
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
      case 'undoRestore':
        return vscode.commands.executeCommand(Commands.undoRestore);
      case 'copySummary':
        return vscode.commands.executeCommand(Commands.copySummary, message.id);
      case 'approve':
        return vscode.commands.executeCommand(Commands.answerApproval, message.requestId, message.approved);
      case 'applyPreview':
        return vscode.commands.executeCommand(Commands.applyPreview, message.summary);
      case 'discardPreview':
        return vscode.commands.executeCommand(Commands.discardPreview);
      case 'importTranscript':
        return vscode.commands.executeCommand(Commands.importTranscript);
      case 'setApiKey':
        return vscode.commands.executeCommand(Commands.setApiKey);
      case 'openSettings':
        return vscode.commands.executeCommand('workbench.action.openSettings', '@ext:contextkeeper.context-keeper');
      case 'showLog':
        return vscode.commands.executeCommand(Commands.showLog);
      case 'testConnection':
        return vscode.commands.executeCommand('contextKeeper.testConnection');
      case 'togglePin':
        return vscode.commands.executeCommand(Commands.pinMessage, message.entryId);
      case 'newSession':
        return vscode.commands.executeCommand(Commands.newSession);
      case 'switchSession':
        return vscode.commands.executeCommand(Commands.switchSession, message.id);
      case 'renameSession':
        return vscode.commands.executeCommand(Commands.renameSession, message.id);
      case 'deleteSession':
        return vscode.commands.executeCommand(Commands.deleteSession, message.id);
      case 'continueInNewTask':
        return vscode.commands.executeCommand(Commands.continueInNewTask);
    }
  }

  private disposeView(): void {
    this.viewSubscriptions.clear();
    this.view = undefined;
    this.ready = false;
  }

  dispose(): void {
    this.disposeView();
    this.viewSubscriptions.dispose();
  }
}
