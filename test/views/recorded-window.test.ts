/**
 * An imported recording is measured against the window of the model it was recorded with (model
 * table), not the configured model's; a recording naming no model, or an unknown one, says so and
 * falls back to the configured window with a visible label, where `contextKeeper.contextWindow` applies
 * in VS Code's order (a workspace value overrides the user's, which a change of settings tells). Checked on the pure
 * resolution and over the running extension (typed `vscode` fake, real context service): import,
 * switch away and back, change settings.
 */
import '../support/vscode-fake/register';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { activate, type ContextKeeperApi } from '../../src/extension';
import { recordingWindow } from '../../src/models/recorded';
import { lookupModel } from '../../src/models/table';
import { windowOriginNote } from '../../src/webview/shared/gauge-geometry';
import { commands, host, resetVscodeFake, Uri } from '../support/vscode-fake';
import { fakeExtensionContext } from '../support/vscode-fake/context';
import { until } from '../support/until';

const configured = { model: 'gpt-4o-mini', window: 128_000, maxOutput: 16_384 };

test('recordingWindow: a model the table knows gives its own window and output limit', () => {
  const shown = recordingWindow('gpt-4.1', configured);
  assert.equal(shown.model, 'gpt-4.1');
  assert.equal(shown.window, lookupModel('gpt-4.1')!.window);
  assert.equal(shown.maxOutput, lookupModel('gpt-4.1')!.maxOutput);
  assert.equal(shown.configured, false);
  assert.match(shown.label, /^1,047,576 tokens, from the model table for the recording's model gpt-4\.1$/);
  // A vendor prefix (Aider writes `anthropic/claude-…`) is matched as the table matches it.
  assert.equal(
    recordingWindow('anthropic/claude-3-5-sonnet-20241022', configured).window,
    lookupModel('claude-3-5-sonnet')!.window,
  );
});

test('recordingWindow: no model or an unknown one falls back to the configured window, labelled', () => {
  const none = recordingWindow(undefined, configured);
  assert.deepEqual([none.model, none.window, none.configured], ['gpt-4o-mini', 128_000, true]);
  assert.match(none.label, /window of configured model gpt-4o-mini \(the recording names no model\)/);
  assert.match(none.note, /^no model recorded: measured against the window of configured model gpt-4o-mini$/);
  const unknown = recordingWindow('scripted-coder', configured);
  assert.equal(unknown.window, 128_000);
  assert.match(unknown.label, /window of configured model gpt-4o-mini \(scripted-coder is not in the model table\)/);
  assert.match(
    unknown.note,
    /recorded with scripted-coder, a model of unknown window: measured against the window of configured model/,
  );
  assert.equal(recordingWindow('  ', configured).configured, true);
});

test('recordingWindow: a window the file states outranks the model table and is labelled as recorded', () => {
  const shown = recordingWindow('gpt-5.1-codex', configured, 258_400);
  assert.equal(shown.model, 'gpt-5.1-codex');
  assert.equal(shown.window, 258_400, 'not the model table window');
  assert.equal(shown.configured, false);
  assert.match(shown.label, /^258,400 tokens, recorded in the file for the recording's model gpt-5\.1-codex$/);
  assert.equal(windowOriginNote(shown.label), ' (recorded)');
  // With no model named, the stated window still wins over the configured one.
  const unnamed = recordingWindow(undefined, configured, 32_000);
  assert.deepEqual([unnamed.model, unnamed.window, unnamed.configured], ['gpt-4o-mini', 32_000, false]);
  // A zero or missing figure is no statement: the table or configured window stands.
  assert.equal(recordingWindow('gpt-4.1', configured, 0).window, lookupModel('gpt-4.1')!.window);
});

let storage: string;
let context: vscode.ExtensionContext;
let api: ContextKeeperApi;

const aider = [
  '# aider chat started at 2026-02-24 16:53:06',
  '',
  '> Model: gpt-4.1 with diff edit format  ',
  '',
  '#### make the title bold  ',
  '',
  'Here is the change.',
  '',
  '> Tokens: 3.1k sent, 1.5k received.  ',
  '',
].join('\n');

const codexRecord = (type: string, payload: Record<string, unknown>) =>
  JSON.stringify({ timestamp: '2025-11-17T21:30:00.000Z', type, payload });
/** A Codex rollout of model gpt-4.1 (1,047,576 tokens in the model table) whose token counts state a 258,400-token window. */
const codex = [
  codexRecord('session_meta', { id: 's', cwd: '/w', cli_version: '0.58.0' }),
  codexRecord('turn_context', { model: 'gpt-4.1' }),
  codexRecord('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix it' }] }),
  codexRecord('event_msg', {
    type: 'token_count',
    info: {
      total_token_usage: { total_tokens: 150 },
      last_token_usage: { input_tokens: 120 },
      model_context_window: 258_400,
    },
  }),
  codexRecord('response_item', {
    type: 'message',
    role: 'assistant',
    content: [{ type: 'output_text', text: 'Fixed.' }],
  }),
].join('\n');

