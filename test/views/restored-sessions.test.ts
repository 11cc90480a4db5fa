/**
 * Sessions saved on disk are never lost from the session picker: the list lives in the workspace
 * state, which an editor killed before writing it loses, while each session's folder is written as
 * the session goes. On the next start every saved session is listed again from its folder (named by
 * its first task, or by its recording's file and format), once, and a record the workspace state kept
 * (a name the user gave) stays as it was.
 */
import '../support/vscode-fake/register';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { activate, type ContextKeeperApi } from '../../src/extension';
import { start, type ModelServer } from '../../src/demo/modelserver/wire';
import type { SessionView } from '../../src/webview/shared/protocol';
import { commands, host, resetVscodeFake, Uri } from '../support/vscode-fake';
import { fakeExtensionContext, FakeMemento } from '../support/vscode-fake/context';
import { until } from '../support/until';
import { continuedLabel, recordingLabel, savedSessionView } from '../../src/views/session-list';

let server: ModelServer;
let storage: string;
let context: vscode.ExtensionContext | undefined;
/** The sessions as the first run listed them. */
let first: SessionView[];

/** Starts the extension over `storage` with `workspaceState` (a fresh one: the editor lost it). */
function startExtension(workspaceState: FakeMemento): ContextKeeperApi {
  if (context) for (const subscription of context.subscriptions) subscription.dispose();
  resetVscodeFake();
  host.setSetting('contextKeeper.baseUrl', server.url);
  host.setSetting('contextKeeper.model', 'loopback-model');
  host.setSetting('contextKeeper.contextWindow', 100_000);
  context = fakeExtensionContext(storage, workspaceState);
  return activate(context);
}

/** The sessions Switch Session offers, as labels by id. */
async function picked(): Promise<Array<{ id: string; label: string }>> {
  let offered: Array<{ id: string; label: string }> = [];
  host.user.quickPick = (items) => {
    offered = (items as unknown as Array<{ id: string; label: string }>).map(({ id, label }) => ({ id, label }));
    return undefined;
  };
  await commands.executeCommand('contextKeeper.switchSession');
  return offered;
}

async function runTask(api: ContextKeeperApi, task: string): Promise<void> {
  await commands.executeCommand('contextKeeper.newAgentTask', task);
  await until(() => api.getViewState().state === 'idle' && api.getViewState().transcript.length > 0, `"${task}"`);
}

before(async () => {
  server = await start({ responder: () => ({ content: 'Done.' }) });
  storage = mkdtempSync(path.join(tmpdir(), 'ck-restored-sessions-'));
  const api = startExtension(new FakeMemento());
  await runTask(api, 'Fix the flaky parser test');
  await commands.executeCommand(
    'contextKeeper.importTranscript',
    Uri.file(path.resolve(__dirname, '../../../samples/demo-session.json')),
  );
  await until(() => api.getViewState().readOnly, 'the imported recording');
  await commands.executeCommand('contextKeeper.newSession');
  await runTask(api, 'Now the lexer\nwith CRLF input');
  // A session never used: nothing of it is worth listing again.
  await commands.executeCommand('contextKeeper.newSession');
  await until(() => api.getViewState().sessions.length === 4, 'four sessions');
  first = api.getViewState().sessions;
});
after(async () => {
  if (context) for (const subscription of context.subscriptions) subscription.dispose();
  await server.close();
  rmSync(storage, { recursive: true, force: true });
});

test('after the workspace state was lost, every saved session is in the picker again, named as before', async () => {
  const api = startExtension(new FakeMemento());
  const offered = await picked();
  const used = first.filter((s) => s.label !== 'New session');
  assert.equal(used.length, 3);
  assert.deepEqual(
    offered.map((s) => s.id).sort(),
    used.map((s) => s.id).sort(),
    'each saved session once; the unused one is not listed',
  );
  for (const session of used) {
    const again = api.getViewState().sessions.find((s) => s.id === session.id);
    assert.equal(again?.label, session.label);
    assert.equal(again?.kind, session.kind);
    assert.ok(again?.updated, 'a date from the folder');
  }
  // The newest saved session is resumed, as it would have been.
  await until(() => api.getViewState().sessionId !== undefined, 'a session shown');
  assert.equal(api.getViewState().sessionId, used.find((s) => s.label === 'Now the lexer')?.id);
});

test('a partly kept list is completed without duplicates, and a name the user gave stays', async () => {
  const kept = new FakeMemento();
  const renamed = { ...first.find((s) => s.kind === 'imported')!, label: 'Demo I renamed' };
  await kept.update('contextKeeper.sessions', [renamed]);
  startExtension(kept);
  const offered = await picked();
  assert.equal(new Set(offered.map((s) => s.id)).size, offered.length, 'no session listed twice');
  assert.equal(offered.length, 3);
  assert.match(offered.find((s) => s.id === renamed.id)?.label ?? '', /Demo I renamed$/);
  // A second start reads the folders again and adds nothing.
  startExtension(kept);
  assert.equal((await picked()).length, 3);
});

test('a saved session is named from its folder: a recording by file and format, a continued one after its origin', () => {
  const at = '2026-01-02T03:04:05.000Z';
  const view = (source: string | undefined, firstUserText?: string, recordedModel?: string) =>
    savedSessionView({ id: 's1', source, updated: at, firstUserText, recordedModel });
  assert.deepEqual(view('Imported: codex: rollout.jsonl', 'Hi', 'gpt-5'), {
    id: 's1',
    label: recordingLabel('codex', 'rollout.jsonl'),
    kind: 'imported',
    updated: at,
    recordedModel: 'gpt-5',
  });
  assert.deepEqual(view('Continued from rollout.jsonl (codex)', 'Hi'), {
    id: 's1',
    label: continuedLabel('rollout.jsonl (codex)'),
    kind: 'working',
    updated: at,
  });
  // No state saved yet: a working session, named by its first task when it has one.
  assert.equal(view(undefined, '  Fix the lexer\nsecond line').label, 'Fix the lexer');
  assert.deepEqual(view('Agent session'), {
    id: 's1',
    label: 'New session',
    kind: 'working',
    untitled: true,
    updated: at,
  });
});
