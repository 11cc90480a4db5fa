/**
 * package.json's `contributes.configuration` and the settings reader say the same thing: every key,
 * type, default, minimum, maximum and choice of the one is in the other, and `readSettings()` falls back
 * to package.json's defaults and clamps to its ranges. Changing a figure on one side only fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { SETTINGS_SCHEMA, type SettingSpec } from '../../src/settings/schema';
import type * as SettingsModule from '../../src/settings/settings';
import { loadWithVscodeShim } from '../support/vscode-shim';

const { readSettings } = loadWithVscodeShim<typeof SettingsModule>(path.join(__dirname, '../../src/settings/settings'));

interface Declared {
  type: string;
  default: unknown;
  minimum?: number;
  maximum?: number;
  enum?: string[];
  items?: { type: string };
}

const manifest = JSON.parse(readFileSync(path.join(__dirname, '../../../package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, Declared> } };
};
const declared = new Map(
  Object.entries(manifest.contributes.configuration.properties).map(([key, value]) => [
    key.replace(/^contextKeeper\./, ''),
    value,
  ]),
);

/** The schema entry as package.json would declare it (`integer` for whole numbers). */
function asDeclared(spec: SettingSpec): Declared {
  switch (spec.type) {
    case 'number':
      return {
        type: spec.integer ? 'integer' : 'number',
        default: spec.default,
        minimum: spec.minimum,
        maximum: spec.maximum,
      };
    case 'string':
      return spec.enum
        ? { type: 'string', default: spec.default, enum: [...spec.enum] }
        : { type: 'string', default: spec.default };
    case 'boolean':
      return { type: 'boolean', default: spec.default };
    case 'array':
      return { type: 'array', default: [...spec.default], items: { type: 'string' } };
  }
}

/** The fields the two sides must agree on (descriptions, order and scope are package.json's own). */
function comparable(d: Declared): Declared {
  const out: Declared = { type: d.type, default: d.default };
  if (d.minimum !== undefined) out.minimum = d.minimum;
  if (d.maximum !== undefined) out.maximum = d.maximum;
  if (d.enum !== undefined) out.enum = d.enum;
  if (d.items !== undefined) out.items = d.items;
  return out;
}

/** A configuration answering `get` from `values` (else the caller's fallback), as VS Code's does. */
function configOf(values: Record<string, unknown>) {
  return {
    get: ((key: string, fallback?: unknown) => (key in values ? values[key] : fallback)) as never,
    inspect: ((key: string) => ({ key, globalValue: values[key] })) as never,
  };
}

/** The value `readSettings()` gives for `contextKeeper.<key>` (`summary.model` → `.summary.model`). */
function valueAt(settings: unknown, key: string): unknown {
  return key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], settings);
}

const numberKeys = [...declared].filter(([, d]) => d.type === 'number' || d.type === 'integer').map(([key]) => key);

test('every setting package.json declares is in the schema, and every schema key is declared', () => {
  assert.deepEqual([...declared.keys()].sort(), Object.keys(SETTINGS_SCHEMA).sort());
});

test('types, defaults, minimums, maximums and choices are the same on both sides', () => {
  for (const [key, spec] of Object.entries(SETTINGS_SCHEMA)) {
    assert.deepEqual(comparable(declared.get(key)!), asDeclared(spec), `contextKeeper.${key}`);
  }
  // Every number has both bounds declared, so VS Code's settings editor flags what the reader would clamp.
  for (const key of numberKeys) {
    assert.equal(typeof declared.get(key)!.minimum, 'number', `contextKeeper.${key} minimum`);
    assert.equal(typeof declared.get(key)!.maximum, 'number', `contextKeeper.${key} maximum`);
  }
});

test('readSettings() with nothing set gives package.json defaults', () => {
  const settings = readSettings(configOf({}));
  for (const [key, d] of declared) assert.deepEqual(valueAt(settings, key), d.default, `contextKeeper.${key}`);
});

test('readSettings() clamps every number to package.json minimum and maximum', () => {
  const high = readSettings(configOf(Object.fromEntries(numberKeys.map((key) => [key, 1e12]))));
  const low = readSettings(configOf(Object.fromEntries(numberKeys.map((key) => [key, -1e12]))));
  for (const key of numberKeys) {
    assert.equal(valueAt(high, key), declared.get(key)!.maximum, `contextKeeper.${key} above its maximum`);
    assert.equal(valueAt(low, key), declared.get(key)!.minimum, `contextKeeper.${key} below its minimum`);
  }
  // The one rule across keys: the target stays below the trigger.
  const crossed = readSettings(configOf({ compactAt: 0.5, compactTo: 0.9 }));
  assert.equal(crossed.compactTo, 0.2);
});

test('readSettings() accepts each declared choice and reads anything else as the default', () => {
  for (const [key, d] of declared) {
    if (!d.enum) continue;
    for (const choice of d.enum)
      assert.equal(valueAt(readSettings(configOf({ [key]: choice })), key), choice, `contextKeeper.${key} = ${choice}`);
    assert.equal(
      valueAt(readSettings(configOf({ [key]: 'not-a-choice' })), key),
      d.default,
      `contextKeeper.${key} = not-a-choice`,
    );
  }
});

test('whole-number settings are declared integer and read rounded', () => {
  for (const key of numberKeys) {
    if (declared.get(key)!.type !== 'integer') continue;
    const d = declared.get(key)!;
    const inside = (d.minimum! + d.maximum!) / 2 + 0.3;
    assert.equal(valueAt(readSettings(configOf({ [key]: inside })), key), Math.round(inside), `contextKeeper.${key}`);
  }
});
