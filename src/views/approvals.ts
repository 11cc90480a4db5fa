/**
 * Approval of the agent's side effects. For an edit, the proposed change opens in a diff editor
 * (current file ↔ proposed text, both read-only); for a command, the command line is shown. The user
 * answers from the sidebar's card (drawn after the waiting tool call and brought into view), the diff
 * editor's title bar, or the notification's own Allow and Deny buttons. A notification cannot be
 * closed from outside, so one pressed after the request was answered elsewhere says so and changes nothing.
 * Non-modal on purpose: a modal dialog would lock the sidebar whose transcript explains why the agent asks.
 */
import * as vscode from 'vscode';
import { DisposableStore } from '../lifecycle/disposables';
import type { ApprovalRequest } from '../agent/types';
import type { SessionController } from './session-controller';

/** The URI scheme of the two sides of a proposed edit. */
export const PROPOSAL_SCHEME = 'contextkeeper-proposal';

/** Closes the diff editor tabs whose proposed side is `proposed`. */
async function closeDiff(proposed: vscode.Uri): Promise<void> {
  const tabs = vscode.window.tabGroups.all
    .flatMap((group) => group.tabs)
    .filter(
      (tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === proposed.toString(),
    );
  if (tabs.length > 0) await vscode.window.tabGroups.close(tabs);
}

/** Shows approval requests and forwards the user's answer to the service. */
export class ApprovalPresenter implements vscode.Disposable {
  private readonly texts = new Map<string, string>();
  /** Open requests with the proposed-side URI of their diff (undefined for commands). */
  private readonly open = new Map<string, vscode.Uri | undefined>();
  private readonly store = new DisposableStore();

  constructor(private readonly controller: SessionController) {
    this.store.addAll(
      vscode.workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, {
        provideTextDocumentContent: (uri) => this.texts.get(uri.toString()) ?? '',
      }),
      controller.onDidRequestApproval((request) => void this.present(request)),
      controller.onDidChange(() => this.closeAnswered()),
    );
  }

  /** Closes the diffs of requests answered anywhere (notification, sidebar, cancellation). */
  private closeAnswered(): void {
    if (this.open.size === 0) return;
    const pending = new Set((this.controller.current?.getPendingApprovals() ?? []).map((request) => request.requestId));
    for (const [requestId, proposed] of [...this.open]) {
      if (pending.has(requestId)) continue;
      this.open.delete(requestId);
      for (const key of [...this.texts.keys()]) if (key.includes(`/${requestId}/`)) this.texts.delete(key);
      if (proposed) void closeDiff(proposed);
    }
  }

  private async present(request: ApprovalRequest): Promise<void> {
    this.open.set(request.requestId, undefined);
    if (request.kind === 'edit' && request.after !== undefined) {
      const name = request.path ?? 'file';
      const before = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${request.requestId}/current/${name}` });
      const after = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${request.requestId}/proposed/${name}` });
      this.texts.set(before.toString(), request.before ?? '');
      this.texts.set(after.toString(), request.after);
      this.open.set(request.requestId, after);
      await vscode.commands.executeCommand('vscode.diff', before, after, `${name}: proposed edit`, { preview: true });
    }
    const verb = request.kind === 'edit' ? 'apply' : 'run';
    const answer = await vscode.window.showInformationMessage(
      `ContextKeeper: the agent asks to ${verb} “${request.title}”. Allow or Deny here, in the sidebar${request.kind === 'edit' ? ' or in the diff editor’s title bar' : ''}.`,
      'Allow',
      'Deny',
    );
    // Dismissed: the request stays pending in the sidebar (and the diff editor).
    if (answer === undefined) return;
    const service = this.controller.current;
    if (!service?.getPendingApprovals().some((r) => r.requestId === request.requestId)) {
      void vscode.window.showInformationMessage(
        `ContextKeeper: “${request.title}” was already answered; nothing changed.`,
      );
      return;
    }
    service.resolveApproval(request.requestId, answer === 'Allow');
  }

  /** Answers the request whose proposed edit is shown in the active diff editor (its title-bar buttons). */
  answerActive(approved: boolean): void {
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    const modified = input instanceof vscode.TabInputTextDiff ? input.modified.toString() : undefined;
    for (const [requestId, proposed] of this.open) {
      if (proposed && proposed.toString() === modified) this.controller.current?.resolveApproval(requestId, approved);
    }
  }

  dispose(): void {
    this.store.dispose();
    this.texts.clear();
    this.open.clear();
  }
}
