/**
 * Every Apply of a summary preview writes what the sidebar shows: an edit typed in the sidebar is
 * applied by the editor's title-bar Apply (which passes its document's URI) and by the palette's
 * (no argument) as by the sidebar's own, and the notification gives the figures of what was applied.
 */
import '../support/vscode-fake/register';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { activate, type ContextKeeperApi } from '../../src/extension';
import { commands, EventEmitter, host, resetVscodeFake, Uri, window } from '../support/vscode-fake';
import { fakeExtensionContext } from '../support/vscode-fake/context';
import { until } from '../support/until';
import type { FakeLogChannel } from '../support/vscode-fake/window-parts';
import type { CompactOutcome } from '../../src/service/compaction/outcome';
import type { SidebarProvider } from '../../src/views/sidebar/sidebar-provider';
import { READ_ONLY_SCHEME } from '../../src/views/documents/read-only-documents';
import { reviewDocumentText } from '../../src/views/documents/preview-review';

let storage: string;
let context: vscode.ExtensionContext;
let api: ContextKeeperApi;
const fromSidebar = new EventEmitter<unknown>();
/** Every message the extension posted to the sidebar's page, in order. */
const posted: unknown[] = [];
/** Tokens after the latest proposal as it was proposed. */
let proposedAfter = 0;

before(async () => {
  resetVscodeFake();
  host.setSetting('contextKeeper.contextWindow', 100_000);
  host.setSetting('contextKeeper.previewSummary', true);
  storage = mkdtempSync(path.join(tmpdir(), 'ck-preview-apply-'));
  context = fakeExtensionContext(storage);
  api = activate(context);
  // The sidebar's page: what it posts reaches the extension as the real webview's messages do.
  const sidebar = host.live('webview-view').find((view) => view.id === 'contextKeeper.sidebar')
    ?.target as SidebarProvider;
  const never = new EventEmitter<void>();
  sidebar.resolveWebviewView({
    visible: true,
    onDidChangeVisibility: never.event,
    onDidDispose: never.event,
    webview: {
      options: {},
      html: '',
      cspSource: 'vscode-webview://fake',
      asWebviewUri: (uri: vscode.Uri) => uri,
      postMessage: async (message: unknown) => {
        posted.push(message);
        return true;
      },
      onDidReceiveMessage: fromSidebar.event,
    },
  } as unknown as vscode.WebviewView);
  fromSidebar.fire({ type: 'ready' });
});
after(() => {
  for (const subscription of context.subscriptions) subscription.dispose();
  rmSync(storage, { recursive: true, force: true });
});

/** Imports the demo recording into a new session and proposes a compaction of it; the proposed summaries. */
async function propose(): Promise<string[]> {
  await commands.executeCommand(
    'contextKeeper.importTranscript',
    Uri.file(path.resolve(__dirname, '../../../samples/demo-session.json')),
  );
  await until(() => api.getViewState().budget.counting !== true, 'the exact count');
  host.user.input = () => '';
  const outcome = await commands.executeCommand<CompactOutcome>('contextKeeper.compactConversation');
  assert.ok(outcome.preview?.summaries.length, 'a summary proposed');
  proposedAfter = outcome.preview.tokensAfter;
  return outcome.preview.summaries.map((s) => s.summary);
}

/** The summaries of the checkpoints added since there were `before`, as Copy Summary gives them. */
async function appliedSummaries(before: number): Promise<string> {
  const texts: string[] = [];
  for (const checkpoint of api.getViewState().checkpoints.slice(before)) {
    host.clipboard = '';
    await commands.executeCommand('contextKeeper.copySummary', checkpoint.id);
    texts.push(host.clipboard);
  }
  return texts.join('\n');
}

