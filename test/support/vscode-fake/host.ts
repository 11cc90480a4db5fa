/**
 * What a test scripts and inspects in the `vscode` fake: the user's answers (message buttons, input
 * boxes, quick picks, dialogs), the settings layers (defaults from the real package.json), the secret
 * store, registrations, and what the extension showed. {@link resetHost} starts a test from a clean editor.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { CancellationTokenSource, EventEmitter, liveEmitters } from './core';

/** One notification the extension showed. */
export interface ShownMessage {
  severity: 'information' | 'warning' | 'error';
  message: string;
  /** Button titles (strings or the items' titles). */
  items: string[];
  modal: boolean;
  /** The dialog's detail text (modal messages), when given. */
  detail?: string;
}

/** A running `withProgress` task: its title, and the Cancel button of a cancellable notification. */
export interface RunningProgress {
  title: string | undefined;
  location: vscode.ProgressOptions['location'];
  /** The message last reported (`progress.report({ message })`). */
  message?: string;
  cancellable: boolean;
  cancel(): void;
}

/** The user's side: each returns the answer to one prompt (undefined = dismissed / Escape). */
export interface UserScript {
  message(shown: ShownMessage): string | undefined;
  input(options: vscode.InputBoxOptions | undefined): string | undefined;
  quickPick(
    items: readonly vscode.QuickPickItem[],
    options: vscode.QuickPickOptions | undefined,
  ): vscode.QuickPickItem | undefined;
  openDialog(options: vscode.OpenDialogOptions | undefined): vscode.Uri[] | undefined;
  saveDialog(options: vscode.SaveDialogOptions | undefined): vscode.Uri | undefined;
}

/** A setting's layers, as `WorkspaceConfiguration.inspect` reports them. */
export interface SettingLayers {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/** A live registration (command, provider, status bar item, channel, view) with its kind and id. */
export interface Registration {
  kind: 'command' | 'content-provider' | 'file-system' | 'webview-view' | 'tree' | 'status-bar-item' | 'output-channel';
  id: string;
  /** The registered object (a command's handler, a provider, the item). */
  target: unknown;
}

const manifestPath = path.resolve(__dirname, '../../../../package.json');

/** The real package.json's configuration defaults, keyed by full name (`contextKeeper.model`). */
function manifestDefaults(): Map<string, SettingLayers> {
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    contributes: { configuration: { properties: Record<string, { default?: unknown }> } };
  };
  return new Map(
    Object.entries(manifest.contributes.configuration.properties).map(([key, p]) => [key, { defaultValue: p.default }]),
  );
}

/** The fake editor's state. One instance, reset between tests. */
export class FakeHost {
  /** The user's answers; by default every prompt is dismissed. */
  user: UserScript = {
    message: () => undefined,
    input: () => undefined,
    quickPick: () => undefined,
    openDialog: () => undefined,
    saveDialog: () => undefined,
  };
  readonly messages: ShownMessage[] = [];
  readonly progress: RunningProgress[] = [];
  /** Documents shown with `window.showTextDocument`, in order, with the column and preview asked for. */
  readonly shownDocuments: Array<{ uri: vscode.Uri; viewColumn?: number; preview?: boolean }> = [];
  /** Commands run that nobody registered (built-ins such as `vscode.diff`), with their arguments. */
  readonly executed: Array<{ id: string; args: unknown[] }> = [];
  /** Values set with `setContext`. */
  readonly contextKeys = new Map<string, unknown>();
  /** Every `WorkspaceConfiguration.update` call: key, value, target. */
  readonly settingUpdates: Array<{ key: string; value: unknown; target: unknown }> = [];
  readonly settings: Map<string, SettingLayers> = manifestDefaults();
  readonly secrets = new Map<string, string>();
  readonly registrations = new Set<Registration>();
  clipboard = '';
  isTrusted = true;
  workspaceFolders: vscode.WorkspaceFolder[] | undefined = undefined;
  /** Answers `workspace.findFiles` (the fake does not search). */
  findFiles: (
    pattern: vscode.GlobPattern,
    exclude: vscode.GlobPattern | null | undefined,
    maxResults: number | undefined,
    token: vscode.CancellationToken | undefined,
  ) => vscode.Uri[] = () => [];

