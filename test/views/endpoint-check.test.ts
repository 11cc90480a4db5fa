/**
 * Choose Endpoint with a custom URL: the URL is checked as Test Connection checks it before it is
 * saved; when nothing answers there the user is told, naming it, and may keep it anyway, enter
 * another or give up (nothing saved). A server that answers (even refusing the request) is saved
 * without a warning.
 */
import '../support/vscode-fake/register';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import * as vscodeApi from 'vscode';
import { changeSettingsTogether, Settings } from '../../src/settings/settings';
import { endpointItems } from '../../src/views/onboarding';
import { activate } from '../../src/extension';
import { commands, host, resetVscodeFake } from '../support/vscode-fake';
import { fakeExtensionContext } from '../support/vscode-fake/context';
import type { FakeLogChannel } from '../support/vscode-fake/window-parts';
import { start } from '../../src/demo/modelserver/wire';

let storage: string;
let context: vscode.ExtensionContext;

before(() => {
  resetVscodeFake();
  storage = mkdtempSync(path.join(tmpdir(), 'ck-endpoint-'));
  context = fakeExtensionContext(storage);
  activate(context);
});
after(() => {
  for (const subscription of context.subscriptions) subscription.dispose();
  rmSync(storage, { recursive: true, force: true });
});

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A loopback HTTP server that answers every request with 401 (a hosted endpoint without a key). */
async function refusingServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createHttpServer((_req, res) => {
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'no key' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function unreachableWarnings(url: string) {
  return host.messages.filter(
    (m) => m.severity === 'warning' && m.message.includes(url) && m.message.includes('nothing answers'),
  );
}

test('an unreachable custom URL is checked before saving: the user is told, naming it, and may keep it anyway', async () => {
  const url = `http://127.0.0.1:${await closedPort()}/v1`;
  host.user.quickPick = (items) => items.find((i) => i.label.includes('Other'));
  host.user.input = () => url;
  host.user.message = (shown) => (shown.message.includes('nothing answers') ? 'Keep Anyway' : undefined);
  await commands.executeCommand('contextKeeper.pickEndpoint');
  const [warning] = unreachableWarnings(url);
  assert.ok(warning, 'a warning names the unreachable URL');
  assert.equal(warning.modal, true);
  assert.deepEqual(warning.items, ['Keep Anyway', 'Enter Another URL']);
  assert.equal(host.settingValue('contextKeeper.baseUrl'), url, 'kept when the user says so');
});

test('giving up on an unreachable custom URL saves nothing; Enter Another URL asks again', async () => {
  const before = host.settingValue('contextKeeper.baseUrl');
  const url = `http://127.0.0.1:${await closedPort()}/v2`;
  const good = await refusingServer();
  try {
    host.user.quickPick = (items) => items.find((i) => i.label.includes('Other'));
    host.user.input = () => url;
    host.user.message = () => undefined;
    await commands.executeCommand('contextKeeper.pickEndpoint');
    assert.equal(unreachableWarnings(url).length, 1);
    assert.equal(host.settingValue('contextKeeper.baseUrl'), before, 'nothing saved');
    // Second attempt: the user corrects the URL after the warning; the server there answers (401): saved, no new warning.
    const typed = [url, good.url];
    host.user.input = () => typed.shift();
    host.user.message = (shown) => (shown.message.includes('nothing answers') ? 'Enter Another URL' : undefined);
    await commands.executeCommand('contextKeeper.pickEndpoint');
    assert.equal(unreachableWarnings(url).length, 2);
    assert.equal(unreachableWarnings(good.url).length, 0, 'a server that answers, even refusing, is reachable');
    assert.equal(host.settingValue('contextKeeper.baseUrl'), good.url);
  } finally {
    await good.close();
  }
});

/** A loopback server posing as Ollama: lists `models`, answers every other request with 404. */
async function modelServer(models: string[]): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createHttpServer((req, res) => {
    res.writeHead(req.url?.endsWith('/models') ? 200 : 404, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify(
        req.url?.endsWith('/models')
          ? { object: 'list', data: models.map((id) => ({ id, object: 'model' })) }
          : { error: { message: 'not found' } },
      ),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

test('Choose Endpoint shows one notification, about the endpoint and model chosen; escaping a model the server does not serve writes nothing', async () => {
  const server = await modelServer(['llama3.1:8b', 'qwen2.5-coder:7b']);
  try {
    host.setSetting('contextKeeper.model', 'gpt-4o-mini');
    const before = host.settingValue('contextKeeper.baseUrl');
    host.user.quickPick = (items) => items.find((i) => i.label.includes('Other')) ?? undefined;
    host.user.input = () => server.url;
    host.user.message = () => undefined;
    await commands.executeCommand('contextKeeper.pickEndpoint');
    assert.equal(host.settingValue('contextKeeper.baseUrl'), before, 'escaping the model keeps the previous endpoint');

    const shown = host.messages.length;
    host.user.quickPick = (items) =>
      items.find((i) => i.label.includes('Other')) ?? items.find((i) => i.label === 'qwen2.5-coder:7b');
    await commands.executeCommand('contextKeeper.pickEndpoint');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const toasts = host.messages.slice(shown).filter((m) => !m.modal);
    assert.equal(toasts.length, 1, toasts.map((t) => t.message).join(' | '));
    assert.match(toasts[0].message, /qwen2\.5-coder:7b/);
    assert.doesNotMatch(toasts[0].message, /gpt-4o-mini/);
    assert.deepEqual(toasts[0].items, ['Test Connection'], 'a local server needs no key');
    assert.equal(host.settingValue('contextKeeper.baseUrl'), server.url);
    assert.equal(host.settingValue('contextKeeper.model'), 'qwen2.5-coder:7b');
  } finally {
    await server.close();
  }
});

test('escaping the model pick keeps the configured model when the server serves it, listed first', async () => {
  const server = await modelServer(['llama3.1:8b', 'e2e-scripted']);
  try {
    host.setSetting('contextKeeper.model', 'e2e-scripted');
    let modelRows: string[] = [];
    host.user.quickPick = (items) => {
      const other = items.find((i) => i.label.includes('Other'));
      if (other) return other;
      modelRows = items.map((i) => i.label);
      return undefined;
    };
    host.user.input = () => server.url;
    host.user.message = () => undefined;
    const shown = host.messages.length;
    await commands.executeCommand('contextKeeper.pickEndpoint');
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(modelRows, ['e2e-scripted', 'llama3.1:8b'], 'the configured model comes first');
    assert.equal(host.settingValue('contextKeeper.baseUrl'), server.url);
    assert.equal(host.settingValue('contextKeeper.model'), 'e2e-scripted');
    const toasts = host.messages.slice(shown).filter((m) => !m.modal);
    assert.equal(toasts.length, 1, toasts.map((t) => t.message).join(' | '));
    assert.match(toasts[0].message, new RegExp(`${server.url.replace(/[.]/g, '\\.')}, model e2e-scripted\\.$`));
    assert.equal(host.contextKeys.get('contextKeeper.endpointChosen'), true);
  } finally {
    await server.close();
  }
});

test('a running local server is listed first, so it is preselected', () => {
  const items = endpointItems([
    { name: 'Ollama', url: 'http://127.0.0.1:11434/v1', models: [{ id: 'qwen2.5-coder:7b', window: null }] },
    { name: 'LM Studio', url: 'http://127.0.0.1:1234/v1' },
  ]);
  assert.match(items[0].label, /Ollama/);
  assert.match(items[1].label, /OpenAI/);
  assert.match(items[2].label, /LM Studio/);
  assert.ok(items.at(-1)?.custom);
  // Nothing running: OpenAI first.
  assert.match(endpointItems([{ name: 'Ollama', url: 'http://127.0.0.1:11434/v1' }])[0].label, /OpenAI/);
});

test('settings written together are announced once, with all of them', async () => {
  const settings = new Settings();
  const seen: Array<[string, string]> = [];
  settings.onDidChange((value) => seen.push([value.baseUrl, value.model]));
  const config = vscodeApi.workspace.getConfiguration('contextKeeper');
  await changeSettingsTogether(async () => {
    await config.update('baseUrl', 'http://127.0.0.1:9/v1', 1);
    await config.update('model', 'qwen2.5-coder:7b', 1);
  });
  assert.deepEqual(seen, [['http://127.0.0.1:9/v1', 'qwen2.5-coder:7b']]);
  settings.dispose();
});

test('a typed URL is checked with the model being chosen and the window setting, not the model configured before', async () => {
  const server = await start({ models: ['e2e-scripted'], responder: () => ({ content: 'OK' }) });
  try {
    host.setSetting('contextKeeper.model', 'gpt-4o-mini');
    host.setSetting('contextKeeper.contextWindow', 32_000);
    host.user.quickPick = (items) =>
      items.find((i) => i.label.includes('Other')) ?? items.find((i) => i.label === 'e2e-scripted');
    host.user.input = () => server.url;
    host.user.message = () => undefined;
    const log = host
      .live('output-channel')
      .map((r) => r.target as FakeLogChannel)
      .find((channel) => channel.lines !== undefined);
    assert.ok(log);
    const logged = log.lines.length;
    await commands.executeCommand('contextKeeper.pickEndpoint');
    assert.deepEqual(
      server.requests.map((r) => r.model),
      ['e2e-scripted'],
      'the test request names the model chosen',
    );
    const check = log.lines.slice(logged).find((line) => line.includes('before saving it'));
    assert.ok(check, log.lines.slice(logged).join('\n'));
    assert.match(check, /Model e2e-scripted: 32,000 tokens/);
    assert.match(check, /A test request to e2e-scripted answered/);
    assert.doesNotMatch(check, /gpt-4o-mini/);
    assert.equal(host.settingValue('contextKeeper.model'), 'e2e-scripted');
    assert.equal(host.settingValue('contextKeeper.baseUrl'), server.url);
  } finally {
    host.setSetting('contextKeeper.contextWindow', 0);
    await server.close();
  }
});