for (const [surface, apply] of [
  [
    "the editor's title bar",
    async () => {
      const editor = window.visibleTextEditors.find((e) => e.document.uri.scheme === READ_ONLY_SCHEME);
      assert.ok(editor, 'the review document is open');
      await commands.executeCommand('contextKeeper.applyPreview', editor.document.uri);
    },
  ],
  ['the command palette', () => commands.executeCommand('contextKeeper.applyPreview')],
] as const) {
  test(`Apply from ${surface} writes the summary as edited in the sidebar`, async () => {
    const proposed = await propose();
    await until(
      () => window.visibleTextEditors.some((e) => e.document.uri.scheme === READ_ONLY_SCHEME),
      'the review document',
    );
    const edited = proposed.map((text, k) => (k === 0 ? `${text}\n\nEdited by hand: keep the parser notes.` : text));
    fromSidebar.fire({ type: 'editPreview', summaries: edited });
    const before = api.getViewState().checkpoints.length;
    await apply();
    await until(() => api.getViewState().checkpoints.length > before, 'the checkpoints');
    const added = api.getViewState().checkpoints.slice(before);
    assert.equal(added.filter((c) => c.editedByHand).length, 1, 'the edited summary is marked');
    assert.match(await appliedSummaries(before), /Edited by hand: keep the parser notes\./);
    // The toast's figure is of the applied (longer) text, not of the proposal.
    const figure = /compacted [\d,]+ → ([\d,]+) tokens/.exec(
      host.messages.filter((m) => /compacted/.test(m.message)).at(-1)?.message ?? '',
    )?.[1];
    assert.ok(figure && Number(figure.replace(/,/g, '')) > proposedAfter, `${figure} vs ${proposedAfter}`);
    // One summarizer wrote it: named once, its figures not repeated as a breakdown.
    const toast = host.messages.filter((m) => /compacted/.test(m.message)).at(-1)!.message;
    assert.match(toast, /tokens by the (extractive summarizer|summary model)/, toast);
    const figures = toast.match(/\d[\d,]{3,}/g) ?? [];
    assert.equal(new Set(figures).size, figures.length, toast);
  });
}

test('the sidebar Apply writes its own texts, even where an earlier edit was reported', async () => {
  const proposed = await propose();
  fromSidebar.fire({
    type: 'editPreview',
    summaries: proposed.map((text) => `${text}\n\nA line typed, then deleted.`),
  });
  const before = api.getViewState().checkpoints.length;
  fromSidebar.fire({ type: 'applyPreview', summaries: proposed });
  await until(() => api.getViewState().checkpoints.length > before, 'the checkpoints');
  assert.ok(
    api
      .getViewState()
      .checkpoints.slice(before)
      .every((c) => !c.editedByHand),
  );
  assert.doesNotMatch(await appliedSummaries(before), /A line typed/);
});

/** The summary texts the review document shows, in order, each without the header line Apply writes first. */
function previewedSummaries(): string[] {
  const text = reviewDocumentText();
  assert.ok(text !== undefined, 'the review document is open');
  return text
    .split(/^<!-- summary \d+ of \d+[^\n]*\n/m)
    .slice(1)
    .map((part) =>
      part
        .trim()
        .replace(/^\[[^\]\n]*\]/, '')
        .trim(),
    );
}

test('an edited summary is applied exactly as the review document showed it', async () => {
  const proposed = await propose();
  await until(() => reviewDocumentText() !== undefined, 'the review document');
  // Spaces and blank lines around the text, as a box often holds: the document shows what Apply keeps.
  const edited = proposed.map((text, k) => (k === 0 ? `\n  ${text}\n\nEdited: keep the parser notes.  \n\n` : text));
  fromSidebar.fire({ type: 'editPreview', summaries: edited });
  const shown = previewedSummaries();
  assert.equal(shown.length, proposed.length);
  assert.match(shown[0], /Edited: keep the parser notes\.$/);
  const before = api.getViewState().checkpoints.length;
  await commands.executeCommand('contextKeeper.applyPreview');
  await until(() => api.getViewState().checkpoints.length > before, 'the checkpoints');
  // Each applied summary is one the document showed, whatever order the history lists them in.
  const applied: string[] = [];
  for (const checkpoint of api.getViewState().checkpoints.slice(before)) {
    await commands.executeCommand('contextKeeper.copySummary', checkpoint.id);
    applied.push(host.clipboard);
    if (host.clipboard === shown[0]) assert.ok(checkpoint.editedByHand, 'the edited summary is marked');
  }
  assert.deepEqual(applied.sort(), [...shown].sort());
});

