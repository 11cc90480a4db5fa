/** The re-attach settings: declared in package.json with the defaults the reader uses, clamped, 0 turns them off. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { WorkspaceConfiguration } from 'vscode';
import type * as SettingsModule from '../../src/settings/settings';
import { loadWithVscodeShim } from '../support/vscode-shim';

const { readSettings } = loadWithVscodeShim<typeof SettingsModule>(path.join(__dirname, '../../src/settings/settings'));

/** A configuration holding user values only. */
function userConfig(values: Record<string, unknown>): WorkspaceConfiguration {
  const config = {
    get: (key: string, fallback?: unknown) => (key in values ? values[key] : fallback),
    inspect: (key: string) => (key in values ? { key: `contextKeeper.${key}`, globalValue: values[key] } : undefined),
    has: (key: string) => key in values,
    update: async () => {},
  };
  return config as unknown as WorkspaceConfiguration;
}

test("re-attach settings: package.json declares them with the reader's defaults", () => {
  const properties = (
    JSON.parse(readFileSync(path.join(__dirname, '../../../package.json'), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, { default: unknown; minimum: number }> } };
    }
  ).contributes.configuration.properties;
  const defaults = readSettings(userConfig({}));
  assert.equal(properties['contextKeeper.reattachBudget'].default, defaults.reattachBudget);
  assert.equal(properties['contextKeeper.reattachMaxFiles'].default, defaults.reattachMaxFiles);
  assert.equal(defaults.reattachBudget, 0.1);
  assert.equal(defaults.reattachMaxFiles, 5);
  assert.equal(properties['contextKeeper.reattachBudget'].minimum, 0, '0 turns it off');
});

test('re-attach settings: values are read, clamped, and 0 is kept (off)', () => {
  assert.deepEqual(pick(readSettings(userConfig({ reattachBudget: 0.2, reattachMaxFiles: 3 }))), [0.2, 3]);
  assert.deepEqual(pick(readSettings(userConfig({ reattachBudget: 0, reattachMaxFiles: 0 }))), [0, 0]);
  assert.deepEqual(pick(readSettings(userConfig({ reattachBudget: 7, reattachMaxFiles: 2.6 }))), [1, 3]);
  assert.deepEqual(pick(readSettings(userConfig({ reattachBudget: 'lots', reattachMaxFiles: -4 }))), [0.1, 0]);
});

function pick(s: ReturnType<typeof readSettings>): [number, number] {
  return [s.reattachBudget, s.reattachMaxFiles];
}
