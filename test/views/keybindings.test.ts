/**
 * Default keybindings: Cancel, New Agent Task and Compact Conversation have one each, a Ctrl+K chord
 * (Cmd+K on macOS) with a plain letter VS Code leaves free there on desktop and on the web (three
 * modifiers and a letter were VS Code for the Web's New Window: Ctrl+Shift+Alt+N);
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
 * Letters VS Code's own default bindings put after Ctrl+K (Cmd+K on macOS) with no modifier, read from
 * the workbench's keybinding rules: D compare with saved, E open editors, F close folder, I hover /
 * inline chat, M language mode, N new window (web on Windows), O open in new window, P copy path,
 * R reveal, S save all, U close saved, V preview to the side, W close group, Y notebook output
 * scrolling, Z zen mode.
 */
const TAKEN_BY_VSCODE = new Set([...'defimnoprsuvwyz']);

test('Cancel, New Agent Task and Compact Conversation have default keybindings that do not clash', () => {
  const bindings = manifest.contributes.keybindings ?? [];
  const commands = ['contextKeeper.cancel', 'contextKeeper.newAgentTask', 'contextKeeper.compactConversation'];
  const keys = new Set<string>();
  for (const command of commands) {
    const binding = bindings.find((b) => b.command === command);
    assert.ok(binding, `${command} has a keybinding`);
    const key = /^ctrl\+k ([a-z])$/.exec(binding.key);
    assert.ok(key, `${binding.key}: a Ctrl+K chord with a plain letter`);
    assert.equal(binding.mac, `cmd+k ${key[1]}`);
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

test("the README's Commands section lists every default keybinding with its command", () => {
  const readme = readFileSync(path.resolve(__dirname, '../../../README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('## Commands'),
    readme.indexOf('\n## ', readme.indexOf('## Commands') + 1),
  );
  const titles = new Map(manifest.contributes.commands.map((c) => [c.command, c.title]));
  for (const binding of manifest.contributes.keybindings ?? []) {
    // "ctrl+k a" as the README writes it: "Ctrl+K A".
    const shown = binding.key
      .split(' ')
      .map((press) =>
        press
          .split('+')
          .map((part) => part[0].toUpperCase() + part.slice(1))
          .join('+'),
      )
      .join(' ');
    const row = section.split('\n').find((line) => line.startsWith(`| ${shown} |`));
    assert.ok(row, `${shown} is listed in the README's Commands section`);
    assert.ok(row.includes(titles.get(binding.command) ?? binding.command), `${shown} names ${binding.command}`);
  }
  assert.doesNotMatch(section, /Show Sidebar/, 'no command that no longer exists');
});
