/**
 * The sidebar webview view. A thin transport: it renders the HTML shell, validates every message the
 * webview posts (see `protocol.ts`), turns user actions into the extension's commands, and posts a
 * complete snapshot after `ready`, after a gap (`resync`) and whenever the view becomes visible
 * again; between those it posts only the deltas the model has collected (`flush`, coalesced by the
 * caller). `retainContextWhenHidden` stays off: a hidden webview is dropped and rebuilt from the
 * next snapshot.
 */
import * as vscode from 'vscode';
import { DisposableStore } from '../../lifecycle/disposables';
import { Commands } from '../commands/command-ids';
import { parseWebviewMessage, refusedInput } from '../../webview/shared/protocol';
import { notify } from '../notify';
import type { CompactionDetailView, HostMessage, WebviewMessage } from '../../webview/shared/protocol';
import { renderSidebarHtml, webviewRoots } from './webview-html';
import { PageReloads } from './page-reloads';

/** Where the view's messages come from: the current session's sidebar model. */
export interface SidebarSource {
  snapshot(): HostMessage;
  takeDelta(): HostMessage | undefined;
  fullText(itemId: string): { text: string; fullLength: number } | undefined;
  compactionDetail(id: string): CompactionDetailView | undefined;
  loadEarlier(): void;
}

/** The model of the session shown now (it changes when the session does). */
export type SidebarSourceGetter = () => SidebarSource;

/** Called when a webview instance said `ready` (the first one opens the session). */
export type ReadyHook = () => void;

/** User actions that run a command without arguments. */
const PLAIN_ACTIONS: Partial<Record<WebviewMessage['type'], string>> = {
  cancel: Commands.cancel,
  discardPreview: Commands.discardPreview,
  importTranscript: Commands.importTranscript,
  setApiKey: Commands.setApiKey,
  showLog: Commands.showLog,
  testConnection: Commands.testConnection,
  newSession: Commands.newSession,
  continueInNewTask: Commands.continueInNewTask,
  undoRestore: Commands.undoRestore,
  retryTask: Commands.retryTask,
};

/** User actions on one checkpoint or session: the command gets the message's `id`. */
const ID_ACTIONS: Partial<Record<WebviewMessage['type'], string>> = {
  openCheckpoint: Commands.openCheckpoint,
  diffCheckpoint: Commands.diffCheckpoint,
  restoreCheckpoint: Commands.restoreCheckpoint,
  copySummary: Commands.copySummary,
  switchSession: Commands.switchSession,
  renameSession: Commands.renameSession,
  deleteSession: Commands.deleteSession,
};

