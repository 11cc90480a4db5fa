/**
 * A notification's action pressed after it is spent: Undo Restore with nothing to undo says so in
 * one information message and changes nothing, never an error.
 */
import '../support/vscode-fake/register';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { start, type ModelServer } from '../../src/demo/modelserver/wire';
import { commands, host } from '../support/vscode-fake';
import { activateWithModel, type ExtensionWithModel } from '../support/vscode-fake/extension-with-model';

let server: ModelServer;
let extension: ExtensionWithModel;

before(async () => {
  server = await start({ responder: () => ({ content: 'Done.' }) });
  extension = activateWithModel(server, 'ck-stale-notices-');
});
after(() => extension.close());

test('Undo Restore pressed when spent says nothing is left to undo, without an error', async () => {
  const shown = host.messages.length;
  await commands.executeCommand('contextKeeper.undoRestore');
  const added = host.messages.slice(shown);
  assert.deepEqual(
    added.map((m) => m.severity),
    ['information'],
    added.map((m) => m.message).join(' | '),
  );
  assert.match(added[0].message, /^ContextKeeper: nothing to undo: /);
  assert.equal(extension.api.getViewState().checkpoints.length, 0, 'nothing changed');
});
