/**
 * The Get Started view gives way once there is a session to show: the manifest shows it only while
 * setup is needed and the shown session is empty (`contextKeeper.hasSession`), and the extension sets
 * that key as soon as the session holds a message (a task ran, or a recording was imported).
 */
import '../support/vscode-fake/register';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { start, type ModelServer } from '../../src/demo/modelserver/wire';
import { commands, host } from '../support/vscode-fake';
import { activateWithModel, type ExtensionWithModel } from '../support/vscode-fake/extension-with-model';
import { until } from '../support/until';

let server: ModelServer;
let extension: ExtensionWithModel;

before(async () => {
  server = await start({ responder: () => ({ content: 'Done.' }) });
  extension = activateWithModel(server, 'ck-get-started-');
});
after(() => extension.close());

test('the Get Started view shows only while setup is needed and the session is empty', async () => {
  const manifest = JSON.parse(readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as {
    contributes: { views: Record<string, Array<{ id: string; when?: string }>> };
  };
  const welcome = Object.values(manifest.contributes.views)
    .flat()
    .find((v) => v.id === 'contextKeeper.welcome');
  assert.equal(welcome?.when, 'contextKeeper.needsSetup && !contextKeeper.hasSession');

  await commands.executeCommand('contextKeeper.newSession');
  // The new session is open with its system prompt (counted in the gauge): still nothing to show.
  await until(
    () => extension.api.getViewState().sessionId !== undefined && extension.api.getViewState().budget.used > 0,
    'the new session to open',
  );
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(
    host.contextKeys.get('contextKeeper.hasSession'),
    false,
    'the system prompt alone is no session to show',
  );
  await commands.executeCommand('contextKeeper.newAgentTask', 'Hello');
  await until(() => extension.api.getViewState().state === 'idle', 'the task to end');
  await until(() => host.contextKeys.get('contextKeeper.hasSession') === true, 'a session to show');
});
