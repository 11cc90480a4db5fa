/**
 * Typed access to the `contextKeeper.*` settings. Every key is documented in package.json
 * (`contributes.configuration`); this module is the only place that reads them. Changes reach the
 * rest of the extension through one path, {@link Settings.onDidChange}, so nothing needs a reload.
 */
import * as vscode from 'vscode';
import { DisposableStore } from '../lifecycle/disposables';
import {
  readBoolean,
  readNumber,
  readString,
  readStrings,
  replacedValues,
  targetBelowTrigger,
  type ConfigurationGetter,
  type KeysOfType,
  type ReplacedValue,
} from './schema';
import {
  IgnoredSettingsNotice,
  settingOrigin,
  userScoped,
  type InspectableConfiguration,
  type SettingLayer,
} from './user-scoped-settings';

/** The section all keys live under. */
export const SETTINGS_SECTION = 'contextKeeper';

/** A resolved snapshot of every setting. */
export interface ContextKeeperSettings {
  baseUrl: string;
  model: string;
  /** `vscode`: a chat model VS Code offers (`vscode.lm`) instead of the endpoint. */
  modelSource: 'endpoint' | 'vscode';
  /** 0 means: use the model's known window. */
  contextWindow: number;
  /**
   * Which settings layer `contextWindow` comes from (undefined: the default, 0), and the user's own
   * value when a folder or workspace value overrides it (VS Code applies folder, then workspace,
   * then user settings).
   */
  contextWindowOrigin: { layer?: SettingLayer; overriddenUserValue?: number };
  maxOutputTokens: number;
  summary: {
    baseUrl: string;
    model: string;
    contextWindow: number;
    instruction: string;
  };
  compactAt: number;
  compactTo: number;
  keepRecentSteps: number;
  /** Share of the compaction target for typed requests kept verbatim. */
  userBudget: number;
  /** Share of the compaction target for a summary's notes and ledger. */
  summaryBudget: number;
  /** Share of the compaction target for files re-attached after a summary; 0 turns re-attaching off. */
  reattachBudget: number;
  /** Most files re-attached after one summary; 0 turns re-attaching off. */
  reattachMaxFiles: number;
  autoCompact: boolean;
  previewSummary: boolean;
  maxSummaryCalls: number;
  /** Most images per request; 0 means no limit. */
  maxImagesPerRequest: number;
  tools: { autoApprove: boolean };
  /**
   * The Agent Sessions view: whether it looks for sessions, more folders to look in, and the fraction
   * of the watched agent's own compaction point at which to notify (0: never).
   */
  watch: { enabled: boolean; extraFolders: string[]; notifyBeforeAgentCompacts: number };
}

/**
 * Reads the settings from a configuration object. Defaults, ranges and choices come from
 * {@link SETTINGS_SCHEMA} (the same as package.json declares); values out of range are clamped, and
 * `compactTo` is kept below `compactAt`. Endpoint URLs, auto-approve and the summary instruction come
 * from user settings only (`user-scoped-settings.ts`).
 */
export function readSettings(workspaceConfig: InspectableConfiguration): ContextKeeperSettings {
  const config = userScoped(workspaceConfig);
  const num = (key: KeysOfType<'number'>) => readNumber(config, key);
  const str = (key: KeysOfType<'string'>) => readString(config, key);
  const bool = (key: KeysOfType<'boolean'>) => readBoolean(config, key);
  const compactAt = num('compactAt');
  const compactTo = targetBelowTrigger(compactAt, num('compactTo'));
  return {
    baseUrl: str('baseUrl'),
    model: str('model'),
    modelSource: str('modelSource') === 'vscode' ? 'vscode' : 'endpoint',
    contextWindow: num('contextWindow'),
    contextWindowOrigin: windowOrigin(config),
    maxOutputTokens: num('maxOutputTokens'),
    summary: {
      baseUrl: str('summary.baseUrl'),
      model: str('summary.model'),
      contextWindow: num('summary.contextWindow'),
      instruction: str('summary.instruction'),
    },
    compactAt,
    compactTo,
    keepRecentSteps: num('keepRecentSteps'),
    userBudget: num('userBudget'),
    summaryBudget: num('summaryBudget'),
    reattachBudget: num('reattachBudget'),
    reattachMaxFiles: num('reattachMaxFiles'),
    autoCompact: bool('autoCompact'),
    previewSummary: bool('previewSummary'),
    maxSummaryCalls: num('maxSummaryCalls'),
    maxImagesPerRequest: num('maxImagesPerRequest'),
    tools: { autoApprove: bool('tools.autoApprove') },
    watch: {
      enabled: bool('watch.enabled'),
      extraFolders: readStrings(config, 'watch.extraFolders'),
      notifyBeforeAgentCompacts: num('watch.notifyBeforeAgentCompacts'),
    },
  };
}

/** Where `contextWindow` comes from (see {@link ContextKeeperSettings.contextWindowOrigin}). */
function windowOrigin(config: InspectableConfiguration): ContextKeeperSettings['contextWindowOrigin'] {
  const { layer, overriddenUserValue } = settingOrigin(config, 'contextWindow');
  return {
    ...(layer ? { layer } : {}),
    ...(typeof overriddenUserValue === 'number' ? { overriddenUserValue } : {}),
  };
}

const fmt = (n: number) => n.toLocaleString('en-US');

/**
 * Where a `contextKeeper.contextWindow` value in force comes from, for the gauge's window label:
 * "from workspace settings, which override your user setting of 32,000".
 */
