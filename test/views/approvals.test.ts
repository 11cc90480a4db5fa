/**
 * The approval flow as the user sees it, over a real context service whose loopback model asks to edit
 * a file: the proposed edit opens in a diff editor (current ↔ proposed, served by the proposal
 * documents), a notification with Allow and Deny says the agent waits, and the answer (diff editor's
 * Allow, the notification's buttons, or the sidebar) decides whether the file is written. Every path
 * closes the diff; a notification button pressed after the sidebar answered changes nothing and says so.
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
    () =>
      host.messages.some((m) => m.items.includes('Allow')) && window.tabGroups.activeTabGroup.activeTab !== undefined,
    'the diff editor and the notification',
  );
  const input = window.tabGroups.activeTabGroup.activeTab!.input;
  assert.ok(input instanceof TabInputTextDiff, 'a diff editor is active');
  return { task, diff: input };
}

const notes = () => readFileSync(path.join(fx.root, 'notes.md'), 'utf8');
const text$ = async (uri: vscode.Uri) => (await workspace.openTextDocument(uri)).getText();

test('the proposed edit opens as a diff of current and proposed text, with a notification offering Allow and Deny', async () => {
  const { task, diff } = await startAndWaitForApproval();
  assert.equal(await text$(diff.original), 'old line\n');
  assert.equal(await text$(diff.modified), 'new line\n');
  const [asked] = host.messages;
  assert.match(asked.message, /the agent asks to apply “.*notes\.md.*”/);
  assert.deepEqual(asked.items, ['Allow', 'Deny']);
  assert.deepEqual(
    fx.service.getPendingApprovals().map((r) => r.kind),
    ['edit'],
  );
  assert.equal(notes(), 'old line\n', 'nothing is written before the answer');
  presenter.answerActive(false);
  await task;
});

test("Allow in the diff editor's title bar writes the edit, then the diff closes", async () => {
  const { task } = await startAndWaitForApproval();
  presenter.answerActive(true);
  assert.equal((await task).status, 'done');
  assert.equal(notes(), 'new line\n');
  await until(() => window.tabGroups.all[0].tabs.length === 0, 'the diff to close');
});

test("the notification's Allow writes the edit and closes the diff", async () => {
  host.user.message = (m) => (m.items.includes('Allow') ? 'Allow' : undefined);
  // Answered the moment it is shown: the diff closes at once.
  const task = fx.service.runTask('Update the notes');
  assert.equal((await task).status, 'done');
  assert.equal(notes(), 'new line\n');
  await until(() => window.tabGroups.all[0].tabs.length === 0, 'the diff to close');
});

test("the notification's Deny declines: the file stays as it was and the agent is told", async () => {
  host.user.message = (m) => (m.items.includes('Deny') ? 'Deny' : undefined);
  // Answered the moment it is shown: the diff closes at once.
  const task = fx.service.runTask('Update the notes');
  assert.equal((await task).status, 'done');
  assert.equal(notes(), 'old line\n');
  const result = fx.service.getMessages().find((m) => m.role === 'tool');
  assert.match(String(result?.content), /denied|declined|not approved/i);
  await until(() => window.tabGroups.all[0].tabs.length === 0, 'the diff to close');
});

test('a notification button pressed after the sidebar answered changes nothing and says so', async () => {
  // The sidebar allows while the notification is still on screen; then Deny is pressed on it.
  host.user.message = (m) => {
    if (!m.items.includes('Deny')) return undefined;
    const [request] = fx.service.getPendingApprovals();
    fx.service.resolveApproval(request.requestId, true);
    return 'Deny';
  };
  const task = fx.service.runTask('Update the notes');
  assert.equal((await task).status, 'done');
  assert.equal(notes(), 'new line\n', "the sidebar's Allow stands");
  await until(() => host.messages.some((m) => /was already answered; nothing changed/.test(m.message)), 'the note');
});

test('an answer from the sidebar closes the diff by itself', async () => {
  const { task, diff } = await startAndWaitForApproval();
  const [request] = fx.service.getPendingApprovals();
  fx.service.resolveApproval(request.requestId, true);
  assert.equal((await task).status, 'done');
  assert.equal(notes(), 'new line\n');
  await until(() => window.tabGroups.all[0].tabs.length === 0, 'the diff to close');
  // The proposal's texts are forgotten with the request.
  assert.equal(await text$(diff.modified), '');
});
