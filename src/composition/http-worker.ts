/**
 * Which of the extension's model calls run their HTTP work in the HTTP worker (src/models/worker-fetch.ts).
 *
 * VS Code extends the extension host's own `fetch` with the proxy and the system certificates of
 * its `http.*` settings (`http.fetchAdditionalSupport`, on by default); a worker thread's `fetch`
 * has neither. So a request goes through the worker only where that changes nothing: plain HTTP to
 * this machine (no proxy or certificate applies to it), or any request once the user has turned
 * `http.fetchAdditionalSupport` off. The rest stay on the host's `fetch`, as before.
 */
import * as vscode from 'vscode';
import type { Disposable } from '../lifecycle/disposables';
import { sharedFetchWorker } from '../models/worker-fetch';
import { isLoopback } from '../views/onboarding';

/** Whether a request to `url` may leave the extension host's `fetch` for the worker's (see the module comment). */
export function editorRunsOffThread(url: URL): boolean {
  if (url.protocol === 'http:' && isLoopback(url.href)) return true;
  return vscode.workspace.getConfiguration('http').get<boolean>('fetchAdditionalSupport', true) === false;
}

/**
 * Sets the extension's policy and log on the process's shared HTTP worker. The returned disposable
 * terminates the worker (requests in flight fail as a broken connection does).
 */
export function configureHttpWorker(log: vscode.LogOutputChannel): Disposable {
  const worker = sharedFetchWorker();
  worker.configure({ offThread: editorRunsOffThread, log: (line) => log.warn(line) });
  return { dispose: () => void worker.dispose() };
}
