/**
 * The sidebar's transport against the typed `vscode` fake and a fake webview view: a strict CSP
 * shell, a snapshot after `ready` (and the ready hook), deltas only while visible, local answers,
 * malformed messages dropped and logged, and each user action turned into its command with the
 * message's arguments.
 */
import '../support/vscode-fake/register';
import { beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { Commands } from '../../src/views/commands/command-ids';
import type { HostMessage, WebviewMessage } from '../../src/webview/shared/protocol';
import { SidebarProvider, type SidebarSource } from '../../src/views/sidebar/sidebar-provider';
import { commands, EventEmitter, host, resetVscodeFake, Uri } from '../support/vscode-fake';
import { FakeLogChannel } from '../support/vscode-fake/window-parts';

/** The parts of a webview view the provider uses, posting into `posted`. */
function fakeView() {
  const received = new EventEmitter<unknown>();
  const visibility = new EventEmitter<void>();
  const disposed = new EventEmitter<void>();
  const posted: unknown[] = [];
  const webview: Pick<
    vscode.Webview,
    'options' | 'html' | 'cspSource' | 'asWebviewUri' | 'postMessage' | 'onDidReceiveMessage'
  > = {
    options: {},
    html: '',
    cspSource: 'vscode-webview://fake',
    asWebviewUri: (uri) => uri.with({ scheme: 'vscode-webview-resource' }),
    postMessage: async (message: unknown) => posted.push(message) > 0,
    onDidReceiveMessage: received.event,
  };
  const view: Pick<vscode.WebviewView, 'onDidChangeVisibility' | 'onDidDispose'> & {
    visible: boolean;
    webview: typeof webview;
  } = {
    webview,
    visible: true,
    onDidChangeVisibility: visibility.event,
    onDidDispose: disposed.event,
  };
  return {
    view,
    posted,
    send: (m: unknown) => received.fire(m),
    setVisible: (v: boolean) => ((view.visible = v), visibility.fire()),
    dispose: () => disposed.fire(),
  };
}

let source: SidebarSource & { deltas: HostMessage[]; loaded: number };
let log: FakeLogChannel;
let readyCalls: number;

function provider(): SidebarProvider {
  return new SidebarProvider(
    Uri.file('/ext'),
    () => source,
    log,
    () => readyCalls++,
  );
}

beforeEach(() => {
  resetVscodeFake();
  log = new FakeLogChannel('test');
  readyCalls = 0;
  source = {
    deltas: [],
    loaded: 0,
    snapshot: () => ({ type: 'snapshot' }) as unknown as HostMessage,
    takeDelta: () => source.deltas.shift(),
    fullText: (itemId) => (itemId === 'e1' ? { text: 'full text', fullLength: 9 } : undefined),
    compactionDetail: () => undefined,
    loadEarlier: () => void source.loaded++,
  };
});

const resolve = (p: SidebarProvider, view: ReturnType<typeof fakeView>['view']) =>
  p.resolveWebviewView(view as unknown as vscode.WebviewView);

test('the shell has a strict CSP with a nonce on every script and stylesheet and only extension resources', () => {
  const p = provider();
  const { view } = fakeView();
  resolve(p, view);
  const html = view.webview.html;
  const csp = /content="(default-src 'none';[^"]+)"/.exec(html)?.[1] ?? '';
  const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
  assert.ok(nonce && nonce.length >= 16, csp);
  assert.doesNotMatch(csp, /unsafe-eval|unsafe-inline|https?:/);
  for (const tag of html.match(/<(script|link)[^>]*>/g) ?? [])
    assert.match(tag, new RegExp(`nonce="${nonce.replace(/[+/=]/g, '\\$&')}"`), tag);
  assert.deepEqual(
    view.webview.options.localResourceRoots?.map((u) => u.path),
    ['/ext/dist', '/ext/media'],
  );
  assert.equal(view.webview.options.enableScripts, true);
  p.dispose();
});

test('nothing is posted before ready; ready posts a snapshot and calls the hook; deltas only while visible', () => {
  const p = provider();
  const { view, posted, send, setVisible } = fakeView();
  resolve(p, view);
  source.deltas.push({ type: 'delta-1' } as unknown as HostMessage);
  p.flush();
  assert.deepEqual(posted, [], 'not ready yet');
  send({ type: 'ready' });
  assert.deepEqual(posted, [{ type: 'snapshot' }]);
  assert.equal(readyCalls, 1);
  p.flush();
  assert.deepEqual(posted.at(-1), { type: 'delta-1' });
  setVisible(false);
  source.deltas.push({ type: 'delta-2' } as unknown as HostMessage);
  p.flush();
  assert.equal(posted.length, 2, 'a hidden view gets nothing');
  setVisible(true);
  assert.deepEqual(posted.at(-1), { type: 'snapshot' }, 'shown again: a full snapshot');
  send({ type: 'expandItem', id: 'e1' });
  assert.deepEqual(posted.at(-1), { type: 'itemText', id: 'e1', text: 'full text', fullLength: 9 });
  send({ type: 'loadEarlier' });
  assert.equal(source.loaded, 1);
  p.dispose();
});

test('a malformed message is dropped and logged, and runs no command', () => {
  const p = provider();
  const { view, send } = fakeView();
  resolve(p, view);
  send({ type: 'runTask', text: '' });
  send({ type: 'deleteEverything' });
  send('not an object');
  assert.equal(log.lines.filter((l) => l === '[warn] Dropped a malformed message from the sidebar webview.').length, 3);
  assert.deepEqual(host.executed, []);
  p.dispose();
});

