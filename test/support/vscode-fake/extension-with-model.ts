/**
 * The running extension (typed `vscode` fake) pointed at a loopback model server: settings for its
 * endpoint, model and window, a fresh storage folder, and activation. For view tests that drive the
 * agent as the user does. Registers the fake first, so the module also loads on its own (the test
 * runner loads every file under the test folder).
 */
import './register';
import type * as vscode from 'vscode';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { activate, type ContextKeeperApi } from '../../../src/extension';
import type { ModelServer } from '../../../src/demo/modelserver/wire';
import { host, resetVscodeFake } from '.';
import { fakeExtensionContext } from './context';

/** An activated extension; `close()` disposes it, stops the server and removes the storage folder. */
export interface ExtensionWithModel {
  api: ContextKeeperApi;
  context: vscode.ExtensionContext;
  close(): Promise<void>;
}

/** Resets the fake, points the settings at `server` (model `loopback-model`, a 100k window) and activates. */
export function activateWithModel(server: ModelServer, storagePrefix: string): ExtensionWithModel {
  resetVscodeFake();
  host.setSetting('contextKeeper.baseUrl', server.url);
  host.setSetting('contextKeeper.model', 'loopback-model');
  host.setSetting('contextKeeper.contextWindow', 100_000);
  const storage = mkdtempSync(path.join(tmpdir(), storagePrefix));
  const context = fakeExtensionContext(storage);
  const api = activate(context);
  return {
    api,
    context,
    close: async () => {
      for (const subscription of context.subscriptions) subscription.dispose();
      await server.close();
      rmSync(storage, { recursive: true, force: true });
    },
  };
}
