/**
 * Test Connection is always findable (palette and the sidebar's menu, whatever is set up) and, with
 * no endpoint chosen and no API key, says so without sending anything and offers Choose Endpoint; a
 * failed test leaves the walkthrough's test step unticked.
 */
import '../support/vscode-fake/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { createServer } from 'node:http';
import { Commands } from '../../src/views/commands/command-ids';
import { runTestConnection } from '../../src/views/commands/test-connection';
import { host, resetVscodeFake } from '../support/vscode-fake';
import { WALKTHROUGH_KEYS } from '../../src/views/onboarding';
import { FakeLogChannel } from '../support/vscode-fake/window-parts';

const manifest = JSON.parse(readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as {
  contributes: {
    commands: Array<{ command: string; enablement?: string }>;
    menus: Record<string, Array<{ command: string; when?: string; group?: string }>>;
  };
};

test('Test Connection is in the palette whatever is set up, and in the sidebar menu beside Choose Endpoint', () => {
  const command = manifest.contributes.commands.find((c) => c.command === Commands.testConnection);
  assert.ok(command, 'contributed');
  assert.equal(command.enablement, undefined, 'never disabled');
  const palette = manifest.contributes.menus.commandPalette.filter((m) => m.command === Commands.testConnection);
  assert.ok(
    palette.every((m) => m.when === undefined || m.when === 'true'),
    `hidden by ${JSON.stringify(palette)}`,
  );
  const menu = manifest.contributes.menus['view/title'].filter((m) => m.when === 'view == contextKeeper.sidebar');
  const group = (id: string) => menu.find((m) => m.command === id)?.group;
  assert.ok(group(Commands.testConnection), 'in the sidebar menu');
  assert.equal(
    group(Commands.testConnection)?.split('@')[0],
    group(Commands.pickEndpoint)?.split('@')[0],
    'in the same group as Choose Endpoint',
  );
});

test('with no endpoint and no key, Test Connection sends nothing, says no endpoint is chosen and offers Choose Endpoint', async () => {
  resetVscodeFake();
  host.user.message = (shown) => (shown.items.includes('Choose Endpoint') ? 'Choose Endpoint' : undefined);
  const result = await runTestConnection({
    endpoint: () => ({ modelSource: 'endpoint', baseUrl: '', model: 'gpt-4o', contextWindow: 0 }),
    apiKey: async () => undefined,
    log: new FakeLogChannel('test'),
  });
  assert.equal(result, undefined);
  assert.equal(host.progress.length, 0, 'no test ran');
  assert.equal(host.messages.length, 1);
  assert.match(host.messages[0].message, /no endpoint is chosen yet/);
  assert.deepEqual(host.messages[0].items, ['Choose Endpoint', 'Set API Key']);
  assert.ok(
    host.executed.some((c) => c.id === Commands.pickEndpoint),
    'Choose Endpoint ran',
  );
});

test('with an endpoint chosen, Test Connection sends its request there', async () => {
  resetVscodeFake();
  let requests = 0;
  const server = createServer((_req, res) => {
    requests++;
    res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
    const result = await runTestConnection({
      endpoint: () => ({ modelSource: 'endpoint', baseUrl: url, model: 'm', contextWindow: 0 }),
      apiKey: async () => undefined,
      log: new FakeLogChannel('test'),
    });
    assert.ok(result, 'a report');
    assert.equal(result.ok, false);
    assert.ok(requests > 0, 'the endpoint was asked');
    assert.equal(
      host.contextKeys.get(WALKTHROUGH_KEYS.connectionTested),
      undefined,
      "a failed test leaves the walkthrough's test step unticked",
    );
    assert.ok(!host.messages.some((m) => /no endpoint is chosen/.test(m.message)));
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test("a failed test request shows its status and the server's message in the toast, with Show Details", async () => {
  resetVscodeFake();
  const server = createServer((req, res) => {
    if (req.url?.endsWith('/chat/completions')) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'model runner has unexpectedly stopped' } }));
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const log = new FakeLogChannel('test');
  let shown = false;
  log.show = () => (shown = true);
  host.user.message = (m) => (m.items.includes('Show Details') ? 'Show Details' : undefined);
  try {
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
    const result = await runTestConnection({
      endpoint: () => ({ modelSource: 'endpoint', baseUrl: url, model: 'qwen2.5-coder:7b', contextWindow: 0 }),
      apiKey: async () => undefined,
      log,
    });
    assert.equal(result?.ok, false);
    const toast = host.messages.at(-1)!;
    assert.equal(toast.severity, 'error');
    assert.match(
      toast.message,
      new RegExp(
        `the server at ${url.replace(/[.]/g, '\\.')} failed the test request: HTTP 500: model runner has unexpectedly stopped`,
      ),
    );
    assert.deepEqual(toast.items, ['Choose Endpoint', 'Show Details']);
    assert.ok(shown, 'Show Details opens the log with the whole report');
  } finally {
    server.close();
  }
});
