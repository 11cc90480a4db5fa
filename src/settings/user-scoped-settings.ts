/**
 * Settings a repository must not choose. A cloned repository's `.vscode/settings.json` (or a folder's)
 * could otherwise point the endpoint at its own server (the next request carries the user's API key
 * there, and that server then plays the model), turn on auto-approve (that model's commands then run
 * unasked) or add instructions to every summary prompt. These keys are declared `application` scoped in
 * package.json, so VS Code itself ignores workspace values for them. Not `machine`: on a remote host
 * (code-server, Remote-SSH) VS Code ignores a `machine` key's User value without a word, so what the
 * settings' descriptions tell users to do would not work there; this module enforces the
 * same rule in the reader (older hosts, forks, restricted configurations) and tells the user once.
 *
 * No runtime `vscode` import: the reader is unit-tested with a fake configuration.
 */
import type { WorkspaceConfiguration } from 'vscode';

/** Keys (under `contextKeeper.`) only user (application or machine) settings may set. */
export const USER_ONLY_KEYS: readonly string[] = [
  'baseUrl',
  'summary.baseUrl',
  'summary.instruction',
  'tools.autoApprove',
];

/** The parts of a configuration the reader uses (`get` and `inspect` of `WorkspaceConfiguration`). */
export type InspectableConfiguration = Pick<WorkspaceConfiguration, 'get' | 'inspect'>;

type Inspection = NonNullable<ReturnType<WorkspaceConfiguration['inspect']>>;

/** True when the inspection holds a value from the workspace, a folder, or their language overrides. */
function hasWorkspaceValue(inspection: Inspection | undefined): boolean {
  if (!inspection) return false;
  return (
    inspection.workspaceValue !== undefined ||
    inspection.workspaceFolderValue !== undefined ||
    inspection.workspaceLanguageValue !== undefined ||
    inspection.workspaceFolderLanguageValue !== undefined
  );
}

/** The user's own value of `key`: the global (user or remote) value, else the default, else `fallback`. */
function userValue<T>(config: InspectableConfiguration, key: string, fallback: T): T {
  const inspection = config.inspect<T>(key);
  if (!inspection) return fallback;
  if (inspection.globalValue !== undefined) return inspection.globalValue;
  if (inspection.defaultValue !== undefined) return inspection.defaultValue;
  return fallback;
}

/** Keys of {@link USER_ONLY_KEYS} for which the workspace or a folder sets a value (ignored). */
export function ignoredWorkspaceKeys(config: InspectableConfiguration): string[] {
  return USER_ONLY_KEYS.filter((key) => hasWorkspaceValue(config.inspect(key)));
}

/**
 * A view of `config` whose `get` answers {@link USER_ONLY_KEYS} from user settings only (global value,
 * else default); every other key reads as before. A new object: VS Code's configuration is frozen.
 */
export function userScoped(config: InspectableConfiguration): InspectableConfiguration {
  const only = new Set(USER_ONLY_KEYS);
  const get = ((key: string, fallback?: unknown) =>
    only.has(key) && hasWorkspaceValue(config.inspect(key))
      ? userValue(config, key, fallback)
      : config.get(key, fallback)) as InspectableConfiguration['get'];
  return { get, inspect: config.inspect.bind(config) };
}

/**
 * Tells the user, once per set of keys, that workspace values were ignored. Shown again only when a
 * different set of keys is found (for example after opening another repository's settings).
 */
export class IgnoredSettingsNotice {
  private shown = new Set<string>();

  /** @param show displays one message (a warning notification in the extension). */
  constructor(private readonly show: (message: string) => void) {}

  /** Checks `config` and shows the notice when it sets keys not yet reported. Returns the ignored keys. */
  check(config: InspectableConfiguration): string[] {
    const keys = ignoredWorkspaceKeys(config);
    const fresh = keys.filter((key) => !this.shown.has(key));
    if (fresh.length === 0) return keys;
    for (const key of fresh) this.shown.add(key);
    const names = fresh.map((key) => `contextKeeper.${key}`).join(', ');
    this.show(
      `ContextKeeper ignores this workspace's value for ${names}: where your API key is sent, what runs without asking and ` +
        'what is added to prompts are set in your user settings only, so a repository cannot choose them.',
    );
    return keys;
  }
}

/** The settings layer a value comes from, in VS Code's order of precedence (first wins). */
export type SettingLayer = 'folder' | 'workspace' | 'user';

/**
 * Where the value of `key` in force comes from (folder, workspace, then user settings, as VS Code
 * applies them; undefined: the default), and the user's own value when a folder or workspace value
 * overrides it (the case where changing the user value changes nothing).
 */
export function settingOrigin(
  config: InspectableConfiguration,
  key: string,
): { layer?: SettingLayer; overriddenUserValue?: unknown } {
  const inspection = config.inspect(key);
  if (!inspection) return {};
  const layer: SettingLayer | undefined =
    inspection.workspaceFolderValue !== undefined
      ? 'folder'
      : inspection.workspaceValue !== undefined
        ? 'workspace'
        : inspection.globalValue !== undefined
          ? 'user'
          : undefined;
  const overridden = (layer === 'folder' || layer === 'workspace') && inspection.globalValue !== undefined;
  return { ...(layer ? { layer } : {}), ...(overridden ? { overriddenUserValue: inspection.globalValue } : {}) };
}
