/**
 * Compact is offered only when something can be compacted, over the running extension: on an empty
 * session the view state says why (the sidebar disables its button with that reason) and the
 * `contextKeeper.canCompact` context key is false; by the compaction's own rule, finished turns too small
 * to shrink keep it disabled (the palette says why without asking for a focus); once an earlier turn
 * is large enough, both turn back.
 */
import '../support/vscode-fake/register';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { start, type ModelServer } from '../../src/demo/modelserver/wire';
import { commands, host } from '../support/vscode-fake';
import { activateWithModel, type ExtensionWithModel } from '../support/vscode-fake/extension-with-model';
import { until } from '../support/until';
import { LEFT_OUT_REASONS } from '../../src/compaction/plan/planner';

let server: ModelServer;
let extension: ExtensionWithModel;

before(async () => {
  // A long answer to "Read the parser" only: the other turns stay too small to summarize.
  const report = 'The parser reads each event, checks its timestamp and appends it to the timeline. '.repeat(40);
  server = await start({
    responder: (body) => ({
      content: JSON.stringify(body.messages?.at(-1)).includes('Read the parser') ? report : 'Done.',
    }),
  });
  extension = activateWithModel(server, 'ck-compact-blocked-');
});
after(() => extension.close());

test('an empty session, then turns too small to shrink: Compact is disabled with its reason; a large enough turn offers it', async () => {
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
  // Two short turns: eligible by position, but too small to shrink; the same words as the compaction's refusal.
  for (const task of ['Hello', 'Thanks']) {
    await commands.executeCommand('contextKeeper.newAgentTask', task);
    await until(() => api.getViewState().state === 'idle', `the task "${task}" to end`);
  }
  await until(() => api.getViewState().budget.compactBlocked !== 'the conversation is empty', 'the reason to change');
  assert.equal(host.contextKeys.get('contextKeeper.canCompact'), false);
  assert.ok(api.getViewState().budget.compactBlocked?.includes(LEFT_OUT_REASONS.small));
  await commands.executeCommand('contextKeeper.compactConversation');
  // The toast starts the sentence; its Show Details button holds the whole (the view state's reason).
  assert.match(host.messages.at(-1)?.message ?? '', /^ContextKeeper: nothing to compact: all that is left is [^:]*$/);
  assert.equal(asked, 0, 'no focus asked for');
  for (const task of ['Read the parser', 'Now fix it']) {
    await commands.executeCommand('contextKeeper.newAgentTask', task);
    await until(() => api.getViewState().state === 'idle', `the task "${task}" to end`);
  }
  await until(() => host.contextKeys.get('contextKeeper.canCompact') === true, 'Compact offered again');
  assert.equal(api.getViewState().budget.compactBlocked, undefined);
});
