/**
 * The watched agent as a first-class citizen, over the typed `vscode` fake: the Watched Agent view
 * posts the Context view's gauge fed from the followed session (the agent's own compaction figures,
 * its compaction mark and the distance to it); a notification before the agent compacts itself,
 * once per context, offers Hand Off and can be turned off; the status bar follows the watched agent
 * while no ContextKeeper task runs.
 */
import '../support/vscode-fake/register';
import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { claudeProjectFolderName } from '../../src/watch/discovery';
import { AgentSessionsView } from '../../src/views/agent-sessions';
import { AgentGaugeProvider } from '../../src/views/agent-gauge-provider';
import { StatusBarMeter } from '../../src/views/status-bar';
import { agentGaugeView, type AgentGaugeMessage } from '../../src/webview/shared/agent-gauge';
import type { WatchedGauge } from '../../src/watch/live';
import { activate, deactivate } from '../../src/extension';
import { commands, EventEmitter, host, resetVscodeFake, Uri } from '../support/vscode-fake';
import { fakeExtensionContext, FakeMemento } from '../support/vscode-fake/context';
import { FakeLogChannel, type FakeStatusBarItem } from '../support/vscode-fake/window-parts';
import { ClaudeLines } from './fixtures';
import { until } from '../support/until';

let base: string;
let disposables: vscode.Disposable[] = [];
const savedEnv = {
  HOME: process.env.HOME,
  CLAUDE_CONFIG_DIR: process.env.CLAUDE_CONFIG_DIR,
  CODEX_HOME: process.env.CODEX_HOME,
};

beforeEach(() => {
  resetVscodeFake();
  base = mkdtempSync(path.join(tmpdir(), 'ck-agent-gauge-'));
  mkdirSync(path.join(base, 'ws'));
  process.env.HOME = path.join(base, 'home');
  process.env.CLAUDE_CONFIG_DIR = path.join(base, 'home', '.claude');
  process.env.CODEX_HOME = path.join(base, 'home', '.codex');
  host.workspaceFolders = [{ uri: Uri.file(path.join(base, 'ws')), name: 'ws', index: 0 }];
});
afterEach(() => {
  for (const d of disposables) d.dispose();
  disposables = [];
  for (const [k, v] of Object.entries(savedEnv))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  rmSync(base, { recursive: true, force: true });
});

/** A Claude Code session of the workspace with `lines`; returns its file. */
function session(lines: string[]): string {
  const dir = path.join(base, 'home', '.claude', 'projects', claudeProjectFolderName(path.join(base, 'ws')));
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'watched.jsonl');
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

function fakeWebviewView() {
  const received = new EventEmitter<unknown>();
  const none = new EventEmitter<void>();
  const posted: AgentGaugeMessage[] = [];
  const view = {
    visible: true,
    webview: {
      options: {},
      html: '',
      cspSource: 'vscode-webview://fake',
      asWebviewUri: (uri: vscode.Uri) => uri,
      postMessage: async (m: AgentGaugeMessage) => posted.push(m) > 0,
      onDidReceiveMessage: received.event,
    },
    onDidChangeVisibility: none.event,
    onDidDispose: none.event,
  };
  return { view: view as unknown as vscode.WebviewView, posted, send: (m: unknown) => received.fire(m) };
}

test('the Watched Agent view draws the gauge from the figures the agent recorded in its compaction', async () => {
  const c = new ClaudeLines();
  const file = session([
    c.user('Refactor billing'),
    c.assistantText('Reading.', 168_000),
    ...c.compaction('Billing was read.', { trigger: 'auto', preTokens: 169_012, postTokens: 6_634 }),
    c.zeroUsage('Compacted.'),
  ]);
  const sessions = new AgentSessionsView(new FakeLogChannel('test'));
  const provider = new AgentGaugeProvider(Uri.file('/ext'), sessions, new FakeLogChannel('test'));
  disposables.push(provider, sessions);
  const { view, posted, send } = fakeWebviewView();
  provider.resolveWebviewView(view);
  assert.match(view.webview.html, /agent-webview\.js/);
  assert.match(view.webview.html, /Content-Security-Policy/);
  send({ type: 'ready' });
  await until(() => posted.some((m) => m.view), 'the gauge of the followed session');
  const v = posted.filter((m) => m.view).at(-1)!.view!;
  assert.equal(v.agent, 'Claude Code');
  assert.equal(v.session, path.basename(file));
  assert.ok(v.budget.used >= 6_634 && v.budget.used < 6_800, `the agent's post figure, not 784: ${v.budget.used}`);
  assert.deepEqual(
    { before: v.lastCompaction?.before, after: v.lastCompaction?.after, source: v.lastCompaction?.source },
    { before: 169_012, after: 6_634, source: 'recorded' },
  );
  assert.equal(v.budget.compactAt, 200_000 - 33_000, 'the mark stands where Claude Code compacts');
  assert.equal(v.compactsAt?.toGo, v.compactsAt!.tokens - v.budget.used);
  assert.match(v.basis, /own figure after its compaction/);
  // The tree row of the compaction gives the same figures.
  const [root] = sessions.getChildren();
  const row = sessions.getChildren(root).find((n) => n.kind === 'compaction')!;
  assert.match(String(sessions.getTreeItem(row).label), /169k → 6\.6k/);
});

