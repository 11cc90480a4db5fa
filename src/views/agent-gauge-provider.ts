/**
 * The "Watched Agent" webview view: the gauge of the Claude Code or Codex session the Agent Sessions
 * view follows, drawn by the Context view's gauge template (dist/agent-webview.js). It posts one
 * complete message after the webview says `ready` and after every change of the followed gauge; a
 * hidden view is rebuilt from the next message.
 */
import type * as vscode from 'vscode';
import { DisposableStore } from '../lifecycle/disposables';
import type { AgentGaugeMessage } from '../webview/shared/agent-gauge';
import type { AgentSessionsView } from './agent-sessions';
import { renderWebviewHtml, webviewRoots } from './sidebar/webview-html';
import { PageReloads } from './sidebar/page-reloads';

/** Provides the `contextKeeper.agentGauge` view over an {@link AgentSessionsView}. */
export class AgentGaugeProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  /** The view id, as contributed in package.json. */
  static readonly viewId = 'contextKeeper.agentGauge';
  private view: vscode.WebviewView | undefined;
  private ready = false;
  private readonly viewSubscriptions = new DisposableStore();
  private readonly subscription: vscode.Disposable;
  /** Loads the page again when it reports a lost stylesheet or font. */
  private readonly reloads: PageReloads;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly sessions: AgentSessionsView,
    log: vscode.LogOutputChannel,
  ) {
    this.subscription = sessions.onDidUpdateGauge(() => this.post());
    this.reloads = new PageReloads('Watched Agent view', log, () => {
      if (!this.view) return;
      this.ready = false;
      this.view.webview.html = renderWebviewHtml(this.view.webview, this.extensionUri, 'agent-webview.js');
    });
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.viewSubscriptions.clear();
    this.reloads.reset();
    this.view = view;
    this.ready = false;
    view.webview.options = { enableScripts: true, localResourceRoots: webviewRoots(this.extensionUri) };
    view.webview.html = renderWebviewHtml(view.webview, this.extensionUri, 'agent-webview.js');
    this.viewSubscriptions.addAll(
      view.webview.onDidReceiveMessage((raw: unknown) => {
        const message = raw as { type?: unknown; what?: unknown } | undefined;
        if (message?.type === 'resourcesLost' && typeof message.what === 'string')
          return this.reloads.lost(message.what.slice(0, 300));
        if (message?.type !== 'ready') return;
        this.ready = true;
        this.post();
      }),
      view.onDidChangeVisibility(() => {
        // Shown again, the view has a new page (its content is not retained while hidden).
        this.reloads.reset();
        if (view.visible) this.post();
      }),
      view.onDidDispose(() => {
        if (this.view !== view) return;
        this.view = undefined;
        this.viewSubscriptions.clear();
      }),
    );
  }

  /** What the view shows now (also what it was last sent). */
  message(): AgentGaugeMessage {
    const view = this.sessions.gaugeView();
    return view ? { type: 'agentGauge', view } : { type: 'agentGauge', note: this.sessions.gaugeNote() };
  }

  private post(): void {
    const view = this.view;
    if (!view || !this.ready || !view.visible) return;
    void view.webview.postMessage(this.message());
  }

  dispose(): void {
    this.reloads.dispose();
    this.subscription.dispose();
    this.viewSubscriptions.dispose();
    this.view = undefined;
  }
}