test('an edit of the proposed summaries is passed on as typed, with no command run', async () => {
  const p = provider();
  const edits: Array<readonly string[]> = [];
  const subscription = p.onDidEditPreview((texts) => edits.push(texts));
  const { view, send } = fakeView();
  resolve(p, view);
  send({ type: 'editPreview', summaries: ['The agent fixed the parser.', 'second'] });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(edits, [['The agent fixed the parser.', 'second']]);
  assert.deepEqual(host.executed, []);
  subscription.dispose();
  p.dispose();
});

test('each user action runs its command with the arguments taken from the message', async () => {
  const calls: Array<[string, unknown[]]> = [];
  for (const id of [...Object.values(Commands), 'workbench.action.openSettings'])
    commands.registerCommand(id, (...args: never[]) => void calls.push([id, args]));
  const p = provider();
  const { view, send } = fakeView();
  resolve(p, view);
  const cases: Array<[WebviewMessage, string, unknown[]]> = [
    [{ type: 'runTask', text: 'Fix the parser' }, Commands.newAgentTask, ['Fix the parser']],
    [{ type: 'cancel' }, Commands.cancel, []],
    [{ type: 'compact', focus: 'the migration' }, Commands.compactConversation, [{ focus: 'the migration' }]],
    [{ type: 'openCheckpoint', id: 'cp-1' }, Commands.openCheckpoint, ['cp-1']],
    [{ type: 'diffCheckpoint', id: 'cp-2' }, Commands.diffCheckpoint, ['cp-2']],
    [{ type: 'restoreCheckpoint', id: 'cp-3' }, Commands.restoreCheckpoint, ['cp-3']],
    [{ type: 'copySummary', id: 'cp-4' }, Commands.copySummary, ['cp-4']],
    [{ type: 'approve', requestId: 'r1', approved: false }, Commands.answerApproval, ['r1', false]],
    [{ type: 'applyPreview', summaries: ['edited', 'second'] }, Commands.applyPreview, [['edited', 'second']]],
    [{ type: 'discardPreview' }, Commands.discardPreview, []],
    [{ type: 'importTranscript' }, Commands.importTranscript, []],
    [{ type: 'setApiKey' }, Commands.setApiKey, []],
    [{ type: 'openSettings' }, 'workbench.action.openSettings', ['@ext:contextkeeper.context-keeper']],
    [{ type: 'showLog' }, Commands.showLog, []],
    [{ type: 'testConnection' }, Commands.testConnection, []],
    [{ type: 'togglePin', entryId: 'e7' }, Commands.pinMessage, ['e7']],
    [{ type: 'newSession' }, Commands.newSession, []],
    [{ type: 'switchSession', id: 's2' }, Commands.switchSession, ['s2']],
    [{ type: 'renameSession', id: 's3' }, Commands.renameSession, ['s3']],
    [{ type: 'deleteSession', id: 's4' }, Commands.deleteSession, ['s4']],
    [{ type: 'continueInNewTask' }, Commands.continueInNewTask, []],
  ];
  for (const [message, command, args] of cases) {
    calls.length = 0;
    send(message);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(calls, [[command, args]], message.type);
  }
  p.dispose();
});

test('a task Run sent that was not taken goes back to the webview, once it is ready', () => {
  const p = provider();
  const { view, posted, send } = fakeView();
  resolve(p, view);
  p.restoreTask('Fix the parser');
  assert.deepEqual(posted, [], 'not ready yet');
  send({ type: 'ready' });
  p.restoreTask('Fix the parser');
  assert.deepEqual(posted.at(-1), { type: 'restoreTask', text: 'Fix the parser' });
});

test("the log tells a view never answered from one that did not apply its snapshot: resolve, ready with the webview's account, delivery", async () => {
  const p = provider();
  const { view, send, setVisible } = fakeView();
  let deliver = false;
  view.webview.postMessage = async () => deliver;
  resolve(p, view);
  send({ type: 'ready', attempt: 3, received: 2, applied: 0, hidden: false, error: 'boom' });
  await new Promise((r) => setImmediate(r));
  const info = log.lines.filter((l) => l.startsWith('[info] Context view') || l.startsWith('[warn] Context view'));
  assert.deepEqual(info, [
    '[info] Context view resolved (first time, visible).',
    '[info] Context view: webview ready (attempt 3, 2 host messages received, 0 snapshots applied, page visible, page error: boom; view visible).',
    '[warn] Context view: snapshot not delivered (ready); the webview was not there to take it.',
  ]);
  deliver = true;
  setVisible(false);
  setVisible(true);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(log.lines.slice(-3), [
    '[info] Context view hidden.',
    '[info] Context view shown.',
    '[info] Context view: snapshot posted (shown).',
  ]);
  p.dispose();
});

test('a task over the size cap is not dropped silently: it goes back into the box and a toast says why', async () => {
  const p = provider();
  const { view, posted, send } = fakeView();
  resolve(p, view);
  send({ type: 'ready' });
  const calls: unknown[] = [];
  commands.registerCommand(Commands.newAgentTask, (...args: unknown[]) => void calls.push(args));
  const huge = 'log line\n'.repeat(500_000);
  send({ type: 'runTask', text: huge });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(calls, [], 'no task was started');
  assert.deepEqual(posted.at(-1), { type: 'restoreTask', text: huge });
  const toast = host.messages.at(-1);
  assert.equal(toast?.severity, 'error');
  assert.match(toast?.message ?? '', /not taken: the task has 4,500,000 characters; at most 4,000,000 are taken/);
  p.dispose();
});
