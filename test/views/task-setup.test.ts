/**
 * New Agent Task without an endpoint set up (no base URL, no stored key: what the welcome view calls
 * "No endpoint is set up yet"): from the palette and from the sidebar's Run, the task is not taken,
 * a warning says why and offers Choose Endpoint and Set API Key, and the button runs its command.
 * Once a base URL is set, or a key is stored for the OpenAI default, the task prompt opens as before.
 */
import '../support/vscode-fake/register';
import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { activate } from '../../src/extension';
import { missingEndpointNotice } from '../../src/views/commands/task-setup';
import { commands, host, resetVscodeFake } from '../support/vscode-fake';
import { fakeExtensionContext } from '../support/vscode-fake/context';
import { until } from '../support/until';

let storage: string;
let context: vscode.ExtensionContext;

beforeEach(() => {
  resetVscodeFake();
  storage = mkdtempSync(path.join(tmpdir(), 'ck-task-setup-'));
  context = fakeExtensionContext(storage);
});
afterEach(() => {
  for (const subscription of context.subscriptions) subscription.dispose();
  rmSync(storage, { recursive: true, force: true });
});

test('the notice is due only with neither a base URL nor a stored key, and offers both fixes', () => {
  assert.deepEqual(missingEndpointNotice(false, '')?.actions, ['Choose Endpoint', 'Set API Key']);
  assert.match(missingEndpointNotice(false, '  ')?.text ?? '', /no endpoint is set up yet/);
  assert.equal(missingEndpointNotice(true, ''), undefined, 'a stored key makes the OpenAI default usable');
  assert.equal(missingEndpointNotice(false, 'http://127.0.0.1:11434/v1'), undefined);
});

test('without an endpoint, the palette command asks for no task and offers Choose Endpoint and Set API Key', async () => {
  activate(context);
  const asked: Array<string | undefined> = [];
  host.user.input = (options) => (asked.push(options?.title), undefined);
  await commands.executeCommand('contextKeeper.newAgentTask');
  assert.deepEqual(asked, [], 'no task prompt');
  const shown = host.messages.at(-1);
  assert.equal(shown?.severity, 'warning');
  assert.match(shown?.message ?? '', /no endpoint is set up yet/);
  assert.deepEqual(shown?.items, ['Choose Endpoint', 'Set API Key']);
});

test("the sidebar's Run is refused the same way, no request is added, and Set API Key runs its command", async () => {
  const api = activate(context);
  const asked: Array<string | undefined> = [];
  host.user.input = (options) => (asked.push(options?.title), undefined);
  host.user.message = (shown) => (shown.items.includes('Set API Key') ? 'Set API Key' : undefined);
  const sidebar = host.live('webview-view').find((view) => view.id === 'contextKeeper.sidebar')?.target as {
    restoreTask(text: string): void;
  };
  const restored: string[] = [];
  sidebar.restoreTask = (text) => void restored.push(text);
  await commands.executeCommand('contextKeeper.newAgentTask', 'Fix the parser');
  assert.match(host.messages.find((m) => m.severity === 'warning')?.message ?? '', /no endpoint is set up yet/);
  assert.equal(
    api.getViewState().transcript.filter((item) => item.kind === 'user').length,
    0,
    'the task was not taken',
  );
  await until(() => asked.includes('Set API Key'), 'the Set API Key prompt');
  assert.deepEqual(restored, ['Fix the parser'], 'the task goes back into the box Run cleared');
  assert.ok(!host.messages.some((m) => m.severity === 'error'), 'no error toast');
});

test('with a base URL set, or a key stored for the OpenAI default, the task prompt opens', async () => {
  host.setSetting('contextKeeper.baseUrl', 'http://127.0.0.1:9/v1');
  activate(context);
  const asked: Array<string | undefined> = [];
  host.user.input = (options) => (
    asked.push(options?.title),
    options?.title === 'Set API Key' ? 'sk-test-key' : undefined
  );
  await commands.executeCommand('contextKeeper.newAgentTask');
  assert.deepEqual(asked, ['New Agent Task']);
  host.setSetting('contextKeeper.baseUrl', '');
  await commands.executeCommand('contextKeeper.setApiKey');
  await commands.executeCommand('contextKeeper.newAgentTask');
  assert.deepEqual(asked, ['New Agent Task', 'Set API Key', 'New Agent Task']);
  assert.ok(!host.messages.some((m) => /no endpoint is set up/.test(m.message)));
});
