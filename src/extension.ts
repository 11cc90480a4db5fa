/**
 * Extension entry points. `activate()` hands the work to the composition root (./composition/root),
 * which builds every part with plain constructors; one store disposes them all on deactivation.
 */
import type * as vscode from 'vscode';
import { composeExtension, type ContextKeeperApi } from './composition/root';

export type { ContextKeeperApi } from './composition/root';

/** Called by VS Code on first use of a contribution. */
export function activate(context: vscode.ExtensionContext): ContextKeeperApi {
  const { api, disposables } = composeExtension(context);
  context.subscriptions.push(disposables);
  return api;
}

/** Everything is disposed through `context.subscriptions`. */
export function deactivate(): void {}
