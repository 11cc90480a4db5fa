/**
 * Approval of the agent's side effects. For an edit, the proposed change opens in a diff editor
 * (current file ↔ proposed text, both read-only); for a command, the command line is shown. The user
 * answers from the sidebar's card (drawn after the waiting tool call and brought into view), the diff
 * editor's title bar, or the Allow and Deny links of a notification. The notification is a progress
 * notification held open while the request waits: VS Code closes it (also from the notification
 * centre) once the request is answered anywhere, which a message with buttons would not allow.
 * Non-modal on purpose: a modal dialog would lock the sidebar whose transcript explains why the agent asks.
 */
import * as vscode from 'vscode';
import { DisposableStore } from '../lifecycle/disposables';
import type { ApprovalRequest } from '../agent/types';
import type { SessionController } from './session-controller';
import { Commands } from './commands/command-ids';

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

/**
 * A `command:` link that answers request `requestId` (the internal answer command, as the sidebar's
 * buttons use). VS Code runs command links in a notification's message.
 */
export function answerLink(requestId: string, approved: boolean): string {
  return `command:${Commands.answerApproval}?${encodeURIComponent(JSON.stringify([requestId, approved]))}`;
}

/** Shows approval requests and forwards the user's answer to the service. */
export class ApprovalPresenter implements vscode.Disposable {
  private readonly texts = new Map<string, string>();
  /** Open requests with the proposed-side URI of their diff (undefined for commands). */
  private readonly open = new Map<string, vscode.Uri | undefined>();
  /** Ends the notification of each open request (resolved once it is answered, or on dispose). */
  private readonly notices = new Map<string, () => void>();
  private readonly store = new DisposableStore();

  constructor(private readonly controller: SessionController) {
    this.store.addAll(
      vscode.workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, {
        // A tab the window brought back after a reload: its request ended with the window.
        provideTextDocumentContent: (uri) =>
          this.texts.get(uri.toString()) ??
          'This proposed edit is no longer waiting for approval: the request it belonged to ended (answered, cancelled, or the window was reloaded). Close this tab.\n',
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
      this.endNotice(requestId);
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
    // Answered while the diff opened: nothing to ask any more.
    if (!this.open.has(request.requestId)) return;
    const verb = request.kind === 'edit' ? 'apply' : 'run';
    const ended = new Promise<void>((resolve) => this.notices.set(request.requestId, resolve));
    await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        // The links lead: a progress notification shows one line until expanded, and they must be on it.
        title: `ContextKeeper: [Allow](${answerLink(request.requestId, true)}) or [Deny](${answerLink(request.requestId, false)}): the agent asks to ${verb} “${request.title}”`,
      },
      async (progress) => {
        progress.report({
          message: `You can also answer in the sidebar${request.kind === 'edit' ? ' or in the diff editor’s title bar' : ''}.`,
        });
        await ended;
      },
    );
  }

  private endNotice(requestId: string): void {
    this.notices.get(requestId)?.();
    this.notices.delete(requestId);
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
    for (const requestId of [...this.notices.keys()]) this.endNotice(requestId);
    this.store.dispose();
    this.texts.clear();
    this.open.clear();
  }
}
