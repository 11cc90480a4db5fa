/**
 * A setting the reader cannot use as given (out of its range, of another type, a choice not offered,
 * `compactTo` not below `compactAt`) is replaced as before, and the user is told once per value which
 * value is used instead: a mistyped setting never changes the behaviour in silence.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { replacedValues } from '../../src/settings/schema';
import type { InspectableConfiguration } from '../../src/settings/user-scoped-settings';
import type * as SettingsModule from '../../src/settings/settings';
import { loadWithVscodeShim } from '../support/vscode-shim';

const { ReplacedValuesNotice, readSettings } = loadWithVscodeShim<typeof SettingsModule>(
  path.join(__dirname, '../../src/settings/settings'),
);

/** A configuration whose `get` answers `values`, else the fallback. */
function config(values: Record<string, unknown>): InspectableConfiguration {
  const get = (key: string, fallback?: unknown): unknown => (key in values ? values[key] : fallback);
  return {
    get: get,
    inspect: (key: string) => (key in values ? { key: `contextKeeper.${key}`, globalValue: values[key] } : undefined),
  } as InspectableConfiguration;
}

test('values out of range, of another type or not among the choices are listed with the value used', () => {
  const got = replacedValues(
    config({ contextWindow: -5, compactAt: 1.7, modelSource: 'cloud', autoCompact: 'yes', maxSummaryCalls: 'four' }),
  );
  const byKey = Object.fromEntries(got.map((r) => [r.key, r]));
  assert.deepEqual(byKey.contextWindow, { key: 'contextWindow', given: -5, used: 0, why: 'below its minimum 0' });
  assert.deepEqual(byKey.compactAt, { key: 'compactAt', given: 1.7, used: 0.99, why: 'above its maximum 0.99' });
  assert.equal(byKey.modelSource.used, 'endpoint');
  assert.equal(byKey.autoCompact.why, 'not true or false');
  assert.equal(byKey.maxSummaryCalls.why, 'not a number');
  // What is listed as used is what the reader uses.
  const settings = readSettings(
    config({ contextWindow: -5, compactAt: 1.7, modelSource: 'cloud', autoCompact: 'yes', maxSummaryCalls: 'four' }),
  );
  assert.equal(settings.contextWindow, 0);
  assert.equal(settings.compactAt, 0.99);
  assert.equal(settings.modelSource, 'endpoint');
  assert.equal(settings.maxSummaryCalls, 4);
});

test('compactTo at or above compactAt is listed with the target actually used', () => {
  const got = replacedValues(config({ compactAt: 0.8, compactTo: 0.9 }));
  assert.equal(got.length, 1, JSON.stringify(got));
  assert.equal(got[0].key, 'compactTo');
  // The defaults' gap (0.8 − 0.5) below the trigger: room for work before the next compaction.
  assert.equal(got[0].used, 0.5);
  assert.match(got[0].why, /not below contextKeeper\.compactAt \(0\.8\)/);
  assert.equal(readSettings(config({ compactAt: 0.8, compactTo: 0.9 })).compactTo, 0.5);
  assert.equal(readSettings(config({ compactAt: 0.9, compactTo: 0.95 })).compactTo, 0.6);
  // Never below compactTo's own minimum, which stays below compactAt's.
  assert.equal(readSettings(config({ compactAt: 0.1, compactTo: 0.5 })).compactTo, 0.05);
  // Clamped first, then kept below the trigger: one entry, the final value.
  const both = replacedValues(config({ compactAt: 0.5, compactTo: 0.99 }));
  assert.equal(both.length, 1);
  assert.equal(both[0].used, 0.2);
  assert.match(both[0].why, /above its maximum 0\.95, and not below/);
});

test('valid and unset values are never listed; each replaced value is told once', () => {
  assert.deepEqual(replacedValues(config({})), []);
  assert.deepEqual(
    replacedValues(config({ contextWindow: 32000, compactAt: 0.7, compactTo: 0.4, modelSource: 'vscode' })),
    [],
  );
  const shown: string[] = [];
  const notice = new ReplacedValuesNotice((m) => shown.push(m));
  notice.check(config({ compactAt: 1.7 }));
  notice.check(config({ compactAt: 1.7 }));
  assert.equal(shown.length, 1);
  assert.match(shown[0], /contextKeeper\.compactAt is 1\.7, above its maximum 0\.99: 0\.99 is used/);
  notice.check(config({ compactAt: 2 }));
  assert.equal(shown.length, 2, 'another wrong value is told again');
});

test('the target kept below the trigger is the one the reader uses, for every pair of values', () => {
  for (const compactAt of [0.1, 0.3, 0.57, 0.8, 0.99])
    for (const compactTo of [0.05, 0.29, 0.3, 0.56, 0.57, 0.58, 0.79, 0.8, 0.95]) {
      const values = { compactAt, compactTo };
      const used = readSettings(config(values)).compactTo;
      assert.ok(used < compactAt, `${compactTo} below ${compactAt}: ${used}`);
      if (used !== compactTo)
        assert.ok(used <= compactAt - 0.29 || used === 0.05, `${compactTo} for ${compactAt}: ${used} leaves room`);
      const listed = replacedValues(config(values)).find((r) => r.key === 'compactTo');
      // Listed exactly when replaced, with the very value the reader uses.
      assert.equal(listed?.used ?? compactTo, used, JSON.stringify(values));
    }
});