export function describeWindowOrigin(origin: ContextKeeperSettings['contextWindowOrigin']): string {
  const layer = origin.layer ?? 'user';
  const over =
    origin.overriddenUserValue !== undefined
      ? `, which override your user setting of ${fmt(origin.overriddenUserValue)}`
      : '';
  return `from ${layer} settings${over}`;
}

/**
 * The warning for a user value of `contextKeeper.contextWindow` that a folder or workspace value
 * overrides (changing it changes nothing here), or undefined when none is overridden.
 */
export function overriddenWindowNotice(settings: ContextKeeperSettings): string | undefined {
  const { layer, overriddenUserValue } = settings.contextWindowOrigin;
  if (overriddenUserValue === undefined || overriddenUserValue === settings.contextWindow) return undefined;
  return `ContextKeeper: your user setting contextKeeper.contextWindow (${fmt(overriddenUserValue)}) has no effect here: this ${layer === 'folder' ? 'folder' : 'workspace'}'s settings set ${settings.contextWindow === 0 ? '0 (ask the endpoint)' : fmt(settings.contextWindow)}, which VS Code applies first. Change or remove that value to use yours.`;
}

/** Writes in progress through {@link changeSettingsTogether}; while any runs, change events wait. */
let holding = 0;
const held = new Set<() => void>();

/**
 * Runs `write` (which updates several `contextKeeper.*` keys) so that every {@link Settings} announces
 * the result once, after the last key is written: a session is then never opened on a half-written
 * choice (a new endpoint with the previous model) only to warn about a pair the user never chose.
 */
export async function changeSettingsTogether<T>(write: () => Promise<T>): Promise<T> {
  holding++;
  try {
    return await write();
  } finally {
    if (--holding === 0) {
      const waiting = [...held];
      held.clear();
      for (const fire of waiting) fire();
    }
  }
}

/** Holds the current settings and announces changes to `contextKeeper.*`. */
export class Settings implements vscode.Disposable {
  private readonly store = new DisposableStore();
  private readonly _onDidChange = this.store.add(new vscode.EventEmitter<ContextKeeperSettings>());
  /** Fires with the new settings after any `contextKeeper.*` key changed. */
  readonly onDidChange = this._onDidChange.event;
  private current: ContextKeeperSettings;

  /** The overridden-window warning last due (see {@link overriddenWindowNotice}). */
  private told: string | undefined;
  /** False until the first read (the user changed nothing yet). */
  private started = false;
  private readonly notice = new IgnoredSettingsNotice((message) => this.warn(message));
  private readonly replaced = new ReplacedValuesNotice((message) => this.warn(message));

  /**
   * @param log where each warning about the settings is written as well as shown (a notification
   * can be missed or dismissed; the output channel keeps it).
   */
  constructor(private readonly log?: Pick<vscode.LogOutputChannel, 'warn'>) {
    this.current = this.read();
    this.store.add(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (!event.affectsConfiguration(SETTINGS_SECTION)) return;
        if (holding > 0) {
          held.add(this.announce);
          return;
        }
        this.announce();
      }),
    );
    // Trusting the folder turns the agent and the summarizer endpoint on: rebuild as after a change.
    this.store.add(
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.current = this.read();
        this._onDidChange.fire(this.current);
      }),
    );
  }

  /** Reads the settings again and fires the change event. */
  private readonly announce = (): void => {
    this.current = this.read();
    this._onDidChange.fire(this.current);
  };

  private read(): ContextKeeperSettings {
    const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    this.notice.check(config);
    this.replaced.check(config);
    const settings = readSettings(config);
    // Told on a change of settings, once per pair of values: not at startup, where a workspace value
    // set on purpose would be nagged about in every window.
    const overridden = overriddenWindowNotice(settings);
    if (this.started && overridden && overridden !== this.told) this.warn(overridden);
    if (overridden) this.told = overridden;
    this.started = true;
    return settings;
  }

  /** Shows `message` as a warning and writes it to the log. */
  private warn(message: string): void {
    this.log?.warn(message);
    void vscode.window.showWarningMessage(message);
  }

  /** The settings in force now. */
  get value(): ContextKeeperSettings {
    return this.current;
  }

  dispose(): void {
    this.store.dispose();
  }
}

/**
 * Tells the user, once per setting and value, that a value set is not used as given (out of its
 * range, of another type, `compactTo` not below `compactAt`; see `replacedValues`), naming the value
 * used instead: a mistyped setting never changes the behaviour in silence.
 */
export class ReplacedValuesNotice {
  private readonly told = new Set<string>();

  /** @param show displays one message (a warning notification in the extension). */
  constructor(private readonly show: (message: string) => void) {}

  /** Checks `config`; shows one message for the values not told yet. Returns every value replaced now. */
  check(config: ConfigurationGetter): ReplacedValue[] {
    const all = replacedValues(config);
    const fresh = all.filter((r) => !this.told.has(`${r.key}=${JSON.stringify(r.given)}`));
    if (fresh.length === 0) return all;
    for (const r of fresh) this.told.add(`${r.key}=${JSON.stringify(r.given)}`);
    const parts = fresh.map(
      (r) => `contextKeeper.${r.key} is ${JSON.stringify(r.given)}, ${r.why}: ${JSON.stringify(r.used)} is used`,
    );
    this.show(`ContextKeeper: ${parts.join('; ')}. Change the setting to choose another value.`);
    return all;
  }
}
