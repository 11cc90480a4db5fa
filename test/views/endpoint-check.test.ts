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
import { activate } from '../../src/extension';
import { commands, host, resetVscodeFake } from '../support/vscode-fake';
import { fakeExtensionContext } from '../support/vscode-fake/context';

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