for (const [surface, apply] of [
  ['the palette', () => commands.executeCommand('contextKeeper.applyPreview')],
  ['the sidebar', (texts: string[]) => fromSidebar.fire({ type: 'applyPreview', summaries: texts })],
] as const) {
  test(`an emptied summary is refused by Apply from ${surface}, with the reason in the review document and an error notice`, async () => {
    const proposed = await propose();
    await until(() => reviewDocumentText() !== undefined, 'the review document');
    const emptied = proposed.map((text, k) => (k === 0 ? '  \n ' : text));
    fromSidebar.fire({ type: 'editPreview', summaries: emptied });
    const which = proposed.length === 1 ? 'the summary' : `summary 1 of ${proposed.length}`;
    assert.match(
      reviewDocumentText() ?? '',
      new RegExp(
        `<!-- Apply is refused: ${which} is empty, and an empty summary would lose the [\\d,]+ messages? it replaces`,
      ),
    );
    const before = api.getViewState().checkpoints.length;
    const warnings = host.messages.length;
    await apply(emptied);
    await until(() => host.messages.slice(warnings).some((m) => /is empty/.test(m.message)), 'the refusal');
    assert.match(
      host.messages.slice(warnings).find((m) => /is empty/.test(m.message))!.message,
      new RegExp(
        `^ContextKeeper: nothing applied: ${which} is empty, .* it replaces; write it in the sidebar or Discard the preview$`,
      ),
    );
    assert.equal(api.getViewState().checkpoints.length, before, 'nothing applied');
    assert.ok(api.getViewState().preview, 'the preview still waits, to be written or discarded');
    assert.notEqual(api.getViewState().state, 'error');
    // Written again, it applies.
    fromSidebar.fire({ type: 'editPreview', summaries: proposed });
    await commands.executeCommand('contextKeeper.applyPreview');
    await until(() => api.getViewState().checkpoints.length > before, 'the checkpoints');
    assert.deepEqual((await appliedSummaries(before)).split('\n').sort(), proposed.join('\n').split('\n').sort());
  });
}

test('a preview discarded because the context changed says why, and its card and document go', async () => {
  await propose();
  const entry = api.getViewState().transcript.find((item) => 'entryId' in item && item.kind === 'user');
  assert.ok(entry && 'entryId' in entry);
  await commands.executeCommand('contextKeeper.pinMessage', entry.entryId);
  await until(() => api.getViewState().preview === undefined, 'the preview card to go');
  assert.ok(
    host.messages.some((m) => m.message === 'ContextKeeper: summary preview discarded: a message was pinned.'),
    host.messages.map((m) => m.message).join('\n'),
  );
  assert.notEqual(api.getViewState().state, 'error');
});

test('a sidebar page that reloads during an edited preview shows the edits, and Apply writes them', async () => {
  const proposed = await propose();
  const edited = proposed.map((text, k) => (k === 0 ? `${text}\n\nEdited before the page reloaded.` : text));
  fromSidebar.fire({ type: 'editPreview', summaries: edited });
  const sent = posted.length;
  fromSidebar.fire({ type: 'ready' });
  await until(() => posted.slice(sent).some((m) => JSON.stringify(m).includes('"preview"')), 'the page snapshot');
  const snapshot = JSON.stringify(posted.slice(sent));
  assert.match(snapshot, /Edited before the page reloaded\./, 'the reloaded card shows the edited text');
  const before = api.getViewState().checkpoints.length;
  await commands.executeCommand('contextKeeper.applyPreview');
  await until(() => api.getViewState().checkpoints.length > before, 'the checkpoints');
  assert.match(await appliedSummaries(before), /Edited before the page reloaded\./);
});