before(() => {
  resetVscodeFake();
  host.setSetting('contextKeeper.model', 'gpt-4o-mini');
  storage = mkdtempSync(path.join(tmpdir(), 'ck-recorded-'));
  writeFileSync(path.join(storage, 'aider.md'), aider);
  writeFileSync(path.join(storage, 'rollout.jsonl'), codex);
  context = fakeExtensionContext(storage);
  api = activate(context);
});
after(() => {
  for (const subscription of context.subscriptions) subscription.dispose();
  rmSync(storage, { recursive: true, force: true });
});

test('an imported Aider recording is measured against its own model, also after switching away and back', async () => {
  await commands.executeCommand('contextKeeper.importTranscript', Uri.file(path.join(storage, 'aider.md')));
  const view = api.getViewState();
  assert.equal(view.budget.model, 'gpt-4.1');
  assert.equal(view.budget.window, 1_047_576);
  assert.match(view.budget.windowSource ?? '', /recording's model gpt-4\.1/);
  assert.match(view.source, /recorded with gpt-4\.1, 1,047,576-token window/);
  const imported = view.sessionId!;

  await commands.executeCommand('contextKeeper.newSession');
  assert.equal(api.getViewState().budget.window, 128_000, 'a working session measures against the configured model');
  await commands.executeCommand('contextKeeper.switchSession', imported);
  assert.equal(api.getViewState().budget.window, 1_047_576, 'the recording keeps its window when shown again');
  assert.equal(api.getViewState().budget.model, 'gpt-4.1');
});

test('a recording naming an unknown model uses the configured window and says so in the header', async () => {
  await commands.executeCommand(
    'contextKeeper.importTranscript',
    Uri.file(path.resolve(__dirname, '../../../samples/demo-session.json')),
  );
  const view = api.getViewState();
  assert.equal(view.budget.window, 128_000);
  // The header names the recording's model; the window's note says whose window stands in.
  assert.equal(view.budget.model, 'scripted-coder');
  await new Promise((resolve) => setTimeout(resolve, 50)); // the status bar redraws on the next tick
  const tooltip =
    (host.live('status-bar-item')[0]?.target as { tooltip?: { value: string } } | undefined)?.tooltip?.value ?? '';
  assert.match(
    tooltip,
    /^\*\*ContextKeeper\*\* — scripted-coder/,
    "the status bar names the recording's model as the gauge does",
  );
  assert.equal(windowOriginNote(view.budget.windowSource), " (configured model's)");
  assert.match(view.budget.windowSource ?? '', /window of configured model gpt-4o-mini/);
  assert.match(view.source, /measured against the window of configured model gpt-4o-mini/);
});

test('an imported Codex rollout is measured against the window its token counts record', async () => {
  await commands.executeCommand('contextKeeper.importTranscript', Uri.file(path.join(storage, 'rollout.jsonl')));
  const view = api.getViewState();
  assert.equal(view.budget.model, 'gpt-4.1');
  assert.equal(view.budget.window, 258_400, "the file's model_context_window, not the table's 1,047,576");
  assert.equal(windowOriginNote(view.budget.windowSource), ' (recorded)');
  assert.match(view.source, /258,400-token window \(recorded in the file\)/);
  const imported = view.sessionId!;
  await commands.executeCommand('contextKeeper.newSession');
  await commands.executeCommand('contextKeeper.switchSession', imported);
  assert.equal(api.getViewState().budget.window, 258_400, 'the recorded window is kept with the session');
});

test("contextWindow follows VS Code's order on a recording of unknown window: the user value applies, a workspace value overrides it, and the user value without effect is told", async () => {
  await commands.executeCommand(
    'contextKeeper.importTranscript',
    Uri.file(path.resolve(__dirname, '../../../samples/demo-session.json')),
  );
  assert.equal(api.getViewState().budget.window, 128_000);
  host.setSetting('contextKeeper.contextWindow', 32_000, 'globalValue');
  await until(() => api.getViewState().budget.window === 32_000, 'the user value to apply to the recording');
  const shown = host.messages.length;
  const warnings = () =>
    host.messages
      .slice(shown)
      .filter((m) => m.severity === 'warning')
      .map((m) => m.message);
  host.setSetting('contextKeeper.contextWindow', 16_000, 'workspaceValue');
  await until(() => api.getViewState().budget.window === 16_000, 'the workspace value to apply');
  const told = (user: string) =>
    `ContextKeeper: your user setting contextKeeper.contextWindow (${user}) has no effect here: this workspace's settings set 16,000, which VS Code applies first. Change or remove that value to use yours.`;
  await until(() => warnings().length === 1, 'the warning about the user value without effect');
  assert.deepEqual(warnings(), [told('32,000')]);
  host.setSetting('contextKeeper.contextWindow', 24_000, 'globalValue');
  await until(() => warnings().length === 2, 'the warning about the new user value');
  assert.deepEqual(warnings(), [told('32,000'), told('24,000')]);
  assert.equal(api.getViewState().budget.window, 16_000);
  host.setSetting('contextKeeper.maxOutputTokens', 2_000, 'globalValue');
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(warnings().length, 2, 'told once per pair of values, not on every change');
  host.setSetting('contextKeeper.maxOutputTokens', undefined, 'globalValue');
  host.setSetting('contextKeeper.contextWindow', undefined, 'workspaceValue');
  await until(() => api.getViewState().budget.window === 24_000, 'the user value once the workspace value is removed');
  host.setSetting('contextKeeper.contextWindow', undefined, 'globalValue');
  await until(() => api.getViewState().budget.window === 128_000, 'the default again');
});

test('a window set in the settings that a recording does not use is named in its note, with the way to work at it', () => {
  const configured = { model: 'gpt-4o-mini', window: 32_000 };
  const own = recordingWindow('gpt-4.1', configured, undefined, 32_000);
  assert.equal(own.window, 1_047_576, "the recording keeps its model's window");
  assert.match(own.note, /^recorded with gpt-4\.1, 1,047,576-token window; /);
  assert.match(
    own.note,
    /contextKeeper\.contextWindow \(32,000\) is not applied to a recording: Continue in a New Task/,
  );
  // No setting, the same window, or the configured window standing in: nothing to say.
  assert.doesNotMatch(recordingWindow('gpt-4.1', configured, undefined, 0).note, /contextWindow/);
  assert.doesNotMatch(recordingWindow('gpt-4.1', configured, undefined, 1_047_576).note, /contextWindow/);
  assert.doesNotMatch(recordingWindow('no-such-model', configured, undefined, 32_000).note, /not applied/);
});
