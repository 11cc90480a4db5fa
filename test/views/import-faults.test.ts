/**
 * Import Transcript reads files with the command line's reader and says what it says: a message
 * without a role is an error naming the file, line and field; a block of unknown type read as
 * text is a warning in the log, counted in the import notice with a Show Log button.
 */
import '../support/vscode-fake/register';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { activate } from '../../src/extension';
import { commands, host, resetVscodeFake, Uri } from '../support/vscode-fake';
import { fakeExtensionContext } from '../support/vscode-fake/context';
import type { FakeLogChannel } from '../support/vscode-fake/window-parts';

const roleless = JSON.stringify([{ role: 'user', content: 'Fix the test.' }, { content: 'Fixed.' }], null, 2);
const misspelt = JSON.stringify({
  messages: [
    { role: 'user', content: 'Fix the test.' },
    { role: 'user', content: [{ type: 'txet', text: 'Never touch deploy.yml.' }] },
    { role: 'assistant', content: 'Fixed.' },
  ],
});

let storage: string;
let context: vscode.ExtensionContext;

before(() => {
  resetVscodeFake();
  storage = mkdtempSync(path.join(tmpdir(), 'ck-import-faults-'));
  writeFileSync(path.join(storage, 'roleless.json'), roleless);
  writeFileSync(path.join(storage, 'misspelt.json'), misspelt);
  context = fakeExtensionContext(storage);
  activate(context);
});
after(() => {
  for (const subscription of context.subscriptions) subscription.dispose();
  rmSync(storage, { recursive: true, force: true });
});

/** The extension's log lines. */
function logLines(): string[] {
  return host.live('output-channel').flatMap((r) => (r.target as FakeLogChannel).lines);
}

test('a message without a role: the error names the file, line and field', async () => {
  await commands.executeCommand('contextKeeper.importTranscript', Uri.file(path.join(storage, 'roleless.json')));
  const shown = host.messages.at(-1);
  assert.equal(shown?.severity, 'error');
  assert.equal(
    shown?.message,
    'ContextKeeper: roleless.json:6: [1].role: message has no "role" (expected one of system, developer, user, assistant, tool)',
  );
});

test('a block of unknown type read as text: a warning in the log, counted in the notice', async () => {
  await commands.executeCommand('contextKeeper.importTranscript', Uri.file(path.join(storage, 'misspelt.json')));
  const shown = host.messages.at(-1);
  assert.match(shown?.message ?? '', /^ContextKeeper: 3 messages imported \(openai-chat\), 1 warning\.$/);
  assert.deepEqual(shown?.items, ['Show Details'], 'the warnings are in the log it opens');
  assert.ok(
    logLines().includes(
      '[warn] Import misspelt.json: misspelt.json: message 1: content[0].type: content block of unknown type "txet"; its text is read as text',
    ),
    logLines().join('\n'),
  );
});
