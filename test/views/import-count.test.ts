/**
 * The import notice counts messages as the session stores them (the recorded ones plus placeholder
 * results for unanswered tool calls), the same messages a checkpoint's "replaced" count is taken
 * from, and says how the two differ when they do.
 */
import '../support/vscode-fake/register';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { activate } from '../../src/extension';
import { importTranscriptTextSync } from '../../src/transcripts';
import { importedEntries } from '../../src/service/session/transfer';
import { describeImportCount, IMPORT_NOTICE_MAX_CHARS, importCount, importNotice } from '../../src/views/import-count';
import { commands, host, resetVscodeFake, Uri } from '../support/vscode-fake';
import { fakeExtensionContext } from '../support/vscode-fake/context';

const call = (id: string) => ({ id, type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } });
/** Two tool calls, one never answered (the recording moved on): 5 recorded, 6 stored. */
const chat = JSON.stringify({
  messages: [
    { role: 'user', content: 'read a.txt twice' },
    { role: 'assistant', content: null, tool_calls: [call('c1')] },
    { role: 'assistant', content: null, tool_calls: [call('c2')] },
    { role: 'tool', tool_call_id: 'c2', content: 'hello' },
    { role: 'assistant', content: 'It says hello.' },
  ],
});

let storage: string;
let context: vscode.ExtensionContext;

before(() => {
  resetVscodeFake();
  storage = mkdtempSync(path.join(tmpdir(), 'ck-import-count-'));
  writeFileSync(path.join(storage, 'chat.json'), chat);
  context = fakeExtensionContext(storage);
  activate(context);
});
after(() => {
  for (const subscription of context.subscriptions) subscription.dispose();
  rmSync(storage, { recursive: true, force: true });
});

test('importCount counts what the service stores: recorded messages plus placeholder results', () => {
  const imported = importTranscriptTextSync(chat, 'chat.json');
  const count = importCount(imported.entries);
  assert.deepEqual(count, { stored: 6, recorded: 5, placeholders: 1 });
  assert.equal(
    count.stored,
    importedEntries({ source: 'chat.json', entries: imported.entries }, () => undefined).length,
    'the same count as the stored session',
  );
  assert.equal(describeImportCount(count), '6 messages (5 recorded + 1 placeholder result)');
  assert.equal(describeImportCount({ stored: 1, recorded: 1, placeholders: 0 }), '1 message');
});

test('the import notice gives the stored count first, short, and the difference in the log behind Show Details', async () => {
  await commands.executeCommand('contextKeeper.importTranscript', Uri.file(path.join(storage, 'chat.json')));
  const shown = host.messages.at(-1);
  // The unanswered call's placeholder is an import warning too: the log says which call it answers.
  assert.equal(shown?.message, 'ContextKeeper: 6 messages imported (openai-chat), 1 warning.');
  assert.deepEqual(shown?.items, ['Show Details'], 'the breakdown is one click away');
});

test('the import notice fits a toast line with its figure first, also for a long recording with warnings', () => {
  const big = { stored: 999_999, recorded: 999_000, placeholders: 999 };
  const notice = importNotice(big, 'openai-chat', 999);
  assert.ok(notice.text.length <= IMPORT_NOTICE_MAX_CHARS, `${notice.text.length} chars: ${notice.text}`);
  // A toast cut at 57 characters (as seen in VS Code) still gives the figure whole.
  assert.ok(notice.text.slice(0, 56).startsWith('ContextKeeper: 999999 messages imported'), notice.text);
  assert.equal(notice.details, true);
  const cline = importNotice({ stored: 674, recorded: 666, placeholders: 8 }, 'cline', 0);
  assert.equal(cline.text, 'ContextKeeper: 674 messages imported (cline).');
  assert.equal(cline.details, true, 'the placeholders are told in the log');
  assert.deepEqual(importNotice({ stored: 1, recorded: 1, placeholders: 0 }, 'cline', 0), {
    text: 'ContextKeeper: 1 message imported (cline).',
    details: false,
  });
});
