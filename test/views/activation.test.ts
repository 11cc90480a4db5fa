/**
 * The extension as VS Code runs it, against the typed `vscode` fake: activation registers every
 * contributed command, the views and the status bar; deactivation (disposing `context.subscriptions`)
 * releases every registration, listener and emitter; a session open before a reload shows its level
 * in the status bar shortly after start, without any click.
 */
import '../support/vscode-fake/register';
import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { activate, deactivate } from '../../src/extension';
import { commands, host, liveEmitters, resetVscodeFake, Uri, window, workspace } from '../support/vscode-fake';
import { fakeExtensionContext, FakeMemento } from '../support/vscode-fake/context';
import type { FakeStatusBarItem } from '../support/vscode-fake/window-parts';
import { until } from '../support/until';
import { CHECKPOINT_SCHEME } from '../../src/views/documents/checkpoint-documents';

const root = path.resolve(__dirname, '../../..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  activationEvents: string[];
  contributes: { commands: Array<{ command: string }>; views: Record<string, Array<{ id: string; type?: string }>> };
};
let storage: string;

beforeEach(() => {
  resetVscodeFake();
  storage = mkdtempSync(path.join(tmpdir(), 'ck-activation-'));
});
afterEach(() => rmSync(storage, { recursive: true, force: true }));

/** What VS Code does on deactivation: dispose every subscription, then call `deactivate`. */
function shutDown(context: vscode.ExtensionContext): void {
  for (const subscription of context.subscriptions) subscription.dispose();
  deactivate();
}

function statusItem(): FakeStatusBarItem {
  const items = host.live('status-bar-item');
  assert.equal(items.length, 1, 'one status bar item');
  return items[0].target as FakeStatusBarItem;
}

test('activation registers every contributed command, the four document schemes, the views and a visible status bar item', async () => {
  const context = fakeExtensionContext(storage);
  const api = activate(context);
  try {
    const registered = new Set(host.live('command').map((r) => r.id));
    for (const { command } of manifest.contributes.commands)
      assert.ok(registered.has(command), `${command} is contributed but not registered`);
    // Commands only the sidebar and the diff editor's buttons run are registered too, and named like the rest.
    for (const id of registered) assert.match(id, /^contextKeeper\./);
    assert.deepEqual(
      host
        .live('content-provider')
        .map((r) => r.id)
        .sort(),
      ['contextkeeper-agent', 'contextkeeper-checkpoint', 'contextkeeper-document', 'contextkeeper-proposal'],
    );
    const views = Object.values(manifest.contributes.views).flat();
    for (const view of views) {
      const kind = view.type === 'webview' ? 'webview-view' : 'tree';
      assert.ok(
        host.live(kind).some((r) => r.id === view.id),
        `view ${view.id} has a provider`,
      );
    }
    const item = statusItem();
    assert.equal(item.visible, true);
    assert.equal(item.command, 'contextKeeper.sidebar.focus');
    assert.equal(api.getViewState().budget.used, 0, 'no session opened at activation');
    await until(() => item.text !== '', 'the first redraw');
    assert.equal(
      item.text,
      '$(dashboard) ContextKeeper',
      'no conversation yet: no "0%" for a session that does not exist',
    );
    assert.match(String(item.tooltip), /no conversation in this workspace yet/);
  } finally {
    shutDown(context);
  }
});

test('deactivation releases every command, provider, view, status bar item, channel, listener and emitter', async () => {
  const context = fakeExtensionContext(storage);
  activate(context);
  // Let the first redraw and the key store's first read run, so their listeners exist too.
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.ok(host.live().length > 20);
  assert.ok(host.editorListenerCount() > 0);
  shutDown(context);
  assert.deepEqual(
    host.live().map((r) => `${r.kind} ${r.id}`),
    [],
  );
  assert.equal(host.editorListenerCount(), 0, 'listeners on the editor events');
  assert.equal(liveEmitters.size, 0, 'emitters the extension created and did not dispose');
  // A command run after deactivation reaches nothing of the extension.
  host.user.input = () => assert.fail('no command may prompt after deactivation');
  assert.equal(await commands.executeCommand('contextKeeper.setApiKey'), undefined);
  assert.deepEqual(host.executed.at(-1), { id: 'contextKeeper.setApiKey', args: [] });
});

test('a session open before a reload shows its last known level while it loads, then its level', async () => {
  host.setSetting('contextKeeper.contextWindow', 100_000);
  const workspaceState = new FakeMemento();
  const first = fakeExtensionContext(storage, workspaceState);
  activate(first);
  await commands.executeCommand(
    'contextKeeper.importTranscript',
    Uri.file(path.join(root, 'samples/demo-session.json')),
  );
  assert.match(host.messages.at(-1)?.message ?? '', /46 messages imported/);
  await until(() => /[1-9]\d*%/.test(statusItem().text), 'the imported session on the status bar', 30_000);
  const shown = statusItem().text;
  shutDown(first);

  // A reload: the same workspace state and storage, a new extension instance.
  const second = fakeExtensionContext(storage, workspaceState);
  const api = activate(second);
  try {
    await until(() => statusItem().text !== '', 'the first redraw');
    // Until the stored session is read: a loading state with the figure last shown, labelled as such.
    const [, percent, tokens] = /(\d+%) · ~?(\S+)$/.exec(shown) ?? [];
    assert.equal(statusItem().text, `$(sync~spin) ${percent} · ~${tokens} (last known)`);
    await until(() => statusItem().text === shown, `the status bar to show "${shown}" again`, 30_000);
    const budget = api.getViewState().budget;
    assert.equal(budget.used > 0, true);
    assert.match(shown, new RegExp(` ${Math.round((budget.used / budget.inputBudget) * 100)}% `));
  } finally {
    shutDown(second);
  }
});

