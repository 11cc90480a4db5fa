/**
 * Where `contextKeeper.contextWindow` comes from: the layer in force (folder, workspace, user, as VS
 * Code applies them) is named in the gauge's window label, and a user value a workspace value
 * overrides is reported, so a user value that seems not to work is explained.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import type { WorkspaceConfiguration } from 'vscode';
import type * as SettingsModule from '../../src/settings/settings';
import { describeWindow } from '../../src/models/resolve';
import { loadWithVscodeShim } from '../support/vscode-shim';

const { readSettings, describeWindowOrigin, overriddenWindowNotice } = loadWithVscodeShim<typeof SettingsModule>(
  path.join(__dirname, '../../src/settings/settings'),
);

type Layer = {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
};

/** A configuration of one key's layers whose `get` answers as VS Code's does (folder, workspace, user, default). */
function configuration(window: Layer): WorkspaceConfiguration {
  const layers: Record<string, Layer> = { contextWindow: { defaultValue: 0, ...window } };
  return {
    get(key: string, fallback?: unknown) {
      const l = layers[key];
      for (const v of l ? [l.workspaceFolderValue, l.workspaceValue, l.globalValue, l.defaultValue] : [])
        if (v !== undefined) return v;
      return fallback;
    },
    inspect: (key: string) => (layers[key] ? { key: `contextKeeper.${key}`, ...layers[key] } : undefined),
  } as unknown as WorkspaceConfiguration;
}

test('a user value is read and labelled as the user setting', () => {
  const settings = readSettings(configuration({ globalValue: 32_000 }));
  assert.equal(settings.contextWindow, 32_000);
  assert.deepEqual(settings.contextWindowOrigin, { layer: 'user' });
  assert.equal(
    describeWindow({ window: 32_000, source: 'flag' }, describeWindowOrigin(settings.contextWindowOrigin)),
    '32,000 tokens, from user settings',
  );
  assert.equal(overriddenWindowNotice(settings), undefined);
});

test('a workspace value overrides the user value: the label and a warning say so', () => {
  const settings = readSettings(configuration({ globalValue: 32_000, workspaceValue: 8_000 }));
  assert.equal(settings.contextWindow, 8_000);
  assert.deepEqual(settings.contextWindowOrigin, { layer: 'workspace', overriddenUserValue: 32_000 });
  assert.equal(
    describeWindow({ window: 8_000, source: 'flag' }, describeWindowOrigin(settings.contextWindowOrigin)),
    '8,000 tokens, from workspace settings, which override your user setting of 32,000',
  );
  assert.match(
    overriddenWindowNotice(settings) ?? '',
    /your user setting contextKeeper\.contextWindow \(32,000\) has no effect here: this workspace's settings set 8,000/,
  );
});

test('a folder value of 0 overrides a user value too; equal values override nothing worth telling', () => {
  const zero = readSettings(configuration({ globalValue: 32_000, workspaceFolderValue: 0 }));
  assert.equal(zero.contextWindow, 0);
  assert.match(overriddenWindowNotice(zero) ?? '', /this folder's settings set 0 \(ask the endpoint\)/);
  const same = readSettings(configuration({ globalValue: 16_000, workspaceValue: 16_000 }));
  assert.equal(overriddenWindowNotice(same), undefined);
  assert.deepEqual(readSettings(configuration({})).contextWindowOrigin, {}, 'the default: no layer');
});
