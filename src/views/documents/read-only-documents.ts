/**
 * Read-only virtual documents for what the extension writes for the user to read (a handoff, a
 * proposed summary): served by a `TextDocumentContentProvider`, as checkpoint documents are, so they
 * are never dirty and closing one never asks to save. Copy, search and Save As work as usual.
 */
import * as vscode from 'vscode';
import { DisposableStore } from '../../lifecycle/disposables';

/** The scheme of the read-only documents. */
export const READ_ONLY_SCHEME = 'contextkeeper-document';

/**
 * What a read-only document whose text is no longer kept says (`uri` from {@link ReadOnlyDocuments.show}):
 * its title, and that it is not kept across a reload, instead of an empty tab.
 */
export function goneDocumentText(uri: vscode.Uri): string {
  const title = decodeURIComponent(uri.path.split('/').pop() ?? '').replace(/\.md$/, '') || 'This document';
  return `# ${title}\n\nThis read-only document is no longer available: ContextKeeper keeps a handoff or a proposed summary only while the window that opened it stays open (Reload Window and restarts drop it). Close this tab; open the document again from where you opened it (for a proposed summary, Compact Conversation with the preview on).\n`;
}

/** Serves the texts of the read-only documents, each under its own URI. */
export class ReadOnlyDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly store = new DisposableStore();
  private readonly _onDidChange = this.store.add(new vscode.EventEmitter<vscode.Uri>());
  /** Fires when a document's text was replaced. */
  readonly onDidChange = this._onDidChange.event;
  private readonly texts = new Map<string, string>();
  private next = 0;

  /** Registers the provider for {@link READ_ONLY_SCHEME}. */
  constructor() {
    this.store.add(vscode.workspace.registerTextDocumentContentProvider(READ_ONLY_SCHEME, this));
  }

  /**
   * The text of `uri`; once it was forgotten, or in a tab the window brought back after a reload
   * (the texts live only as long as the window that opened them), a note naming the document.
   */
  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? goneDocumentText(uri);
  }

  /**
   * Opens `text` as a read-only Markdown document titled `title` (a file name, e.g. "Handoff.md") in
   * an editor; each call gets a document of its own.
   */
  async show(title: string, text: string): Promise<vscode.TextDocument> {
    const uri = vscode.Uri.from({ scheme: READ_ONLY_SCHEME, path: `/${++this.next}/${title}` });
    this.texts.set(uri.toString(), text);
    const document = await vscode.workspace.openTextDocument(uri);
    const markdown =
      document.languageId === 'markdown'
        ? document
        : await vscode.languages.setTextDocumentLanguage(document, 'markdown');
    await vscode.window.showTextDocument(markdown, { preview: false });
    return markdown;
  }

  /**
   * Replaces the text of an open document (`uri`, from {@link show}) and fires {@link onDidChange},
   * so its editor shows `text`; nothing when the document was forgotten.
   */
  update(uri: vscode.Uri, text: string): void {
    const key = uri.toString();
    if (!this.texts.has(key) || this.texts.get(key) === text) return;
    this.texts.set(key, text);
    this._onDidChange.fire(uri);
  }

  /** Forgets the text of `document` (after its editor was closed). */
  forget(document: vscode.TextDocument): void {
    this.texts.delete(document.uri.toString());
  }

  dispose(): void {
    this.texts.clear();
    this.store.dispose();
  }
}
