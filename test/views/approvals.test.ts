/**
 * The approval flow as the user sees it, over a real context service whose loopback model asks to edit
 * a file: the proposed edit opens in a diff editor (current ↔ proposed, served by the proposal
 * documents), a notification with Allow and Deny links says the agent waits, and the answer (diff
 * editor's Allow, the notification's links, or the sidebar) decides whether the file is written. Every
 * path closes the diff and the notification, so none is left in the notification centre once spent.
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
import {
  commands,
  host,
  ProgressLocation,
  resetVscodeFake,
  TabInputTextDiff,
  window,
  workspace,
} from '../support/vscode-fake';
import type { RunningProgress } from '../support/vscode-fake/host';
import { FakeMemento, secretStorage } from '../support/vscode-fake/context';
import { FakeLogChannel } from '../support/vscode-fake/window-parts';
import { until } from '../support/until';
import { Commands } from '../../src/views/commands/command-ids';

let fx: ServiceFixture;
let controller: SessionController;
let presenter: ApprovalPresenter;
let settings: Settings;
let keys: KeyStore;
let answerCommand: vscode.Disposable;

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
  answerCommand = commands.registerCommand(Commands.answerApproval, (requestId: string, approved: boolean) =>
    controller.current?.resolveApproval(requestId, approved),
  );
});

afterEach(async () => {
  answerCommand.dispose();
  presenter.dispose();
  controller.dispose();
  keys.dispose();
  settings.dispose();
  await fx.cleanup();
});

/** The approval's notification while it is open. */
const notice = (): RunningProgress | undefined => host.progress.find((p) => /the agent asks to/.test(p.title ?? ''));
/** The notification's text as VS Code shows it: the title, then the message. */
const noticeText = () => `${notice()?.title ?? ''}: ${notice()?.message ?? ''}`;

/**
 * Clicks the notification's link labelled `label`: runs its `command:` URI as VS Code does, through
 * the answer command (registered here as the extension's command table registers it).
 */
async function click(label: 'Allow' | 'Deny'): Promise<void> {
  const link = new RegExp(`\\[${label}\\]\\((command:[^)]+)\\)`).exec(noticeText())?.[1];
  assert.ok(link, `a ${label} link in: ${noticeText()}`);
  const [id, query] = link.slice('command:'.length).split('?');
  assert.equal(id, Commands.answerApproval);
  await commands.executeCommand(id, ...(JSON.parse(decodeURIComponent(query)) as unknown[]));
}

/** Starts the task and waits until the approval is on screen; returns the task and the diff's input. */
async function startAndWaitForApproval(): Promise<{ task: Promise<{ status: string }>; diff: TabInputTextDiff }> {
  const task = fx.service.runTask('Update the notes');
  await until(
    () => notice() !== undefined && window.tabGroups.activeTabGroup.activeTab !== undefined,
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
  const asked = notice()!;
  assert.equal(asked.location, ProgressLocation.Notification);
  // The links lead the first line, which is all a collapsed progress notification shows.
  assert.match(
    asked.title ?? '',
    /^ContextKeeper: \[Allow\]\(command:[^)]+\) or \[Deny\]\(command:[^)]+\): the agent asks to apply “.*notes\.md.*”$/,
  );
  assert.equal(asked.message, 'You can also answer in the sidebar or in the diff editor’s title bar.');
  assert.equal(asked.cancellable, false, 'no Cancel button that would read as a third answer');
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
    () => window.tabGroups.all[0].tabs.length === 0 && notice() === undefined,
    'the diff and notice to close',
  );
});

test("the notification's Allow writes the edit and closes the diff and the notification", async () => {
  const { task } = await startAndWaitForApproval();
  await click('Allow');
  assert.equal((await task).status, 'done');
  assert.equal(notes(), 'new line\n');
  await until(
    () => window.tabGroups.all[0].tabs.length === 0 && notice() === undefined,
    'the diff and notice to close',
  );
});

test("the notification's Deny declines: the file stays as it was and the agent is told", async () => {
  const { task } = await startAndWaitForApproval();
  await click('Deny');
  assert.equal((await task).status, 'done');
  assert.equal(notes(), 'old line\n');
  const result = fx.service.getMessages().find((m) => m.role === 'tool');
  assert.match(String(result?.content), /denied|declined|not approved/i);
  await until(
    () => window.tabGroups.all[0].tabs.length === 0 && notice() === undefined,
    'the diff and notice to close',
  );
});

test('an answer from the sidebar closes the diff and the notification by themselves: nothing spent stays in the notification centre', async () => {
  const { task, diff } = await startAndWaitForApproval();
  const [request] = fx.service.getPendingApprovals();
  fx.service.resolveApproval(request.requestId, true);
  assert.equal((await task).status, 'done');
  assert.equal(notes(), 'new line\n');
  await until(() => window.tabGroups.all[0].tabs.length === 0, 'the diff to close');
  await until(() => notice() === undefined, 'the notification to close');
  assert.equal(host.progress.length, 0, 'no notification left running');
  // The proposal's texts are forgotten with the request.
  assert.match(
    await text$(diff.modified),
    /^This proposed edit is no longer waiting for approval/,
    'its text is let go, and the tab says so',
  );
});

test('a notification still open when the presenter is disposed (extension deactivated) is closed', async () => {
  const { task } = await startAndWaitForApproval();
  presenter.dispose();
  await until(() => notice() === undefined, 'the notification to close');
  fx.service.resolveApproval(fx.service.getPendingApprovals()[0].requestId, false);
  await task;
});
