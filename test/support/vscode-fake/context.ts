/**
 * An extension context for the fake: secret storage over `host.secrets` (with the change event other
 * windows cause), mementos kept in memory (pass the same one again to simulate a reload), and storage
 * folders in a temp directory.
 */
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { readFileSync } from 'node:fs';
import { Uri } from './core';
import { host } from './host';

/** A memento in memory. */
export class FakeMemento implements vscode.Memento {
  private readonly values = new Map<string, unknown>();

  keys(): readonly string[] {
    return [...this.values.keys()];
  }

  get<T>(key: string, defaultValue?: T): T | undefined {
    return this.values.has(key) ? (this.values.get(key) as T) : defaultValue;
  }

  async update(key: string, value: unknown): Promise<void> {
    if (value === undefined) this.values.delete(key);
    else this.values.set(key, value);
  }
}

/** SecretStorage over `host.secrets`; `onDidChange` fires for this window's writes and for {@link changeSecretElsewhere}. */
export const secretStorage: vscode.SecretStorage = {
  get: async (key) => host.secrets.get(key),
  store: async (key, value) => {
    host.secrets.set(key, value);
    host.onDidChangeSecrets.fire({ key });
  },
  delete: async (key) => {
    host.secrets.delete(key);
    host.onDidChangeSecrets.fire({ key });
  },
  onDidChange: (listener, thisArgs, disposables) => host.onDidChangeSecrets.event(listener, thisArgs, disposables),
};

/** Another VS Code window sets or clears a secret (the OS keychain is shared). */
export function changeSecretElsewhere(key: string, value: string | undefined): void {
  if (value === undefined) host.secrets.delete(key);
  else host.secrets.set(key, value);
  host.onDidChangeSecrets.fire({ key });
}

const root = path.resolve(__dirname, '../../../..');

/** The parts of an extension context the extension reads. */
export type ContextParts = Pick<
  vscode.ExtensionContext,
  | 'subscriptions'
  | 'secrets'
  | 'workspaceState'
  | 'globalState'
  | 'storageUri'
  | 'globalStorageUri'
  | 'extensionUri'
  | 'extensionPath'
> & {
  extension: Pick<vscode.Extension<unknown>, 'id' | 'packageJSON' | 'extensionUri'>;
};

/** A context whose storage lives under `storageDir`; `workspaceState` as given (a reload keeps it). */
export function fakeExtensionContext(
  storageDir: string,
  workspaceState: FakeMemento = new FakeMemento(),
): vscode.ExtensionContext {
  const packageJSON = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as unknown;
  const extensionUri = Uri.file(root);
  const parts: ContextParts = {
    subscriptions: [],
    secrets: secretStorage,
    workspaceState,
    globalState: Object.assign(new FakeMemento(), { setKeysForSync: () => undefined }),
    storageUri: Uri.file(path.join(storageDir, 'workspace')),
    globalStorageUri: Uri.file(path.join(storageDir, 'global')),
    extensionUri,
    extensionPath: root,
    extension: { id: 'contextkeeper.context-keeper', packageJSON, extensionUri },
  };
  return parts as vscode.ExtensionContext;
}
