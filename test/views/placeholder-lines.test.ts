/**
 * A tool call a recording left unanswered gets a placeholder result on import; the sidebar's lines of
 * both stay apart, so a compaction that replaces them marks every one (none looks live).
 */
import '../support/vscode-fake/register';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { activate, type ContextKeeperApi } from '../../src/extension';
import type { Entry } from '../../src/compaction/types';
import { itemsForEntry, type ToolNames } from '../../src/views/sidebar/transcript-items';
import { commands, host, resetVscodeFake, Uri } from '../support/vscode-fake';
import { fakeExtensionContext } from '../support/vscode-fake/context';
import { until } from '../support/until';

const call = (id: string, file: string) => ({
  id,
  type: 'function',
  function: { name: 'read_file', arguments: JSON.stringify({ path: file }) },
});
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
/** Unanswered calls in the middle of the conversation, then more work and a latest request. */
const chat = JSON.stringify({
  messages: [
    { role: 'user', content: `Read the notes and tell me what they say. ${words(300)}` },
    { role: 'assistant', content: 'Reading the first file.', tool_calls: [call('c1', 'a.txt')] },
    { role: 'user', content: 'Skip that one; read b.txt instead.' },
    { role: 'assistant', content: 'Reading b.txt.', tool_calls: [call('c2', 'b.txt')] },
    { role: 'tool', tool_call_id: 'c2', content: words(400) },
    { role: 'assistant', content: 'Trying c.txt too.', tool_calls: [call('c3', 'c.txt')] },
    { role: 'user', content: 'Now summarise b.txt in one line.' },
  ],
});

let storage: string;
let context: vscode.ExtensionContext;
let api: ContextKeeperApi;

before(() => {
  resetVscodeFake();
  host.setSetting('contextKeeper.contextWindow', 100_000);
  storage = mkdtempSync(path.join(tmpdir(), 'ck-placeholder-lines-'));
  writeFileSync(path.join(storage, 'chat.json'), chat);
  context = fakeExtensionContext(storage);
  api = activate(context);
});
after(() => {
  for (const subscription of context.subscriptions) subscription.dispose();
  rmSync(storage, { recursive: true, force: true });
});

test('every line of a message a compaction replaced is marked, placeholder results included', async () => {
  await commands.executeCommand('contextKeeper.importTranscript', Uri.file(path.join(storage, 'chat.json')));
  await until(() => api.getViewState().budget.counting !== true, 'the exact count');
  host.user.input = () => '';
  await commands.executeCommand('contextKeeper.compactConversation');
  await until(() => api.getViewState().checkpoints.length > 0, 'a checkpoint');
  const lines = api.getViewState().transcript.filter((item) => 'entryId' in item);
  const ids = lines.map((item) => item.id);
  assert.equal(new Set(ids).size, ids.length, `line ids are unique: ${ids.join(', ')}`);
  const calls = lines.filter((item) => item.kind === 'tool-call');
  assert.equal(calls.length, 3);
  const live = lines.filter((item) => !('compactedAs' in item && item.compactedAs));
  // Only the latest request stays in the context as it was.
  assert.deepEqual(
    live.map((item) => item.kind === 'user' && item.text),
    ['Now summarise b.txt in one line.'],
  );
});

test('a placeholder result stored under an older id (`<entry>#<call id>`) has a line of its own', () => {
  const assistant: Entry = {
    id: 'a1',
    message: { role: 'assistant', content: 'Reading.', tool_calls: [call('c1', 'a.txt') as never] },
  };
  const placeholder: Entry = { id: 'a1#c1', message: { role: 'tool', tool_call_id: 'c1', content: 'no result' } };
  const names: ToolNames = new Map();
  const live = { running: new Set<string>(), outcomes: new Map<string, boolean>() };
  const ids = [...itemsForEntry(assistant, names, live), ...itemsForEntry(placeholder, names, live)].map((i) => i.id);
  assert.equal(new Set(ids).size, ids.length, ids.join(', '));
});
