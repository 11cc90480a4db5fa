/**
 * Choose Endpoint with a custom URL: the URL is saved at once, then Test Connection runs in the
 * background (cancellable progress in the notification area) and warns, naming the endpoint, when
 * nothing answers there.
 */
import '../support/vscode-fake/register';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { activate } from '../../src/extension';
import { commands, host, resetVscodeFake } from '../support/vscode-fake';
import { fakeExtensionContext } from '../support/vscode-fake/context';
import { until } from '../support/until';

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

test('a custom endpoint URL is saved, then checked in the background with a warning naming it when unreachable', async () => {
  const url = `http://127.0.0.1:${await closedPort()}/v1`;
  host.user.quickPick = (items) => items.find((i) => i.label.includes('Other'));
  host.user.input = () => url;
  await commands.executeCommand('contextKeeper.pickEndpoint');
  assert.equal(host.settingValue('contextKeeper.baseUrl'), url, 'saved without waiting for the check');
  await until(() => host.messages.some((m) => m.severity === 'warning' && m.message.includes(url)), 'the warning naming the endpoint', 20_000);
  const warning = host.messages.find((m) => m.severity === 'warning' && m.message.includes(url))!;
  assert.match(warning.message, /connection problem/);
  assert.ok(warning.items.includes('Show Log'));
});
