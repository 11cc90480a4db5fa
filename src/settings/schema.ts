/**
 * The declared shape of every `contextKeeper.*` setting: type, default, and the range or choices the
 * reader accepts. The one source `readSettings()` takes its fallbacks and clamps from; package.json's
 * `contributes.configuration` must say the same (test/settings/schema.test.ts compares the two key by
 * key, so changing one without the other fails). No `vscode` import: plain data.
 */

/** A number setting; values outside [minimum, maximum] are clamped, non-numbers read as the default. */
export interface NumberSpec {
  readonly type: 'number';
  readonly default: number;
  readonly minimum: number;
  readonly maximum: number;
  /** Rounded to a whole number when read (counts of steps, calls, images). */
  readonly integer?: boolean;
}

/** A string setting, trimmed when read; with `enum`, anything else reads as the default. */
export interface StringSpec {
  readonly type: 'string';
  readonly default: string;
  readonly enum?: readonly string[];
}

/** A boolean setting; anything but the opposite of the default reads as the default. */
export interface BooleanSpec {
  readonly type: 'boolean';
  readonly default: boolean;
}

/** A list of strings. */
export interface StringArraySpec {
  readonly type: 'array';
  readonly default: readonly string[];
}

/** One setting's declaration. */
export type SettingSpec = NumberSpec | StringSpec | BooleanSpec | StringArraySpec;

/** Largest window a setting may name, in tokens (no served model comes near it). */
const MAX_WINDOW = 10_000_000;

/** Every setting, keyed by its name under `contextKeeper.`. Units: windows and budgets in tokens. */
export const SETTINGS_SCHEMA = {
  baseUrl: { type: 'string', default: '' },
  model: { type: 'string', default: 'gpt-4o-mini' },
  modelSource: { type: 'string', default: 'endpoint', enum: ['endpoint', 'vscode'] },
  contextWindow: { type: 'number', default: 0, minimum: 0, maximum: MAX_WINDOW },
  maxOutputTokens: { type: 'number', default: 4096, minimum: 16, maximum: 1_000_000 },
  compactAt: { type: 'number', default: 0.8, minimum: 0.1, maximum: 0.99 },
  compactTo: { type: 'number', default: 0.5, minimum: 0.05, maximum: 0.95 },
  keepRecentSteps: { type: 'number', default: 1, minimum: 0, maximum: 100, integer: true },
  userBudget: { type: 'number', default: 0.25, minimum: 0.01, maximum: 1 },
  summaryBudget: { type: 'number', default: 0.25, minimum: 0.01, maximum: 1 },
  reattachBudget: { type: 'number', default: 0.1, minimum: 0, maximum: 1 },
  reattachMaxFiles: { type: 'number', default: 5, minimum: 0, maximum: 50, integer: true },
  autoCompact: { type: 'boolean', default: true },
  previewSummary: { type: 'boolean', default: false },
  maxSummaryCalls: { type: 'number', default: 4, minimum: 1, maximum: 64, integer: true },
  maxImagesPerRequest: { type: 'number', default: 0, minimum: 0, maximum: 1000, integer: true },
  'summary.baseUrl': { type: 'string', default: '' },
  'summary.model': { type: 'string', default: '' },
  'summary.contextWindow': { type: 'number', default: 0, minimum: 0, maximum: MAX_WINDOW },
  'summary.instruction': { type: 'string', default: '' },
  'tools.autoApprove': { type: 'boolean', default: false },
  'watch.enabled': { type: 'boolean', default: true },
  'watch.extraFolders': { type: 'array', default: [] },
  'watch.notifyBeforeAgentCompacts': { type: 'number', default: 0.9, minimum: 0, maximum: 1 },
} as const satisfies Record<string, SettingSpec>;

/** A setting's name under `contextKeeper.`. */
export type SettingKey = keyof typeof SETTINGS_SCHEMA;

/** Names of the settings of one type. */
export type KeysOfType<T extends SettingSpec['type']> = {
  [K in SettingKey]: (typeof SETTINGS_SCHEMA)[K]['type'] extends T ? K : never;
}[SettingKey];

/** The reader's part of a configuration: `get` as VS Code's `WorkspaceConfiguration` has it. */
export interface ConfigurationGetter {
  get<T>(key: string, defaultValue: T): T;
}

/** Reads number `key`: clamped into its range, rounded when whole, the default when not a finite number. */
export function readNumber(config: ConfigurationGetter, key: KeysOfType<'number'>): number {
  const spec: NumberSpec = SETTINGS_SCHEMA[key];
  const value = config.get<unknown>(key, spec.default);
  if (typeof value !== 'number' || !Number.isFinite(value)) return spec.default;
  const clamped = Math.min(spec.maximum, Math.max(spec.minimum, value));
  return spec.integer ? Math.round(clamped) : clamped;
}

