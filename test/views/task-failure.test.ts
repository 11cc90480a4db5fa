/**
 * A task that fails at the model (an HTTP 400 from a loopback server) over the running extension:
 * the sidebar's view state keeps the failure with its reason and endpoint until the next change, the
 * notification says the same, and the log has it.
 */
import '../support/vscode-fake/register';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ContextKeeperApi } from '../../src/extension';
import { start, type ModelServer } from '../../src/demo/modelserver/wire';
import { commands, host } from '../support/vscode-fake';
import { activateWithModel, type ExtensionWithModel } from '../support/vscode-fake/extension-with-model';
import { until } from '../support/until';

let server: ModelServer;
let extension: ExtensionWithModel;
let api: ContextKeeperApi;

before(async () => {
  server = await start({
    responder: () => ({ type: 'status', status: 400, message: 'scripted failure: the request is malformed' }),
  });
  extension = activateWithModel(server, 'ck-task-failure-');
  api = extension.api;
});
after(() => extension.close());

test('a task refused by the model leaves its reason and endpoint in the sidebar, the notification and the log', async () => {
  await commands.executeCommand('contextKeeper.newAgentTask', 'Fix the parser');
  await until(() => host.messages.some((m) => m.severity === 'error'), 'the error notification');
  const shown = host.messages.find((m) => m.severity === 'error')!;
  assert.match(shown.message, /the agent stopped: .*scripted failure/);
  // The sidebar's banner: after the task's last state change, still there.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const error = api.getViewState().error;
  assert.ok(error, `the sidebar shows the failure (state ${api.getViewState().state})`);
  assert.match(error.message, /scripted failure/);
  assert.equal(error.endpoint, server.url);
});
