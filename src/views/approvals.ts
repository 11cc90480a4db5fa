/**
 * Approval of the agent's side effects. For an edit, the proposed change opens in a diff editor
 * (current file ↔ proposed text, both read-only); for a command, the command line is shown. The user
 * answers from a notification or from the sidebar's buttons, whichever comes first (the service ignores
 * a second answer). A non-modal notification is used on purpose: a modal dialog would lock the sidebar
 * whose transcript explains why the agent asks.
 */
import * as vscode from 'vscode';
import type { ApprovalRequest } from '../agent/types';
import type { SessionController } from './session-controller';

/** The URI scheme of the two sides of a proposed edit. */
export const PROPOSAL_SCHEME = 'contextkeeper-proposal';

/** Shows approval requests and forwards the user's answer to the service. */
export class ApprovalPresenter implements vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly controller: SessionController) {
    this.subscriptions.push(
      vscode.workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, {
        provideTextDocumentContent: (uri) => this.texts.get(uri.toString()) ?? '',
      }),
      controller.onDidRequestApproval((request) => void this.present(request)),
    );
  }

  private async present(request: ApprovalRequest): Promise<void> {
    if (request.kind === 'edit' && request.after !== undefined) {
      const name = request.path ?? 'file';
      const before = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${request.requestId}/current/${name}` });
      const after = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${request.requestId}/proposed/${name}` });
      this.texts.set(before.toString(), request.before ?? '');
      this.texts.set(after.toString(), request.after);
      await vscode.commands.executeCommand('vscode.diff', before, after, `${name}: proposed edit`, { preview: true });
    }
    const answer = await vscode.window.showInformationMessage(
      `ContextKeeper: allow the agent to ${request.kind === 'edit' ? 'apply' : 'run'} “${request.title}”?`,
      { detail: request.detail },
      'Allow',
      'Deny',
    );
    if (answer !== undefined) this.controller.current?.resolveApproval(request.requestId, answer === 'Allow');
    for (const key of [...this.texts.keys()]) if (key.includes(`/${request.requestId}/`)) this.texts.delete(key);
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.texts.clear();
  }
}
