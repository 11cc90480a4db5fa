/**
 * Runs a function at most once per interval, however often it is asked for (streamed text can fire
 * hundreds of events a second; the views redraw once per frame-ish interval instead).
 */
import type * as vscode from 'vscode';

/** A scheduler for `run`; `dispose()` drops a pending run. */
export function coalesce(run: () => void, intervalMs = 50): { schedule(): void } & vscode.Disposable {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    schedule() {
      timer ??= setTimeout(() => {
        timer = undefined;
        run();
      }, intervalMs);
    },
    dispose() {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
