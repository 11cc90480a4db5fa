/**
 * Bridges VS Code's CancellationToken to the AbortSignal the service and the core take.
 */
import type * as vscode from 'vscode';

/** An AbortSignal that aborts when `token` is cancelled, plus a disposer for the listener. */
export function abortSignalFrom(token: vscode.CancellationToken): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  if (token.isCancellationRequested) {
    controller.abort();
    return { signal: controller.signal, dispose: () => undefined };
  }
  const listener = token.onCancellationRequested(() => controller.abort());
  return {
    signal: controller.signal,
    dispose: () => {
      listener.dispose();
    },
  };
}
