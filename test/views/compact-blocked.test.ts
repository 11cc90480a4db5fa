/**
 * Compact is offered only when something can be compacted, over the running extension: on an empty
 * session the view state says why (the sidebar disables its button with that reason) and the
 * `contextKeeper.canCompact` context key is false; after two finished tasks the first is eligible and
 * both turn back.
 */
import '../support/vscode-fake/register';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { start, type ModelServer } from '../../src/demo/modelserver/wire';
import { commands, host } from '../support/vscode-fake';
import { activateWithModel, type ExtensionWithModel } from '../support/vscode-fake/extension-with-model';
import { until } from '../support/until';

let server: ModelServer;
let extension: ExtensionWithModel;

before(async () => {
  server = await start({ responder: () => ({ content: 'Done.' }) });
  extension = activateWithModel(server, 'ck-compact-blocked-');
});
after(() => extension.close());

test('an empty session: Compact is disabled with its reason; after two tasks it is offered', async () => {
  const api = extension.api;
  await commands.executeCommand('contextKeeper.newSession');
  await until(() => host.contextKeys.get('contextKeeper.canCompact') === false, 'the context key on the empty session');
  assert.equal(api.getViewState().budget.compactBlocked, 'the conversation is empty');
  // From the palette: the reason at once, no focus asked for.
  let asked = 0;
  host.user.input = () => (asked++, undefined);
  await commands.executeCommand('contextKeeper.compactConversation');
  assert.match(host.messages.at(-1)?.message ?? '', /^ContextKeeper: nothing to compact: the conversation is empty\.$/);
  assert.equal(asked, 0, 'no focus asked for');
  for (const task of ['Read the parser', 'Now fix it']) {
    await commands.executeCommand('contextKeeper.newAgentTask', task);
    await until(() => api.getViewState().state === 'idle', `the task "${task}" to end`);
  }
  await until(() => host.contextKeys.get('contextKeeper.canCompact') === true, 'Compact offered again');
  assert.equal(api.getViewState().budget.compactBlocked, undefined);
});