  readonly onDidChangeConfiguration = new EventEmitter<vscode.ConfigurationChangeEvent>();
  readonly onDidGrantWorkspaceTrust = new EventEmitter<void>();
  readonly onDidCloseTextDocument = new EventEmitter<vscode.TextDocument>();
  readonly onDidChangeWorkspaceFolders = new EventEmitter<vscode.WorkspaceFoldersChangeEvent>();
  readonly onDidChangeSecrets = new EventEmitter<vscode.SecretStorageChangeEvent>();

  /** Registrations of one kind still alive. */
  live(kind?: Registration['kind']): Registration[] {
    return [...this.registrations].filter((r) => kind === undefined || r.kind === kind);
  }

  /** Adds a registration; its disposable removes it. */
  register(kind: Registration['kind'], id: string, target: unknown): vscode.Disposable {
    const registration: Registration = { kind, id, target };
    this.registrations.add(registration);
    return { dispose: () => this.registrations.delete(registration) };
  }

  /** Listeners the extension still holds on the editor's own events. */
  editorListenerCount(): number {
    return [
      this.onDidChangeConfiguration,
      this.onDidGrantWorkspaceTrust,
      this.onDidCloseTextDocument,
      this.onDidChangeWorkspaceFolders,
      this.onDidChangeSecrets,
    ].reduce((sum, emitter) => sum + emitter.listenerCount, 0);
  }

  /** Sets a user (global) or workspace value, as editing settings.json does, and announces the change. */
  setSetting(
    key: string,
    value: unknown,
    layer: 'globalValue' | 'workspaceValue' | 'workspaceFolderValue' = 'globalValue',
  ): void {
    const layers = this.settings.get(key) ?? {};
    this.settings.set(key, { ...layers, [layer]: value });
    this.onDidChangeConfiguration.fire({
      affectsConfiguration: (section) => key === section || key.startsWith(`${section}.`),
    });
  }

  /** What `get` answers: the most specific layer set. */
  settingValue(key: string): unknown {
    const l = this.settings.get(key);
    if (!l) return undefined;
    for (const v of [l.workspaceFolderValue, l.workspaceValue, l.globalValue, l.defaultValue])
      if (v !== undefined) return v;
    return undefined;
  }

  /** Records a notification and returns the user's button. */
  show(severity: ShownMessage['severity'], message: string, rest: unknown[]): string | vscode.MessageItem | undefined {
    const options =
      typeof rest[0] === 'object' && rest[0] !== null && !('title' in rest[0])
        ? (rest.shift() as vscode.MessageOptions)
        : undefined;
    const items = rest as Array<string | vscode.MessageItem>;
    const shown: ShownMessage = {
      severity,
      message,
      items: items.map((i) => (typeof i === 'string' ? i : i.title)),
      modal: options?.modal === true,
      ...(options?.detail ? { detail: options.detail } : {}),
    };
    this.messages.push(shown);
    const answer = this.user.message(shown);
    return answer === undefined ? undefined : items.find((i) => (typeof i === 'string' ? i : i.title) === answer);
  }

  /** Runs a progress task with a token the test can cancel (the notification's Cancel). */
  async runProgress<R>(
    options: vscode.ProgressOptions,
    task: (
      progress: vscode.Progress<{ message?: string; increment?: number }>,
      token: vscode.CancellationToken,
    ) => Thenable<R>,
  ): Promise<R> {
    const source = new CancellationTokenSource();
    const entry: RunningProgress = {
      title: options.title,
      location: options.location,
      cancellable: options.cancellable === true,
      cancel: () => source.cancel(),
    };
    this.progress.push(entry);
    try {
      const report = (step: { message?: string }) => {
        if (step.message !== undefined) entry.message = step.message;
      };
      return await task({ report }, source.token);
    } finally {
      this.progress.splice(this.progress.indexOf(entry), 1);
      source.dispose();
    }
  }
}

/** The editor every fake namespace reads. */
export let host = new FakeHost();

/** A clean editor for the next test (new settings, secrets, registrations and answers). */
export function resetHost(): FakeHost {
  host = new FakeHost();
  liveEmitters.clear();
  return host;
}