test('every document scheme activates the extension, so an editor tab restored by a reload finds its provider', () => {
  const context = fakeExtensionContext(storage);
  activate(context);
  try {
    // VS Code restores editor tabs before `onStartupFinished`; a scheme without a provider then
    // fails to resolve ("Unable to resolve resource") and the tab is lost. It activates on
    // `onFileSystem:<scheme>` first.
    const schemes = host.live('content-provider').map((r) => r.id);
    assert.ok(schemes.length >= 4);
    for (const scheme of schemes)
      assert.ok(
        manifest.activationEvents.includes(`onFileSystem:${scheme}`),
        `documents of ${scheme}: are restored before activation`,
      );
  } finally {
    shutDown(context);
  }
});

test('checkpoint documents are served by a file system, so their kept tabs are persisted across a reload', () => {
  const context = fakeExtensionContext(storage);
  activate(context);
  try {
    // The workbench writes out at shutdown only editors whose scheme a file system serves; a scheme
    // served by a content provider alone loses its tabs on Reload Window.
    assert.ok(host.live('file-system').some((r) => r.id === CHECKPOINT_SCHEME));
  } finally {
    shutDown(context);
  }
});

test('checkpoint and compare tabs restored after a reload show the same checkpoint, or say it is gone', async () => {
  host.setSetting('contextKeeper.contextWindow', 100_000);
  const workspaceState = new FakeMemento();
  const first = fakeExtensionContext(storage, workspaceState);
  const api = activate(first);
  await commands.executeCommand(
    'contextKeeper.importTranscript',
    Uri.file(path.join(root, 'samples/demo-session.json')),
  );
  await commands.executeCommand('contextKeeper.compactConversation', { focus: '' });
  const id = api.getViewState().checkpoints[0]?.id;
  assert.ok(id, 'a checkpoint');
  await commands.executeCommand('contextKeeper.openCheckpoint', id);
  const record = window.visibleTextEditors[0].document;
  await commands.executeCommand('contextKeeper.diffCheckpoint', id);
  const [left, right] = host.executed.filter((e) => e.id === 'vscode.diff').at(-1)!.args as [Uri, Uri];
  const uris = [record.uri, left, right];
  const before = await Promise.all(uris.map(async (uri) => (await workspace.openTextDocument(uri)).getText()));
  assert.match(before[0], new RegExp(`# Checkpoint ${id}`));
  shutDown(first);

  // A reload: the tabs come back with their URIs before the stored session is opened.
  const second = fakeExtensionContext(storage, workspaceState);
  activate(second);
  try {
    const after = await Promise.all(uris.map(async (uri) => (await workspace.openTextDocument(uri)).getText()));
    assert.deepEqual(after, before);
    const gone = record.uri.with({ path: record.uri.path.replace(encodeURIComponent(id), 'cp-404') });
    // Said as what the tab showed: the record of that checkpoint, by the title it was opened with, in its session.
    const said = (await workspace.openTextDocument(gone)).getText();
    assert.match(
      said,
      /^# Checkpoint cp-404 was not found\n\nThis tab showed the record of checkpoint cp-404 \(“[^”]+ manual [^”]+”\) of session \S+, which no longer holds it/,
    );
  } finally {
    shutDown(second);
  }
});

test('in a session continued from a recording, after a restore, checkpoint and compare tabs restored after a reload show the same checkpoint', async () => {
  host.setSetting('contextKeeper.contextWindow', 100_000);
  const workspaceState = new FakeMemento();
  const first = fakeExtensionContext(storage, workspaceState);
  const api = activate(first);
  await commands.executeCommand(
    'contextKeeper.importTranscript',
    Uri.file(path.join(root, 'samples/demo-session.json')),
  );
  await commands.executeCommand('contextKeeper.compactConversation', { focus: '' });
  const recorded = api.getViewState().checkpoints[0]?.id;
  assert.ok(recorded, 'a checkpoint in the recording');
  host.user.message = (shown) => (shown.modal ? shown.items[0] : undefined);
  await commands.executeCommand('contextKeeper.continueInNewTask');
  const source = api.getViewState().source ?? '';
  assert.match(source, /^Agent session/, 'the continued session is shown');
  // Tabs of the continued session: the record and the compare of the checkpoint it carries over,
  // then a restore of it, as the tester's session had.
  await commands.executeCommand('contextKeeper.openCheckpoint', recorded);
  const record = window.visibleTextEditors[0].document;
  await commands.executeCommand('contextKeeper.diffCheckpoint', recorded);
  const [left, right] = host.executed.filter((e) => e.id === 'vscode.diff').at(-1)!.args as [Uri, Uri];
  host.user.message = (shown) => (shown.modal ? 'Restore' : undefined);
  await commands.executeCommand('contextKeeper.restoreCheckpoint', recorded);
  assert.ok(api.getViewState().checkpoints.find((c) => c.id === recorded)?.restored, 'restored');
  const uris = [record.uri, left, right];
  const before = await Promise.all(uris.map(async (uri) => (await workspace.openTextDocument(uri)).getText()));
  assert.match(before[0], new RegExp(`# Checkpoint ${recorded}`));
  assert.match(before[0], /\| Restored \|/);
  shutDown(first);

  const second = fakeExtensionContext(storage, workspaceState);
  activate(second);
  try {
    const after = await Promise.all(uris.map(async (uri) => (await workspace.openTextDocument(uri)).getText()));
    assert.deepEqual(after, before);
  } finally {
    shutDown(second);
  }
});
