/**
 * The API key through the running extension (typed `vscode` fake): **Set API Key** stores the trimmed
 * key in SecretStorage and nowhere else (no setting is written, no log line or message carries it),
 * the views learn only that a key is set, **Clear API Key** removes it, and a key set in another
 * window is seen here.
 */
import '../support/vscode-fake/register';
import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { activate } from '../../src/extension';
import { KeyStore } from '../../src/secrets/key-store';
import { commands, host, resetVscodeFake } from '../support/vscode-fake';
import { changeSecretElsewhere, fakeExtensionContext, secretStorage } from '../support/vscode-fake/context';
import type { FakeLogChannel } from '../support/vscode-fake/window-parts';
import { until } from '../support/until';

const KEY = 'sk-test-0123456789abcdefXYZ';
const SECRET_NAME = 'contextKeeper.apiKey';
let storage: string;
let context: vscode.ExtensionContext;

beforeEach(() => {
  resetVscodeFake();
  storage = mkdtempSync(path.join(tmpdir(), 'ck-keys-'));
  context = fakeExtensionContext(storage);
  activate(context);
});
afterEach(() => {
  for (const subscription of context.subscriptions) subscription.dispose();
  rmSync(storage, { recursive: true, force: true });
});

/** Everything the extension wrote where a user or another extension could read it. */
function visibleText(): string {
  const log = host.live('output-channel').flatMap((r) => (r.target as FakeLogChannel).lines);
  const settings = [...host.settings.values()].map((layers) => JSON.stringify(layers));
  return [
    ...log,
    ...settings,
    ...host.messages.map((m) => m.message),
    JSON.stringify(host.settingUpdates),
    JSON.stringify([...host.contextKeys]),
  ].join('\n');
}

test('Set API Key stores the trimmed key in secret storage only; the views learn that a key is set', async () => {
  let prompt: vscode.InputBoxOptions | undefined;
  host.user.input = (options) => {
    prompt = options;
    return `  ${KEY}\n`;
  };
  await commands.executeCommand('contextKeeper.setApiKey');
  assert.equal(prompt?.password, true, 'typed as a password');
  assert.equal(host.secrets.get(SECRET_NAME), KEY);
  assert.deepEqual(host.settingUpdates, [], 'no setting written');
  await until(() => host.contextKeys.get('contextKeeper.hasApiKey') === true, 'the hasApiKey context key');
  assert.equal(host.messages.at(-1)?.message, 'ContextKeeper: API key stored.');
  assert.doesNotMatch(visibleText(), /0123456789abcdef/);
});

test('the prompt refuses an empty key, and Escape stores nothing', async () => {
  let verdict: unknown;
  host.user.input = (options) => {
    verdict = options?.validateInput?.('   ');
    return undefined;
  };
  await commands.executeCommand('contextKeeper.setApiKey');
  assert.equal(verdict, 'Enter a key, or press Escape.');
  assert.equal(host.secrets.has(SECRET_NAME), false);
  assert.deepEqual(host.messages, []);
});

test('Clear API Key removes the key from secret storage and the views follow', async () => {
  host.user.input = () => KEY;
  await commands.executeCommand('contextKeeper.setApiKey');
  await until(() => host.contextKeys.get('contextKeeper.hasApiKey') === true, 'the key to be seen');
  await commands.executeCommand('contextKeeper.clearApiKey');
  assert.equal(host.secrets.has(SECRET_NAME), false);
  await until(() => host.contextKeys.get('contextKeeper.hasApiKey') === false, 'the key to be gone');
  assert.equal(host.messages.at(-1)?.message, 'ContextKeeper: API key cleared.');
});

test('a key stored from another window is seen here; the first read is not reported as a change', async () => {
  const keys = new KeyStore(secretStorage);
  let changes = 0;
  keys.onDidChange(() => changes++);
  await keys.whenLoaded;
  assert.equal(keys.hasKey, false);
  assert.equal(changes, 0);
  changeSecretElsewhere(SECRET_NAME, KEY);
  await until(() => keys.hasKey, 'the key from the other window');
  assert.equal(await keys.get(), KEY);
  assert.equal(changes, 1);
  changeSecretElsewhere('someOtherExtension.token', 'x');
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(changes, 1, 'other secrets do not count');
  keys.dispose();
});
