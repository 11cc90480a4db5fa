/**
 * The API key, kept in VS Code's SecretStorage (the OS keychain or code-server's encrypted store).
 * The key never goes to settings, logs or the webview; the views only learn whether one is set.
 */
import type * as vscode from 'vscode';

const SECRET_NAME = 'contextKeeper.apiKey';

/** Reads, stores and clears the model provider's API key. */
export class KeyStore implements vscode.Disposable {
  private readonly subscription: vscode.Disposable;
  private known: boolean | undefined;
  private readonly listeners = new Set<() => void>();
  /** Settles once the store was read the first time (`hasKey` is meaningful from then on). */
  readonly whenLoaded: Promise<void>;

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.subscription = secrets.onDidChange((event) => {
      if (event.key === SECRET_NAME) void this.refresh();
    });
    this.whenLoaded = this.refresh();
  }

  /** Runs `listener` after the key was set or cleared (also from another window); not for the first read. */
  onDidChange(listener: () => void): vscode.Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Whether a key is stored, as last seen (false until the first read completes). */
  get hasKey(): boolean {
    return this.known === true;
  }

  /** The stored key, or undefined. */
  async get(): Promise<string | undefined> {
    const value = await this.secrets.get(SECRET_NAME);
    return value && value.length > 0 ? value : undefined;
  }

  /** Stores `key` (the caller trims it); rejects when the secret store cannot be written. */
  async set(key: string): Promise<void> {
    await this.secrets.store(SECRET_NAME, key);
    await this.refresh();
  }

  /** Removes the stored key (no-op when none); rejects when the secret store cannot be written. */
  async clear(): Promise<void> {
    await this.secrets.delete(SECRET_NAME);
    await this.refresh();
  }

  private async refresh(): Promise<void> {
    const had = this.known;
    this.known = (await this.get()) !== undefined;
    if (had !== undefined && had !== this.known) for (const listener of this.listeners) listener();
  }

  dispose(): void {
    this.subscription.dispose();
    this.listeners.clear();
  }
}
