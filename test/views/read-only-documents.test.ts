/**
 * A handoff and a proposed summary open as read-only virtual documents of their own scheme (never
 * untitled buffers), so closing one never asks to save.
 */
import '../support/vscode-fake/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { host, resetVscodeFake } from '../support/vscode-fake';
import { READ_ONLY_SCHEME, ReadOnlyDocuments } from '../../src/views/documents/read-only-documents';
import { reviewDocumentText, reviewPreview, showPreviewEdits } from '../../src/views/documents/preview-review';
import { parsePreviewDocument, previewDocument } from '../../src/views/documents/preview-text';
import type { CompactionPreview } from '../../src/service/records';
import { registerAgentSessions } from '../../src/views/commands/agent-sessions-commands';
import type { ContextServiceApi } from '../../src/service/api';
import { FakeLogChannel } from '../support/vscode-fake/window-parts';

test('a read-only document shows its text under its own scheme, in Markdown, and is gone with the provider', async () => {
  resetVscodeFake();
  const documents = new ReadOnlyDocuments();
  const first = await documents.show('Handoff.md', '# Handoff\n\nqwen2.5-coder:7b');
  const second = await documents.show('Handoff.md', 'another');
  assert.equal(first.uri.scheme, READ_ONLY_SCHEME);
  assert.notEqual(first.uri.toString(), second.uri.toString(), 'each call opens a document of its own');
  assert.equal(first.getText(), '# Handoff\n\nqwen2.5-coder:7b');
  assert.equal(first.languageId, 'markdown');
  assert.equal(first.isDirty, false);
  assert.equal(vscode.window.visibleTextEditors[0].document.uri.toString(), second.uri.toString());
  documents.forget(first);
  // Forgotten (or brought back by a reload): the tab names the document and says why it is empty.
  assert.match(
    documents.provideTextDocumentContent(first.uri),
    /^# Handoff\n\nThis read-only document is no longer available/,
  );
  documents.dispose();
  assert.deepEqual(host.live('content-provider'), []);
});

test('the proposed summary opens read-only and closes when the preview ends', async () => {
  resetVscodeFake();
  const documents = new ReadOnlyDocuments();
  const changed = new vscode.EventEmitter<unknown>();
  let preview: unknown = { summary: 'The summary.' };
  const service = {
    onDidChangePreview: changed.event,
    getPreview: () => preview,
    discardPreview: () => undefined,
  } as unknown as ContextServiceApi;
  const review = reviewPreview(service, 'The summary.', { log: new FakeLogChannel('test'), readOnly: documents });
  await new Promise((resolve) => setTimeout(resolve, 10));
  const [editor] = vscode.window.visibleTextEditors;
  assert.equal(editor.document.uri.scheme, READ_ONLY_SCHEME);
  assert.equal(editor.document.getText(), 'The summary.');
  // The notification offers no Cancel, its only button would discard the summary; Apply and
  // Discard are in the title bar of this document's editor.
  const notice = host.progress.find((p) => /proposed summary/.test(p.title ?? ''));
  assert.equal(notice?.cancellable, false);
  assert.match(notice?.title ?? '', /Apply or Discard/);
  const manifest = JSON.parse(readFileSync(path.join(__dirname, '../../../package.json'), 'utf8')) as {
    contributes: { menus: Record<string, Array<{ command: string; when?: string }>> };
  };
  for (const command of ['contextKeeper.applyPreview', 'contextKeeper.discardPreview']) {
    const item = manifest.contributes.menus['editor/title'].find((m) => m.command === command);
    assert.ok(item?.when?.includes(`resourceScheme == ${READ_ONLY_SCHEME}`), `${command} shows on the review document`);
  }
  preview = undefined;
  changed.fire(undefined);
  await review;
  assert.match(
    documents.provideTextDocumentContent(editor.document.uri),
    /^# Proposed compaction\n\nThis read-only document is no longer available/,
    'its text is let go',
  );
  documents.dispose();
  changed.dispose();
});

test('an edit made in the sidebar reaches the proposed-compaction document: it always shows what Apply writes', async () => {
  resetVscodeFake();
  const documents = new ReadOnlyDocuments();
  const changed = new vscode.EventEmitter<unknown>();
  const summary = (checkpointId: string, text: string) => ({ checkpointId, summary: text, messages: 12 });
  let preview: CompactionPreview | undefined = {
    summaries: [summary('cp-1', 'The agent read the parser.'), summary('cp-2', 'The agent fixed the tests.')],
    steps: [],
    replaced: [],
    replacedIds: [],
    tokensBefore: 26_000,
    tokensAfter: 3_300,
    summarizerModel: 'qwen2.5-coder:7b',
  };
  const service = {
    onDidChangePreview: changed.event,
    getPreview: () => preview,
    discardPreview: () => undefined,
  } as unknown as ContextServiceApi;
  const fired: string[] = [];
  const subscription = documents.onDidChange((uri) => fired.push(uri.toString()));
  const review = reviewPreview(service, previewDocument(preview), {
    log: new FakeLogChannel('test'),
    readOnly: documents,
  });
  await new Promise((resolve) => setTimeout(resolve, 10));
  const [editor] = vscode.window.visibleTextEditors;
  assert.match(
    editor.document.getText(),
    /This document is read-only.*Edit the summaries in the ContextKeeper sidebar/,
  );

  showPreviewEdits(service, ['The agent read the parser.', 'The agent fixed the tests; CI is green.']);
  assert.deepEqual(fired, [editor.document.uri.toString()], 'the editor is told its text changed');
  const shown = documents.provideTextDocumentContent(editor.document.uri);
  assert.deepEqual(parsePreviewDocument(shown, 2), [
    'The agent read the parser.',
    'The agent fixed the tests; CI is green.',
  ]);
  assert.equal(reviewDocumentText(), shown);

  showPreviewEdits(service, ['only one text']);
  assert.equal(fired.length, 1, 'texts that do not match the summaries one for one change nothing');

  preview = undefined;
  changed.fire(undefined);
  await review;
  showPreviewEdits(service, ['late', 'edit']);
  assert.equal(fired.length, 1, 'nothing is shown once the review ended');
  assert.equal(reviewDocumentText(), undefined);
  subscription.dispose();
  documents.dispose();
  changed.dispose();
});

test('the Agent Sessions view opens its handoff through the shared provider and leaves it registered', () => {
  resetVscodeFake();
  const documents = new ReadOnlyDocuments();
  const log = new FakeLogChannel('test');
  for (const d of registerAgentSessions(log, documents)) d.dispose();
  assert.deepEqual(
    host.live('content-provider').map((r) => r.id),
    [READ_ONLY_SCHEME],
  );
  documents.dispose();
  log.dispose();
});