test('an import or a new session while a preview waits is refused unless the preview is discarded', async () => {
  await propose();
  const session = api.getViewState().sessionId;
  const demo = Uri.file(path.resolve(__dirname, '../../../samples/demo-session.json'));
  // Dismissed: nothing happens, the preview stays.
  host.user.message = () => undefined;
  await commands.executeCommand('contextKeeper.importTranscript', demo);
  await commands.executeCommand('contextKeeper.newSession');
  assert.equal(api.getViewState().sessionId, session, 'the session shown is unchanged');
  assert.ok(api.getViewState().preview, 'the preview still waits');
  const refusals = host.messages.filter((m) => /a summary preview is waiting in this session/.test(m.message));
  assert.deepEqual(
    refusals.map((m) => /before (importing a transcript|starting a new session)\.$/.exec(m.message)?.[1]),
    ['importing a transcript', 'starting a new session'],
  );
  // Discarded: the import goes ahead, with no preview left behind.
  host.user.message = (shown) => (shown.items.includes('Discard Preview') ? 'Discard Preview' : undefined);
  await commands.executeCommand('contextKeeper.importTranscript', demo);
  await until(() => api.getViewState().sessionId !== session, 'the imported session');
  assert.equal(api.getViewState().preview, undefined);
  host.user.message = () => undefined;
});

/** The running review notifications (one per open review of a proposed summary). */
const reviewNotices = () => host.progress.filter((p) => /a proposed summary is open in the editor/.test(p.title ?? ''));

test('a settings change while a preview waits reopens the session once the preview is discarded, and the review ends', async () => {
  await propose();
  await until(() => reviewNotices().length === 1, 'the review notification');
  const log = host.live('output-channel').find((r) => r.id === 'ContextKeeper')?.target as FakeLogChannel;
  const reloads = () => log.lines.filter((l) => /Reloading the context service/.test(l)).length;
  const before = reloads();
  host.setSetting('contextKeeper.keepRecentSteps', 3);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.ok(api.getViewState().preview, 'the preview still waits');
  assert.equal(reviewNotices().length, 1, 'its review goes on');
  assert.equal(reloads(), before, 'the session is not reopened under the preview');
  await commands.executeCommand('contextKeeper.discardPreview');
  await until(() => reviewNotices().length === 0, 'the review notification to end');
  await until(() => reloads() === before + 1, 'the deferred reopen');
  assert.equal(api.getViewState().preview, undefined);
});

test('the review notification ends with its preview when the shown session is deleted, and stays gone across switches', async () => {
  await propose();
  await until(() => reviewNotices().length === 1, 'the review notification');
  host.user.message = (shown) => (shown.items.includes('Delete') ? 'Delete' : undefined);
  await commands.executeCommand('contextKeeper.deleteSession', api.getViewState().sessionId);
  host.user.message = () => undefined;
  await until(() => api.getViewState().preview === undefined, 'the preview to go');
  await until(() => reviewNotices().length === 0, 'the review notification to end');
  // The review is over: its document is closed and its title-bar buttons go.
  await until(() => host.contextKeys.get('contextKeeper.reviewingSummary') === false, 'the review to end');
  assert.ok(host.executed.some((c) => c.id === 'workbench.action.revertAndCloseActiveEditor'));
  // Away and back: no preview, no notification.
  const shown = api.getViewState().sessionId!;
  const other = api.getViewState().sessions.find((s) => s.id !== shown)!.id;
  for (const id of [other, shown]) {
    await commands.executeCommand('contextKeeper.switchSession', id);
    await until(() => api.getViewState().sessionId === id, 'the switch');
    assert.equal(reviewNotices().length, 0);
    assert.equal(api.getViewState().preview, undefined);
  }
});
