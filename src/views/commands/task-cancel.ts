/**
 * Cancelling a running task and waiting for it to end, so that what a running task forbids
 * (deleting, leaving or rebuilding its session) can follow at once. No `vscode` API.
 */
import type { ContextServiceApi } from '../../service/api';

/**
 * Cancels `service`'s task (and any compaction) and resolves once `busy()` turns false, read on each
 * state change. Resolves at once when nothing runs.
 * @throws Error when the task has not ended within `timeoutMs` milliseconds of the cancel.
 */
export function cancelAndWait(
  service: Pick<ContextServiceApi, 'cancel' | 'onDidChangeState'>,
  busy: () => boolean,
  timeoutMs: number,
): Promise<void> {
  if (!busy()) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`the task did not stop within ${timeoutMs / 1000} s of the cancel`));
    }, timeoutMs);
    const sub = service.onDidChangeState(() => {
      if (busy()) return;
      clearTimeout(timer);
      sub.dispose();
      resolve();
    });
    service.cancel();
  });
}
