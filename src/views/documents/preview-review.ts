/**
 * Review of a proposed compaction (manual compaction with `contextKeeper.previewSummary`). Every
 * summary Apply would write opens in one read-only document (./preview-text, a marker line per
 * summary; closing it never asks to save) and in the sidebar's preview card, where each summary can be
 * edited. The sidebar reports every edit as it is typed; the latest texts are kept with the preview
 * they belong to (../preview-edits), so every Apply (the sidebar's, the editor's title bar, the
 * palette) writes the texts the sidebar shows, whether or not the document is still open. A progress notification
 * stays while the review is open and closes by itself however the preview ends (applied or discarded
 * anywhere, or gone with its service when the session is reopened or deleted).
 */
import * as vscode from 'vscode';
import { DisposableStore } from '../../lifecycle/disposables';
import type { ContextServiceApi } from '../../service/api';
import type { CompactionPreview } from '../../service/records';
import type { ReadOnlyDocuments } from './read-only-documents';
import { previewDocument } from './preview-text';
import { countPreviewEdits, keepPreviewEdits, shownPreview } from '../preview-edits';

/** Pause after the last edit before its tokens are counted (a 30k-token summary takes tens of ms). */
export const PREVIEW_COUNT_DELAY_MS = 300;

/** The count waiting for the typing to pause. */
let counting: ReturnType<typeof setTimeout> | undefined;

/** The open review: its document, where its text is served, and the preview it shows. */
let review: { document: vscode.TextDocument; readOnly: ReadOnlyDocuments; service: ContextServiceApi } | undefined;

/** The text of the open review document as it is shown now (the sidebar's edits included), if a review is open. */
export function reviewDocumentText(): string | undefined {
  if (!review || review.document.isClosed) return undefined;
  return review.readOnly.provideTextDocumentContent(review.document.uri);
}

/**
 * Takes the sidebar's edits of the pending preview of `service` (`texts`, one per summary, in order):
 * kept for every Apply (./preview-edits) and shown in the review document when one is open, so it
 * always holds what Apply writes. Nothing when no preview is pending or the texts do not match its
 * summaries one for one. Once the typing pauses ({@link PREVIEW_COUNT_DELAY_MS}), the edited summaries
 * are counted (exactly, as Apply counts them): the review document's figures follow, and `counted`
 * gets the tokens after Apply for the sidebar's card.
 */
export function showPreviewEdits(
  service: ContextServiceApi | undefined,
  texts: readonly string[],
  counted?: (tokensAfter: number) => void,
): void {
  const edited = keepPreviewEdits(service, texts);
  if (!edited) return;
  showInReview(service, edited);
  if (counting) clearTimeout(counting);
  counting = setTimeout(() => {
    counting = undefined;
    const tokensAfter = countPreviewEdits(service);
    if (tokensAfter === undefined) return;
    const shown = shownPreview(service);
    if (shown) showInReview(service, shown);
    counted?.(tokensAfter);
  }, PREVIEW_COUNT_DELAY_MS);
}

function showInReview(service: ContextServiceApi | undefined, preview: CompactionPreview): void {
  if (!review || review.service !== service) return;
  review.readOnly.update(review.document.uri, previewDocument(preview));
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
  const shown = { document: opened, readOnly: deps.readOnly, service };
  review = shown;
  await vscode.commands.executeCommand('setContext', 'contextKeeper.reviewingSummary', true);
  try {
    await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        // No Cancel button: the only button of the notification would be the one that throws the
        // summary away. Apply and Discard sit side by side in the editor's title bar and the sidebar.
        title:
          "ContextKeeper: a proposed summary is open in the editor (read-only). Apply or Discard it from the editor's title bar or the sidebar; edit it in the sidebar.",
        cancellable: false,
      },
      () =>
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
          );
          if (!service.getPreview()) done();
        }),
    );
  } finally {
    // A later review (of a later preview) keeps its own document and context key.
    if (review === shown) {
      review = undefined;
      await vscode.commands.executeCommand('setContext', 'contextKeeper.reviewingSummary', false);
    }
    await closeDocument(opened);
    deps.readOnly.forget(opened);
  }
}
