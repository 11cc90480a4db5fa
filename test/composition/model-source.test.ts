/**
 * The model source with `contextKeeper.modelSource` = `vscode` (typed `vscode` fake, chat models from
 * the Language Model API fake): the configured model is found by id, family or vendor/family; its input
 * limit is the window, no output is reserved from it; a setting above that limit warns once; a missing
 * model is a plain error naming what is offered.
 */
import '../support/vscode-fake/register';
import { beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { openModelSource } from '../../src/composition/model-source';
import { readSettings } from '../../src/settings/settings';
import { chatModels, host, resetVscodeFake, workspace } from '../support/vscode-fake';
import { FakeLogChannel } from '../support/vscode-fake/window-parts';
import { FakeChat } from '../models/lm-fake';
import { until } from '../support/until';

const countText = (text: string) => Math.ceil(text.length / 4);

beforeEach(() => {
  resetVscodeFake();
  host.setSetting('contextKeeper.modelSource', 'vscode');
  chatModels.push(
    new FakeChat('copilot-gpt-4o', 'gpt-4o', 63_000, [{ parts: [] }]),
    new FakeChat('claude-x', 'claude-sonnet-4', 90_000, [{ parts: [] }], 'anthropic'),
  );
});

const settings = () => readSettings(workspace.getConfiguration('contextKeeper'));

test('the editor model named by family is used, its input limit is the window and nothing is reserved', async () => {
  host.setSetting('contextKeeper.model', 'gpt-4o');
  const log = new FakeLogChannel('test');
  const source = await openModelSource(settings(), undefined, log, countText);
  assert.equal(source.model, 'copilot-gpt-4o');
  assert.equal(source.window.window, 63_000);
  assert.equal(source.window.inputOnly, true);
  assert.equal(source.reservedOutput, 0);
  assert.match(source.label, /63,000/);
  assert.ok(
    log.lines.some((l) => l.startsWith('[info] Model from VS Code: Fake gpt-4o (copilot/gpt-4o), 63000 input tokens.')),
  );
  assert.equal(source.summarizer, undefined, 'no summary model configured');
});

test('vendor/family picks among vendors; a summary model of the editor gets its own summarizer', async () => {
  host.setSetting('contextKeeper.model', 'anthropic/claude-sonnet-4');
  host.setSetting('contextKeeper.summary.model', 'gpt-4o');
  const source = await openModelSource(settings(), undefined, new FakeLogChannel('test'), countText);
  assert.equal(source.model, 'claude-x');
  assert.ok(source.summarizer, 'a summarizer over the editor model');
});

test('a window setting above the model limit wins and warns once per window of VS Code', async () => {
  host.setSetting('contextKeeper.model', 'claude-x');
  host.setSetting('contextKeeper.contextWindow', 200_000);
  // The warning is longer than a toast: a short message whose Show Details opens the whole text.
  host.user.message = (shown) => (shown.modal ? undefined : 'Show Details');
  const first = await openModelSource(settings(), undefined, new FakeLogChannel('test'), countText);
  assert.equal(first.window.window, 200_000);
  await new Promise((resolve) => setImmediate(resolve));
  const toasts = () => host.messages.filter((m) => m.severity === 'warning' && !m.modal);
  assert.equal(toasts().length, 1);
  assert.match(toasts()[0].message, /^ContextKeeper: The contextKeeper\.contextWindow setting /);
  assert.match(
    host.messages.find((m) => m.modal)?.detail ?? '',
    /larger than the 90,000 input tokens VS Code reports for claude-x/,
  );
  await openModelSource(settings(), undefined, new FakeLogChannel('test'), countText);
  assert.equal(toasts().length, 1, 'said once');
});

test('a warning that names the window setting has a button that opens it', async () => {
  host.setSetting('contextKeeper.model', 'claude-x');
  // Another figure than above: each warning is shown once per window of VS Code.
  host.setSetting('contextKeeper.contextWindow', 250_000);
  host.user.message = (shown) => (shown.items.includes('Open Setting') ? 'Open Setting' : undefined);
  await openModelSource(settings(), undefined, new FakeLogChannel('test'), countText);
  await until(() => host.executed.some((c) => c.id === 'workbench.action.openSettings'), 'the setting opened');
  assert.deepEqual(host.executed.find((c) => c.id === 'workbench.action.openSettings')?.args, [
    'contextKeeper.contextWindow',
  ]);
});

test('a model VS Code does not offer is an error naming what is offered', async () => {
  host.setSetting('contextKeeper.model', 'gpt-9');
  await assert.rejects(
    openModelSource(settings(), undefined, new FakeLogChannel('test'), countText),
    /VS Code offers no chat model matching "gpt-9"\. Offered: copilot\/gpt-4o, anthropic\/claude-sonnet-4\./,
  );
  chatModels.length = 0;
  await assert.rejects(
    openModelSource(settings(), undefined, new FakeLogChannel('test'), countText),
    /VS Code offers no chat models: sign in to GitHub Copilot/,
  );
});

test('with globalState given, a window warning is shown once per endpoint and model across window loads', async () => {
  host.setSetting('contextKeeper.model', 'claude-x');
  host.setSetting('contextKeeper.contextWindow', 300_000);
  const stored = new Map<string, unknown>();
  const memento = {
    keys: () => [...stored.keys()],
    get: <T>(key: string, fallback?: T) => (stored.has(key) ? (stored.get(key) as T) : fallback),
    update: async (key: string, value: unknown) => void stored.set(key, value),
  } as unknown as vscode.Memento;
  const toasts = () => host.messages.filter((m) => m.severity === 'warning' && !m.modal);
  await openModelSource(settings(), undefined, new FakeLogChannel('test'), countText, undefined, memento);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(toasts().length, 1, 'shown the first time');
  const remembered = stored.get('contextKeeper.windowWarningsShown') as string[];
  assert.equal(remembered.length, 1);
  assert.match(remembered[0], /\|claude-x\|.*300,000/);
  // A later window load: the warning text is new to this window's memory but remembered in globalState.
  host.setSetting('contextKeeper.contextWindow', 310_000);
  stored.set('contextKeeper.windowWarningsShown', [remembered[0].replace('300,000', '310,000')]);
  const log = new FakeLogChannel('test');
  await openModelSource(settings(), undefined, log, countText, undefined, memento);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(toasts().length, 1, 'not shown again after a reload');
  assert.ok(
    log.lines.some((l) => l.startsWith('[warn]') && /310,000/.test(l)),
    'still in the log',
  );
});
