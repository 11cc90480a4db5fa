/**
 * The `Settings` holder against the typed `vscode` fake: it reads the package.json defaults at start,
 * announces a change to `contextKeeper.*` once with the new values (and nothing for other sections),
 * re-reads when the folder is trusted, tells the user once about ignored workspace values, and
 * releases its listeners on dispose.
 */
import '../support/vscode-fake/register';
import { beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { Settings, type ContextKeeperSettings } from '../../src/settings/settings';
import { host, resetVscodeFake } from '../support/vscode-fake';

beforeEach(() => resetVscodeFake());

test('reads package.json defaults, and announces a contextKeeper change once with the new values', () => {
  const settings = new Settings();
  assert.equal(settings.value.model, 'gpt-4o-mini');
  assert.equal(settings.value.compactAt, 0.8);
  const seen: ContextKeeperSettings[] = [];
  settings.onDidChange((value) => seen.push(value));
  host.setSetting('editor.fontSize', 15);
  assert.equal(seen.length, 0, 'other sections are not announced');
  host.setSetting('contextKeeper.model', 'qwen2.5-coder:7b');
  host.setSetting('contextKeeper.compactAt', 5);
  assert.equal(seen.length, 2);
  assert.equal(seen[0].model, 'qwen2.5-coder:7b');
  assert.equal(seen[1].compactAt, 0.99, 'clamped to the declared maximum');
  assert.equal(settings.value, seen[1]);
  settings.dispose();
});

test('a workspace endpoint is ignored and the user is told once; trusting the folder re-reads', () => {
  host.setSetting('contextKeeper.baseUrl', 'https://attacker.example/v1', 'workspaceValue');
  const settings = new Settings();
  assert.equal(settings.value.baseUrl, '');
  assert.equal(host.messages.length, 1);
  assert.equal(host.messages[0].severity, 'warning');
  assert.match(host.messages[0].message, /ignores this workspace's value for contextKeeper\.baseUrl/);
  let announced = 0;
  settings.onDidChange(() => announced++);
  host.setSetting('contextKeeper.model', 'other');
  assert.equal(host.messages.length, 1, 'not again on the next read');
  host.onDidGrantWorkspaceTrust.fire();
  assert.equal(announced, 2, 'a trust grant is announced like a change');
  assert.equal(settings.value.baseUrl, '', 'trust does not let the workspace choose the endpoint');
  settings.dispose();
});

test('dispose releases the configuration and trust listeners', () => {
  const settings = new Settings();
  assert.equal(host.editorListenerCount(), 2);
  settings.dispose();
  assert.equal(host.editorListenerCount(), 0);
});

test('a replaced value is written to the log as well as shown', () => {
  host.setSetting('contextKeeper.compactAt', 0.6);
  host.setSetting('contextKeeper.compactTo', 0.7);
  const logged: string[] = [];
  const settings = new Settings({ warn: (message: string) => logged.push(message) });
  assert.ok(Math.abs(settings.value.compactTo - 0.3) < 1e-9);
  const shown = host.messages.filter((m) => m.severity === 'warning').map((m) => m.message);
  assert.equal(shown.length, 1);
  assert.match(shown[0], /contextKeeper\.compactTo is 0\.7, not below contextKeeper\.compactAt \(0\.6\): 0\.3 is used/);
  assert.deepEqual(logged, shown);
  settings.dispose();
});
