/**
 * The approval flow as the user sees it, over a real context service whose loopback model asks to edit
 * a file: the proposed edit opens in a diff editor (current ↔ proposed, served by the proposal
 * documents), a cancellable notification says the agent waits, and the answer (diff editor's Allow,
 * the notification's Cancel, or the sidebar) decides whether the file is written. Every path closes
 * the diff and the notification.
 */
import '../support/vscode-fake/register';
import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { text, toolCalls } from '../../src/demo/modelserver/replies';
import { KeyStore } from '../../src/secrets/key-store';
import { Settings } from '../../src/settings/settings';
import { ApprovalPresenter } from '../../src/views/approvals';
import { SessionController } from '../../src/views/session-controller';
import { serviceFixture, type ServiceFixture } from '../service/fixtures';
import { host, resetVscodeFake, TabInputTextDiff, window, workspace } from '../support/vscode-fake';
import { FakeMemento, secretStorage } from '../support/vscode-fake/context';
import { FakeLogChannel } from '../support/vscode-fake/window-parts';
import { until } from '../support/until';

let fx: ServiceFixture;
let controller: SessionController;
let presenter: ApprovalPresenter;
let settings: Settings;
let keys: KeyStore;

beforeEach(async () => {
  resetVscodeFake();
  fx = await serviceFixture(
    (_body, n) =>
      n === 1
        ? toolCalls([
            {
              id: 'w1',
              name: 'edit_file',
              arguments: JSON.stringify({ path: 'notes.md', old_text: 'old line', new_text: 'new line' }),
            },
          ])
        : text('Done.'),
    { files: { 'notes.md': 'old line\n' }, autoApprove: {} },
  );
  settings = new Settings();
  keys = new KeyStore(secretStorage);
  controller = new SessionController(
    async () => fx.service,
    settings,
    keys,
    new FakeMemento(),
    new FakeLogChannel('test'),
  );
  await controller.ensure();
  presenter = new ApprovalPresenter(controller);
});

afterEach(async () => {
  presenter.dispose();
  controller.dispose();
  keys.dispose();
  settings.dispose();
  await fx.cleanup();
});

/** Starts the task and waits until the approval is on screen; returns the task and the diff's input. */
async function startAndWaitForApproval(): Promise<{ task: Promise<{ status: string }>; diff: TabInputTextDiff }> {
  const task = fx.service.runTask('Update the notes');
  await until(
    () => host.progress.length === 1 && window.tabGroups.activeTabGroup.activeTab !== undefined,
    'the diff editor and the notification',
  );
  const input = window.tabGroups.activeTabGroup.activeTab!.input;
  assert.ok(input instanceof TabInputTextDiff, 'a diff editor is active');
  return { task, diff: input };
}

const notes = () => readFileSync(path.join(fx.root, 'notes.md'), 'utf8');
const text$ = async (uri: vscode.Uri) => (await workspace.openTextDocument(uri)).getText();

test('the proposed edit opens as a diff of current and proposed text, with a cancellable notification', async () => {
  const { task, diff } = await startAndWaitForApproval();
  assert.equal(await text$(diff.original), 'old line\n');
  assert.equal(await text$(diff.modified), 'new line\n');
  assert.equal(host.progress[0].cancellable, true);
  assert.match(host.progress[0].title ?? '', /the agent asks to apply “.*notes\.md.*”/);
  assert.deepEqual(
    fx.service.getPendingApprovals().map((r) => r.kind),
    ['edit'],
  );
  assert.equal(notes(), 'old line\n', 'nothing is written before the answer');
  presenter.answerActive(false);
  await task;
});

test("Allow in the diff editor's title bar writes the edit, then the diff and the notification close", async () => {
  const { task } = await startAndWaitForApproval();
  presenter.answerActive(true);
  assert.equal((await task).status, 'done');
  assert.equal(notes(), 'new line\n');
  await until(
    () => host.progress.length === 0 && window.tabGroups.all[0].tabs.length === 0,
    'the notification and the diff to close',
  );
});

test("the notification's Cancel declines: the file stays as it was and the agent is told", async () => {
  const { task } = await startAndWaitForApproval();
  host.progress[0].cancel();
  assert.equal((await task).status, 'done');
  assert.equal(notes(), 'old line\n');
  const result = fx.service.getMessages().find((m) => m.role === 'tool');
  assert.match(String(result?.content), /denied|declined|not approved/i);
  await until(
    () => host.progress.length === 0 && window.tabGroups.all[0].tabs.length === 0,
    'the notification and the diff to close',
  );
});

test('an answer from the sidebar closes the diff and the notification by themselves', async () => {
  const { task, diff } = await startAndWaitForApproval();
  const [request] = fx.service.getPendingApprovals();
  fx.service.resolveApproval(request.requestId, true);
  assert.equal((await task).status, 'done');
  assert.equal(notes(), 'new line\n');
  await until(
    () => host.progress.length === 0 && window.tabGroups.all[0].tabs.length === 0,
    'the notification and the diff to close',
  );
  // The proposal's texts are forgotten with the request.
  assert.equal(await text$(diff.modified), '');
});
