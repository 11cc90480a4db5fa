/**
 * Review of a proposed compaction (manual compaction with `contextKeeper.previewSummary`). Every
 * summary Apply would write opens in one read-only document (./preview-text, a marker line per
 * summary; closing it never asks to save) and in the sidebar's preview card, where each summary can be
 * edited; Apply (the editor's title bar or the sidebar) applies the texts of the surface it was pressed on. A progress notification stays while the review is open and closes by itself
 * however the preview ends (applied or discarded anywhere; its Cancel discards).
 */
import * as vscode from 'vscode';
import { DisposableStore } from '../../lifecycle/disposables';
import type { ContextServiceApi } from '../../service/api';
import type { ReadOnlyDocuments } from './read-only-documents';

let reviewDocument: vscode.TextDocument | undefined;

/** The text of the open review document, if a review is open. */
export function reviewDocumentText(): string | undefined {
  return reviewDocument && !reviewDocument.isClosed ? reviewDocument.getText() : undefined;
}

/** Closes the editor of the review document. */
async function closeDocument(document: vscode.TextDocument): Promise<void> {
  const editor = vscode.window.visibleTextEditors.find((e) => e.document === document);
  if (!editor) return;
  await vscode.window.showTextDocument(document, { preview: false, preserveFocus: false });
  await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
}

/**
 * Opens the review document (`document`, see `previewDocument`) and waits until the preview is
 * applied or discarded, then closes it.
 */
export async function reviewPreview(
  service: ContextServiceApi,
  document: string,
  deps: { log: vscode.LogOutputChannel; readOnly: ReadOnlyDocuments },
): Promise<void> {
  const opened = await deps.readOnly.show('Proposed compaction.md', document);
  reviewDocument = opened;
  await vscode.commands.executeCommand('setContext', 'contextKeeper.reviewingSummary', true);
  try {
    await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title:
          'ContextKeeper: review the proposed summary in the editor (read-only). Edit it in the sidebar, then Apply; Cancel discards it.',
        cancellable: true,
      },
      (_progress, token) =>
        new Promise<void>((resolve) => {
          const subscriptions = new DisposableStore();
          const done = () => {
            subscriptions.dispose();
            resolve();
          };
          subscriptions.addAll(
            service.onDidChangePreview((preview) => {
              if (!preview) done();
            }),
            token.onCancellationRequested(() => {
              deps.log.info('Summary preview discarded from the notification.');
              service.discardPreview();
              done();
            }),
          );
          if (!service.getPreview()) done();
        }),
    );
  } finally {
    reviewDocument = undefined;
    await vscode.commands.executeCommand('setContext', 'contextKeeper.reviewingSummary', false);
    await closeDocument(opened);
    deps.readOnly.forget(opened);
  }
}
