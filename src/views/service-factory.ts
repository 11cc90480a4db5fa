/**
 * Builds a context service from the settings, the stored API key and the workspace. The only module
 * that knows how the service is constructed; the views see {@link ContextServiceApi} only.
 */
import type * as vscode from 'vscode';
import type { ServiceFactory } from './session-controller';

/** A factory bound to this extension's storage and logger. */
export function createServiceFactory(_context: vscode.ExtensionContext, _log: vscode.LogOutputChannel): ServiceFactory {
  return async () => {
    throw new Error('The context service is not part of this build yet.');
  };
}
