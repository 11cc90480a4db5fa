/**
 * The walkthrough's steps tick: every `completionEvents` entry is one of the events VS Code documents
 * and names something that exists (a contributed command, view or setting, or a context key the
 * extension sets), each step has an event that does not depend on VS Code seeing a command run from
 * its own UI (commands the extension runs itself, from notification or sidebar buttons, are not
 * seen), and the extension turns those context keys on when the step is done.
 */
import '../support/vscode-fake/register';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { activate } from '../../src/extension';
import { WALKTHROUGH_KEYS } from '../../src/views/onboarding';
import { commands, host, resetVscodeFake } from '../support/vscode-fake';
import { fakeExtensionContext } from '../support/vscode-fake/context';
import { fakeServer, vllmRoutes } from '../models/fake-servers';

const root = path.join(__dirname, '../../..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
/** The completion events VS Code's walkthrough contribution documents (its schema's snippets). */
const DOCUMENTED = [
  'onCommand',
  'onLink',
  'onView',
  'onSettingChanged',
  'onContext',
  'onExtensionInstalled',
  'extensionInstalled',
  'onStepSelected',
  'stepSelected',
  'onEvent',
];
/** Context keys the extension sets: the walkthrough's own and those the composition root updates. */
function keysSet(): Set<string> {
  const rootSource = readFileSync(path.join(root, 'src/composition/root.ts'), 'utf8');
  const update = /contextKeys\.update\(\{([\s\S]*?)\}\);/.exec(rootSource)?.[1] ?? '';
  const keys = [...update.matchAll(/^\s*(\w+)[,:]/gm)].map((m) => `contextKeeper.${m[1]}`);
  return new Set([...keys, ...Object.values(WALKTHROUGH_KEYS)]);
}

test('each walkthrough step listens to documented events naming what exists, one not tied to command events', () => {
  const commandIds = new Set((manifest.contributes.commands as { command: string }[]).map((c) => c.command));
  const viewIds = new Set(
    Object.values(manifest.contributes.views as Record<string, { id: string }[]>)
      .flat()
      .map((v) => v.id),
  );
  const settings = new Set(Object.keys(manifest.contributes.configuration.properties));
  const contextKeys = keysSet();
  assert.ok(
    contextKeys.has('contextKeeper.hasApiKey') && contextKeys.has('contextKeeper.state'),
    "the root's keys were read",
  );
  const [walkthrough] = manifest.contributes.walkthroughs as { steps: { id: string; completionEvents: string[] }[] }[];
  for (const step of walkthrough.steps) {
    assert.ok(step.completionEvents.length > 0, step.id);
    for (const event of step.completionEvents) {
      const [, kind, arg] = /^([^:]*):?(.*)$/.exec(event)!;
      assert.ok(DOCUMENTED.includes(kind), `${step.id}: ${event} is not a documented completion event`);
      if (kind === 'onCommand') assert.ok(commandIds.has(arg), `${step.id}: no command ${arg}`);
      if (kind === 'onView') assert.ok(viewIds.has(arg), `${step.id}: no view ${arg}`);
      if (kind === 'onSettingChanged') assert.ok(settings.has(arg), `${step.id}: no setting ${arg}`);
      if (kind === 'onContext')
        for (const key of arg.match(/contextKeeper\.\w+/g) ?? [])
          assert.ok(contextKeys.has(key), `${step.id}: the extension never sets ${key}`);
    }
    assert.ok(
      step.completionEvents.some((e) => /^(onContext|onSettingChanged|onView):/.test(e)),
      `${step.id} ticks only when VS Code's own UI runs its command`,
    );
  }
  const byId = new Map(walkthrough.steps.map((s) => [s.id, s.completionEvents]));
  // Opening the picker and dismissing it chooses nothing: the step waits for a choice.
  assert.ok(
    !byId.get('endpoint')!.includes('onCommand:contextKeeper.pickEndpoint'),
    'the endpoint step ticks on a cancelled picker',
  );
  // Ticked only on success: running Set API Key, Test Connection or a task proves nothing by itself.
  for (const id of ['key', 'test', 'task'])
    assert.ok(
      byId.get(id)!.every((e) => !e.startsWith('onCommand:') && !e.startsWith('onView:')),
      `the ${id} step ticks on a command or view that may fail`,
    );
  assert.deepEqual(byId.get('task'), ['onContext:contextKeeper.taskCompleted']);
  // A server that needs no key never gets one: a working connection completes the key step too.
  assert.ok(
    byId.get('key')!.includes('onContext:contextKeeper.connectionTested'),
    'the key step cannot tick for a local server',
  );
});

let storage: string;
let context: vscode.ExtensionContext;

before(() => {
  resetVscodeFake();
  storage = mkdtempSync(path.join(tmpdir(), 'ck-walkthrough-'));
  context = fakeExtensionContext(storage);
  activate(context);
});
after(() => {
  for (const subscription of context.subscriptions) subscription.dispose();
  rmSync(storage, { recursive: true, force: true });
});

test('choosing an endpoint and a working Test Connection turn on the keys their steps watch', async () => {
  const server = await fakeServer({
    ...vllmRoutes(),
    'POST /v1/chat/completions': () => ({
      json: {
        id: 'c1',
        object: 'chat.completion',
        created: 0,
        model: 'Qwen/Qwen2.5-Coder-7B-Instruct',
        choices: [{ index: 0, message: { role: 'assistant', content: 'OK' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 12, completion_tokens: 1, total_tokens: 13 },
      },
    }),
  });
  try {
    assert.equal(
      host.contextKeys.get(WALKTHROUGH_KEYS.endpointChosen),
      undefined,
      'unset before: set only once the step succeeded',
    );
    host.user.quickPick = (items) => items.find((i) => i.label.includes('Other')) ?? items[0];
    host.user.input = () => `${server.url}/v1`;
    await commands.executeCommand('contextKeeper.pickEndpoint');
    assert.equal(host.contextKeys.get(WALKTHROUGH_KEYS.endpointChosen), true);
    assert.equal(host.contextKeys.get(WALKTHROUGH_KEYS.connectionTested), undefined);
    await commands.executeCommand('contextKeeper.testConnection');
    assert.equal(host.contextKeys.get(WALKTHROUGH_KEYS.connectionTested), true);
  } finally {
    await server.close();
  }
});