/** Reads string `key`, trimmed; the default when not a string or (with `enum`) not one of the choices. */
export function readString(config: ConfigurationGetter, key: KeysOfType<'string'>): string {
  const spec: StringSpec = SETTINGS_SCHEMA[key];
  const value = config.get<unknown>(key, spec.default);
  if (typeof value !== 'string') return spec.default;
  const trimmed = value.trim();
  return spec.enum && !spec.enum.includes(trimmed) ? spec.default : trimmed;
}

/** Reads boolean `key`: only the opposite of the default, given as a boolean, changes it. */
export function readBoolean(config: ConfigurationGetter, key: KeysOfType<'boolean'>): boolean {
  const spec: BooleanSpec = SETTINGS_SCHEMA[key];
  return config.get<unknown>(key, spec.default) === !spec.default ? !spec.default : spec.default;
}

/** Reads string-list `key`: its strings, trimmed and non-empty; the default when not a list. */
export function readStrings(config: ConfigurationGetter, key: KeysOfType<'array'>): string[] {
  const spec: StringArraySpec = SETTINGS_SCHEMA[key];
  const value = config.get<unknown>(key, spec.default);
  if (!Array.isArray(value)) return [...spec.default];
  return value.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim());
}

/**
 * How far below `compactAt` a `compactTo` at or above it is put: the gap between the two defaults
 * (0.8 − 0.5 = 0.3 of the budget), the room a compaction is meant to leave before the next one
 * (package.json: `compactTo` "well below" `compactAt`).
 */
const TARGET_GAP = SETTINGS_SCHEMA.compactAt.default - SETTINGS_SCHEMA.compactTo.default;

/**
 * The `compactTo` fraction in force for trigger `compactAt` and target `compactTo` (both fractions of
 * the input budget, as read): `compactTo` when it is below `compactAt`, else `compactAt` − 0.3 (the
 * defaults' gap) rounded to hundredths and at least `compactTo`'s minimum 0.05. A target at or just
 * under the trigger would leave a compacted context right at it, so the next model call compacts
 * again with next to nothing to compact. The one statement of the rule: `readSettings` uses it, and
 * `replacedValues` reports it.
 */
export function targetBelowTrigger(compactAt: number, compactTo: number): number {
  if (compactTo < compactAt) return compactTo;
  return Math.max(SETTINGS_SCHEMA.compactTo.minimum, Number((compactAt - TARGET_GAP).toFixed(2)));
}

/** A value set for a setting that the reader does not use as given, and what it uses instead. */
export interface ReplacedValue {
  /** The setting's name under `contextKeeper.`. */
  key: SettingKey;
  /** The value as set. */
  given: unknown;
  /** The value used. */
  used: unknown;
  /** Why: "below its minimum 0", "not a number", "not one of endpoint, vscode"… */
  why: string;
}

/**
 * The values of `config` that the readers above replace: a number out of its range (clamped) or not
 * a finite number, a choice not among its choices, a boolean or a list of another type (the
 * default). Values at their default or unset are never listed. `compactTo` at or above `compactAt`
 * is listed too (`readSettings` keeps it below). Order: the schema's. Never throws.
 */
export function replacedValues(config: ConfigurationGetter): ReplacedValue[] {
  const out: ReplacedValue[] = [];
  for (const key of Object.keys(SETTINGS_SCHEMA) as SettingKey[]) {
    const spec: SettingSpec = SETTINGS_SCHEMA[key];
    const given = config.get<unknown>(key, spec.default);
    if (given === undefined || given === null || given === spec.default) continue;
    if (spec.type === 'number') {
      if (typeof given !== 'number' || !Number.isFinite(given)) {
        out.push({ key, given, used: spec.default, why: 'not a number' });
        continue;
      }
      if (given < spec.minimum) out.push({ key, given, used: spec.minimum, why: `below its minimum ${spec.minimum}` });
      else if (given > spec.maximum)
        out.push({ key, given, used: spec.maximum, why: `above its maximum ${spec.maximum}` });
    } else if (spec.type === 'string') {
      if (typeof given !== 'string') out.push({ key, given, used: spec.default, why: 'not text' });
      else if (spec.enum && !spec.enum.includes(given.trim()))
        out.push({ key, given, used: spec.default, why: `not one of ${spec.enum.join(', ')}` });
    } else if (spec.type === 'boolean') {
      if (typeof given !== 'boolean') out.push({ key, given, used: spec.default, why: 'not true or false' });
    } else if (!Array.isArray(given)) out.push({ key, given, used: spec.default, why: 'not a list of text' });
  }
  const at = readNumber(config, 'compactAt');
  const to = readNumber(config, 'compactTo');
  const used = targetBelowTrigger(at, to);
  if (used !== to) {
    const why = `not below contextKeeper.compactAt (${at})`;
    const clamped = out.find((r) => r.key === 'compactTo');
    if (clamped) Object.assign(clamped, { used, why: `${clamped.why}, and ${why}` });
    else
      out.push({
        key: 'compactTo',
        given: config.get<unknown>('compactTo', SETTINGS_SCHEMA.compactTo.default),
        used,
        why,
      });
  }
  return out;
}