test('a notification before the agent compacts itself, once per context, offers Hand Off; 0 turns it off', async () => {
  const c = new ClaudeLines();
  const file = session([c.user('Start'), c.assistantText('Working.', 100_000)]);
  const handoffs: unknown[] = [];
  disposables.push(commands.registerCommand('contextKeeper.agentSessions.handoff', () => handoffs.push(1)));
  host.user.message = (m) => (m.items.includes('Hand Off') ? 'Hand Off' : undefined);
  const sessions = new AgentSessionsView(new FakeLogChannel('test'));
  disposables.push(sessions);
  await until(() => sessions.followedGauge !== undefined, 'the first read');
  assert.equal(host.messages.length, 0, 'far from the compaction point: nothing');
  appendFileSync(file, [c.user('More'), c.assistantText('Still working.', 160_000)].join('\n') + '\n');
  await until(() => host.messages.length > 0, 'the notification', 5_000);
  assert.match(
    host.messages[0].message,
    /^Claude Code compacts its context soon: 160k of about 167k \(\d\.\dk to go\)/,
  );
  assert.deepEqual(host.messages[0].items, ['Hand Off']);
  await until(() => handoffs.length === 1, 'Hand Off runs the handoff');
  appendFileSync(file, [c.user('Again'), c.assistantText('Nearly there.', 162_000)].join('\n') + '\n');
  await until(() => (sessions.followedGauge?.reportedTokens ?? 0) > 162_000, 'the next read');
  assert.equal(host.messages.length, 1, 'one notification per context');

  sessions.dispose();
  resetVscodeFake();
  host.workspaceFolders = [{ uri: Uri.file(path.join(base, 'ws')), name: 'ws', index: 0 }];
  host.setSetting('contextKeeper.watch.notifyBeforeAgentCompacts', 0);
  const quiet = new AgentSessionsView(new FakeLogChannel('test'));
  disposables.push(quiet);
  await until(() => quiet.followedGauge !== undefined, 'the first read');
  assert.equal(host.messages.length, 0, 'turned off');
});

test('the status bar follows the watched agent while no ContextKeeper task runs', async () => {
  const c = new ClaudeLines();
  session([c.user('Start'), c.assistantText('Working.', 120_000)]);
  const storage = mkdtempSync(path.join(base, 'storage-'));
  const context = fakeExtensionContext(storage);
  activate(context);
  try {
    const item = host.live('status-bar-item')[0].target as FakeStatusBarItem;
    await until(() => item.text.includes('Claude Code'), 'the status bar showing the watched agent');
    assert.match(item.text, /^\$\(eye\) Claude Code 60% · 120k\/200k · 47k to compaction$/);
    assert.equal(item.command, 'contextKeeper.agentGauge.focus');
    assert.match(item.accessibilityInformation?.label ?? '', /^ContextKeeper: Claude Code, watched: 60 percent/);
    assert.match(
      (item.tooltip as vscode.MarkdownString).value,
      /ContextKeeper's own session shows here again while one of its tasks runs, or once the sidebar shows another of its sessions/,
    );
  } finally {
    for (const s of context.subscriptions) s.dispose();
    deactivate();
  }
});

