/**
 * The check Choose Endpoint runs on a typed URL before saving it: the same test as Test Connection
 * (the endpoint's model list, then one tiny chat request, `models/test-connection.ts`), without an API
 * key (none may be stored for a new endpoint yet), under a cancellable progress notification.
 */
import * as vscode from 'vscode';
import { testConnection } from '../../models/test-connection';
import { errorMessage } from '../../format/error-message';

/** What the check found: `reachable` when the server answered at all (even 401 or 404). */
export interface EndpointCheck {
  reachable: boolean;
  /** The test's report, one finding per line; the last says what the test request got. */
  lines: string[];
}

/** Per request, in milliseconds: a typed URL that does not answer within it counts as unreachable. */
export const CHECK_TIMEOUT_MS = 5_000;

/**
 * Tests `url` with `model` (the one being chosen, which the test request names and whose window is
 * looked up) and `contextWindow` (the user's window setting in tokens; 0: none) and says whether
 * anything answers there. A missing
 * key or an unknown model is not "unreachable": the server answered. Resolves to undefined when the
 * user cancelled the check. Never throws: an error counts as unreachable, its message as the last line.
 */
export async function checkEndpoint(url: string, model: string, contextWindow = 0): Promise<EndpointCheck | undefined> {
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `ContextKeeper: checking ${url}`, cancellable: true },
    async (_progress, token): Promise<EndpointCheck | undefined> => {
      const controller = new AbortController();
      const sub = token.onCancellationRequested(() => controller.abort());
      try {
        const result = await testConnection({
          baseUrl: url,
          model: model || 'gpt-4o-mini',
          contextWindow,
          timeoutMs: CHECK_TIMEOUT_MS,
          signal: controller.signal,
        });
        if (controller.signal.aborted) return undefined;
        return { reachable: result.failure?.kind !== 'network', lines: result.lines };
      } catch (error) {
        if (controller.signal.aborted) return undefined;
        return {
          reachable: false,
          lines: [`The check stopped: ${errorMessage(error)}`],
        };
      } finally {
        sub.dispose();
      }
    },
  );
}
