/**
 * Default keybindings: Cancel, New Agent Task and Compact Conversation have one each, on the three
 * modifiers (Ctrl+Shift+Alt, Cmd+Shift+Alt on macOS) and a letter VS Code 1.100 leaves free there;
 * the duplicate "Show Sidebar" command is gone ("Focus on Context View" is VS Code's own).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

interface Keybinding {
  command: string;
  key: string;
  mac?: string;
  when?: string;
}
const manifest = JSON.parse(readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as {
  contributes: { keybindings?: Keybinding[]; commands: Array<{ command: string; title: string }> };
};

/**
 * VS Code's own default bindings on Ctrl+Shift+Alt (Cmd+Shift+Alt on macOS) plus a letter, read from
 * the 1.100.3 workbench's keybinding rules: Copy Relative Path (C), and two more (I, L).
 */
const TAKEN_BY_VSCODE = new Set(['c', 'i', 'l']);

test('Cancel, New Agent Task and Compact Conversation have default keybindings that do not clash', () => {
  const bindings = manifest.contributes.keybindings ?? [];
  const commands = ['contextKeeper.cancel', 'contextKeeper.newAgentTask', 'contextKeeper.compactConversation'];
  const keys = new Set<string>();
  for (const command of commands) {
    const binding = bindings.find((b) => b.command === command);
    assert.ok(binding, `${command} has a keybinding`);
    const key = /^ctrl\+shift\+alt\+([a-z])$/.exec(binding.key);
    assert.ok(key, `${binding.key}: three modifiers and a letter`);
    assert.equal(binding.mac, `cmd+shift+alt+${key[1]}`);
    assert.ok(!TAKEN_BY_VSCODE.has(key[1]), `${binding.key} is one of VS Code's own`);
    assert.ok(!keys.has(binding.key), `${binding.key} used twice`);
    keys.add(binding.key);
  }
  // Cancel only while something runs.
  assert.match(bindings.find((b) => b.command === 'contextKeeper.cancel')?.when ?? '', /contextKeeper\.state != idle/);
});

test('no "Show Sidebar" command beside VS Code\'s "Focus on Context View"', () => {
  assert.ok(!manifest.contributes.commands.some((c) => c.title === 'Show Sidebar'));
  assert.doesNotMatch(JSON.stringify(manifest.contributes), /contextKeeper\.showSidebar/);
});