test('after a window reload the status bar shows the session the sidebar shows, until the watched agent is active again', async () => {
  const c = new ClaudeLines();
  const file = session([c.user('Start'), c.assistantText('Working.', 120_000)]);
  // The agent was last active before the window (re)opened.
  const before = new Date(Date.now() - 60_000);
  utimesSync(file, before, before);
  const storage = mkdtempSync(path.join(base, 'storage-'));
  const workspaceState = new FakeMemento();
  // The first window: a recording imported, so the sidebar shows it.
  let context = fakeExtensionContext(storage, workspaceState);
  let api = activate(context);
  const first = host.live('status-bar-item')[0].target as FakeStatusBarItem;
  // No session of ours yet: the watched agent has the status bar.
  await until(() => first.text.includes('Claude Code'), 'the status bar on the watched agent');
  await commands.executeCommand(
    'contextKeeper.importTranscript',
    Uri.file(path.resolve(__dirname, '../../../samples/demo-session.json')),
  );
  await until(() => api.getViewState().readOnly, 'the imported recording shown');
  await until(() => api.getViewState().budget.used > 0, 'the recording measured');
  const shown = `${api.getViewState().budget.used} of ${api.getViewState().budget.inputBudget} tokens`;
  // The sidebar given another session to show: the status bar follows it.
  await until(() => (first.accessibilityInformation?.label ?? '').includes(shown), 'the status bar on the import');
  for (const s of context.subscriptions) s.dispose();
  deactivate();
  // Reload: the same workspace state and storage.
  resetVscodeFake();
  host.workspaceFolders = [{ uri: Uri.file(path.join(base, 'ws')), name: 'ws', index: 0 }];
  context = fakeExtensionContext(storage, workspaceState);
  api = activate(context);
  try {
    const item = host.live('status-bar-item')[0].target as FakeStatusBarItem;
    const tree = host.live('tree').find((r) => r.id === AgentSessionsView.viewId)!.target as AgentSessionsView;
    await until(() => tree.followedGauge !== undefined, "the watched agent's gauge read");
    await until(() => api.getViewState().readOnly && api.getViewState().budget.used > 0, 'the recording open again');
    const budget = api.getViewState().budget;
    const own = `${budget.used} of ${budget.inputBudget} tokens`;
    await until(
      () => (item.accessibilityInformation?.label ?? '').includes(own),
      'the status bar on the shown session',
    );
    assert.doesNotMatch(item.text, /Claude Code/, `the status bar shows the agent: ${item.text}`);
    // The agent active again after the reload takes the status bar, as before.
    appendFileSync(file, [c.user('More'), c.assistantText('Still working.', 130_000)].join('\n') + '\n');
    await until(() => item.text.includes('Claude Code'), 'the status bar following the agent once active', 5_000);
  } finally {
    for (const s of context.subscriptions) s.dispose();
    deactivate();
  }
});

test('the status bar item of a watched agent warns near its compaction point', () => {
  const meter = new StatusBarMeter();
  disposables.push(meter);
  const budget = {
    used: 160_000,
    window: 200_000,
    reserved: 0,
    inputBudget: 200_000,
    compactAt: 167_000,
    compactAtFraction: 0.835,
    compactTo: 0,
    compactToFraction: 0,
    exact: true,
    breakdown: { system: 0, tools: 0, history: 160_000, summaries: 0, currentTask: 0, instructions: 0 },
    model: 'claude-sonnet-4-5',
    warnings: [],
    autoCompact: true,
  };
  meter.showAgent({
    agent: 'Claude Code',
    session: 's.jsonl',
    budget,
    compactsAt: { tokens: 167_000, toGo: 7_000, source: 'test' },
    basis: 'b',
    compactions: 0,
  });
  const item = host.live('status-bar-item')[0].target as FakeStatusBarItem;
  assert.ok(item.backgroundColor, 'warning colours within 10% of the compaction point');
  meter.showAgent({
    agent: 'Codex',
    session: 's.jsonl',
    budget: { ...budget, used: 20_000 },
    basis: 'b',
    compactions: 0,
  });
  assert.equal(item.backgroundColor, undefined);
  assert.match(item.text, /^\$\(eye\) Codex 10% · 20k\/200k$/);
});

test('the watched gauge shows what the recording does not account for as its own category, not as system', () => {
  const watched: WatchedGauge = {
    format: 'claude-code',
    model: 'claude-sonnet-4-5',
    tokens: 43_000,
    breakdown: { system: 0, tools: 0, user: 3_000, assistant: 10_000, toolResults: 30_000, summaries: 0 },
    reportedTokens: 149_000,
    reportedFrom: 'response',
    usedTokens: 150_000,
    basis: 'exact+new',
    window: 200_000,
    windowSource: 'table',
    checkpoints: 0,
    messages: 40,
    lines: 80,
    badLines: 0,
  };
  const v = agentGaugeView(watched, 's.jsonl');
  assert.equal(v.budget.breakdown.system, 0, 'nothing the file holds is a system prompt');
  assert.equal(v.budget.breakdown.unrecorded, 107_000, "the provider's figure minus the file's count");
  assert.equal(v.budget.breakdown.history, 43_000);
  const b = v.budget.breakdown;
  assert.equal(b.system + b.tools + b.history + b.summaries + (b.unrecorded ?? 0), v.budget.used, 'the parts add up');
  // Counted from the file alone, nothing is unaccounted.
  const counted = agentGaugeView({ ...watched, basis: 'counted', usedTokens: 43_000, reportedTokens: undefined }, 's');
  assert.equal(counted.budget.breakdown.unrecorded, 0);
});
