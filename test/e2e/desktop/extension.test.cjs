// Runs inside a desktop VS Code extension host through @vscode/test-cli (see .vscode-test.mjs).
const assert = require('node:assert');
const vscode = require('vscode');

const EXTENSION_ID = 'contextkeeper.context-keeper';

suite('ContextKeeper extension', () => {
  test('activates and returns its API', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, 'extension not installed');
    const api = await extension.activate();
    const state = api.getViewState();
    assert.strictEqual(state.budget.used, 0);
    assert.ok(state.budget.window > 0);
  });

  test('registers every command', async () => {
    const commands = await vscode.commands.getCommands(true);
    for (const id of [
      'contextKeeper.compactConversation',
      'contextKeeper.newAgentTask',
      'contextKeeper.cancel',
      'contextKeeper.setApiKey',
      'contextKeeper.clearApiKey',
      'contextKeeper.openCheckpoint',
      'contextKeeper.restoreCheckpoint',
      'contextKeeper.pinMessage',
      'contextKeeper.importTranscript',
      'contextKeeper.exportTranscript',
      'contextKeeper.showLog',
    ]) {
      assert.ok(commands.includes(id), `${id} not registered`);
    }
  });

  test('settings have documented defaults', () => {
    const config = vscode.workspace.getConfiguration('contextKeeper');
    assert.strictEqual(config.get('compactAt'), 0.8);
    assert.strictEqual(config.get('compactTo'), 0.5);
    assert.strictEqual(config.get('autoCompact'), true);
    assert.strictEqual(config.get('previewSummary'), false);
  });
});