/** Provides the `contextKeeper.sidebar` view. */
export class SidebarProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  /** The view id, as contributed in package.json. */
  static readonly viewId = 'contextKeeper.sidebar';

  private view: vscode.WebviewView | undefined;
  /** Listeners on the current view; cleared when the view is replaced or disposed. */
  private readonly viewSubscriptions = new DisposableStore();
  private ready = false;
  /** How many times VS Code resolved the view (more than once: the old webview was dropped). */
  private resolves = 0;
  private readonly _onDidEditPreview = new vscode.EventEmitter<readonly string[]>();
  /** Fires with the texts of the proposed summaries as the user edits them in the sidebar. */
  readonly onDidEditPreview = this._onDidEditPreview.event;

  /** Loads the page again when it reports a lost stylesheet or font. */
  private readonly reloads: PageReloads;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly source: SidebarSourceGetter,
    private readonly log: vscode.LogOutputChannel,
    private readonly onReady: ReadyHook,
  ) {
    this.reloads = new PageReloads('Context view', log, () => {
      const view = this.view;
      if (!view) return;
      this.ready = false;
      view.webview.html = renderSidebarHtml(view.webview, this.extensionUri);
    });
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.disposeView();
    this.view = view;
    this.ready = false;
    this.resolves++;
    this.reloads.reset();
    this.log.info(
      `Context view resolved (${this.resolves === 1 ? 'first time' : `time ${this.resolves}`}, ${view.visible ? 'visible' : 'hidden'}).`,
    );
    view.webview.options = { enableScripts: true, localResourceRoots: webviewRoots(this.extensionUri) };
    view.webview.html = renderSidebarHtml(view.webview, this.extensionUri);
    this.viewSubscriptions.addAll(
      view.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      view.onDidChangeVisibility(() => {
        this.log.info(`Context view ${view.visible ? 'shown' : 'hidden'}.`);
        // Shown again, the view has a new page (its content is not retained while hidden).
        this.reloads.reset();
        if (view.visible) this.pushSnapshot('shown');
      }),
      view.onDidDispose(() => {
        this.log.info('Context view disposed.');
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
  /** Shows `tokensAfter` as the pending preview's figure (counted on the edited summaries). */
  showPreviewTokens(tokensAfter: number): void {
    this.post({ type: 'previewTokens', tokensAfter });
  }

  refresh(): void {
    this.pushSnapshot('refresh');
  }

  /** Puts `text`, a task Run sent that was not taken, back into the task box (when it is empty). */
  restoreTask(text: string): void {
    this.post({ type: 'restoreTask', text });
  }

  /** Reveals the sidebar. */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${SidebarProvider.viewId}.focus`);
  }

  /** Posts a snapshot to a visible, ready webview; `reason` goes to the log with whether it was delivered. */
  private pushSnapshot(reason: string): void {
    const view = this.view;
    if (!view || !this.ready || !view.visible) {
      this.log.trace(
        `Context view: no snapshot (${reason}): ${!view ? 'no view' : !this.ready ? 'not ready' : 'hidden'}.`,
      );
      return;
    }
    this.postSnapshot(view, reason);
  }

  /**
   * Posts a snapshot and logs, at info level, whether VS Code delivered it (false: the webview was
   * gone or not loaded); the log is what tells a view left on "Loading…" from one never answered.
   */
  private postSnapshot(view: vscode.WebviewView, reason: string): void {
    view.webview.postMessage(this.source().snapshot()).then(
      (delivered) =>
        delivered
          ? this.log.info(`Context view: snapshot posted (${reason}).`)
          : this.log.warn(`Context view: snapshot not delivered (${reason}); the webview was not there to take it.`),
      (error: unknown) => this.log.warn(`Context view: snapshot post failed (${reason}):`, error),
    );
  }

  private post(message: HostMessage): void {
    if (this.view && this.ready) void this.view.webview.postMessage(message);
  }

  private receive(raw: unknown): void {
    const message = parseWebviewMessage(raw);
    if (!message) {
      // Something the user typed is never dropped silently: the toast says why, and a task goes back
      // into the box (the page checks the sizes first, so this is the host's last word, not the usual path).
      const refused = refusedInput(raw);
      if (refused) {
        this.log.warn(`Refused ${refused.type} from the sidebar webview: ${refused.reason}.`);
        if (refused.task !== undefined) this.restoreTask(refused.task);
        void notify('error', `ContextKeeper: not taken: ${refused.reason}.`, [], this.log);
        return;
      }
      this.log.warn('Dropped a malformed message from the sidebar webview.');
      return;
    }
    this.log.trace(`sidebar → host: ${message.type}`);
    if (message.type === 'ready') {
      this.ready = true;
      const view = this.view;
      this.log.info(
        `Context view: webview ready (${describeReady(message)}; view ${view?.visible ? 'visible' : 'hidden'}).`,
      );
      // Answered even while the view reports itself hidden: a webview that says ready is alive, and a
      // snapshot skipped here would leave it on "Loading…" until its visibility changes again.
      if (view) this.postSnapshot(view, 'ready');
      this.onReady();
      return;
    }
    if (this.answerLocally(message)) return;
    void this.dispatch(message).catch((error: unknown) => {
      this.log.error(`Sidebar action ${message.type} failed:`, error);
    });
  }

  /** Messages answered from the model without a command; true when handled. */
  private answerLocally(message: WebviewMessage): boolean {
    const source = this.source();
    switch (message.type) {
      case 'resync':
        this.pushSnapshot('resync');
        return true;
      case 'resourcesLost':
        this.reloads.lost(message.what);
        return true;
      case 'loadEarlier':
        source.loadEarlier();
        this.pushSnapshot('earlier messages');
        return true;
      case 'expandItem': {
        const full = source.fullText(message.id);
        if (full) this.post({ type: 'itemText', id: message.id, ...full });
        return true;
      }
      case 'editPreview':
        this._onDidEditPreview.fire(message.summaries);
        return true;
      case 'compactionDetail': {
        const detail = source.compactionDetail(message.id);
        if (detail) this.post({ type: 'compactionDetail', id: message.id, ...detail });
        return true;
      }
      default:
        return false;
    }
  }

  /** Runs the command a user action stands for, with its arguments from the message. */
  private async dispatch(message: WebviewMessage): Promise<unknown> {
    const plain = PLAIN_ACTIONS[message.type];
    if (plain) return vscode.commands.executeCommand(plain);
    const byId = ID_ACTIONS[message.type];
    if (byId && 'id' in message) return vscode.commands.executeCommand(byId, message.id);
    switch (message.type) {
      case 'runTask':
        return vscode.commands.executeCommand(Commands.newAgentTask, message.text);
      case 'compact':
        return vscode.commands.executeCommand(Commands.compactConversation, { focus: message.focus });
      case 'approve':
        return vscode.commands.executeCommand(Commands.answerApproval, message.requestId, message.approved);
      case 'applyPreview':
        return vscode.commands.executeCommand(Commands.applyPreview, message.summaries);
      case 'togglePin':
        return vscode.commands.executeCommand(Commands.pinMessage, message.entryId);
      case 'openSettings':
        return vscode.commands.executeCommand('workbench.action.openSettings', '@ext:contextkeeper.context-keeper');
      default:
        return undefined;
    }
  }

  private disposeView(): void {
    this.reloads.reset();
    this.viewSubscriptions.clear();
    this.view = undefined;
    this.ready = false;
  }

  dispose(): void {
    this.disposeView();
    this.reloads.dispose();
    this.viewSubscriptions.dispose();
    this._onDidEditPreview.dispose();
  }
}

/** The webview's own account of itself in a `ready` message, for the log. */
function describeReady(message: Extract<WebviewMessage, { type: 'ready' }>): string {
  const parts = [
    `attempt ${message.attempt ?? 1}`,
    `${message.received ?? 0} host messages received, ${message.applied ?? 0} snapshots applied`,
  ];
  if (message.hidden !== undefined) parts.push(`page ${message.hidden ? 'hidden' : 'visible'}`);
  if (message.error) parts.push(`page error: ${message.error}`);
  return parts.join(', ');
}
