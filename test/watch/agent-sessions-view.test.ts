/**
 * The Agent Sessions view over the typed `vscode` fake: it lists the Claude Code sessions of the open
 * folder (from `~/.claude/projects`, here a temp home) newest first, follows the newest one live with a
 * gauge under it, honours `contextKeeper.watch.enabled` and `watch.extraFolders` when they change, and
 * releases its timer, watcher and registrations on dispose.
 */
import '../support/vscode-fake/register';
import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { claudeProjectFolderName } from '../../src/watch/discovery';
import { AgentSessionsView } from '../../src/views/agent-sessions';
import { registerAgentSessions } from '../../src/views/commands/agent-sessions-commands';
import { host, resetVscodeFake, Uri } from '../support/vscode-fake';
import { FakeLogChannel } from '../support/vscode-fake/window-parts';
import { ClaudeLines } from './fixtures';
import { until } from '../support/until';

let base: string;
let disposables: vscode.Disposable[] = [];
const savedEnv = {
  HOME: process.env.HOME,
  CLAUDE_CONFIG_DIR: process.env.CLAUDE_CONFIG_DIR,
  CODEX_HOME: process.env.CODEX_HOME,
};

function session(dir: string, name: string, ageSeconds: number): string {
  mkdirSync(dir, { recursive: true });
  const c = new ClaudeLines();
  const file = path.join(dir, `${name}.jsonl`);
  writeFileSync(
    file,
    `${[c.user('Add validation'), c.assistantText('Reading the handler first.', 20_000)].join('\n')}\n`,
  );
  const t = Date.now() / 1000 - ageSeconds;
  utimesSync(file, t, t);
  return file;
}

beforeEach(() => {
  resetVscodeFake();
  base = mkdtempSync(path.join(tmpdir(), 'ck-agent-view-'));
  const ws = path.join(base, 'ws');
  mkdirSync(ws);
  process.env.HOME = path.join(base, 'home');
  process.env.CLAUDE_CONFIG_DIR = path.join(base, 'home', '.claude');
  process.env.CODEX_HOME = path.join(base, 'home', '.codex');
  host.workspaceFolders = [{ uri: Uri.file(ws), name: 'ws', index: 0 }];
});
afterEach(() => {
  for (const d of disposables) d.dispose();
  disposables = [];
  Object.assign(process.env, savedEnv);
  for (const [k, v] of Object.entries(savedEnv)) if (v === undefined) delete process.env[k];
  rmSync(base, { recursive: true, force: true });
});

const projects = () => path.join(base, 'home', '.claude', 'projects', claudeProjectFolderName(path.join(base, 'ws')));

test('lists the folder sessions newest first and follows the newest one with a gauge under it', async () => {
  const older = session(projects(), 'older-session', 600);
  const newer = session(projects(), 'newer-session', 10);
  const view = new AgentSessionsView(new FakeLogChannel('test'));
  disposables.push(view);
  await view.discover();
  const roots = view.getChildren();
  assert.deepEqual(
    roots.map((n) => (n.kind === 'session' ? n.session.file : n.kind)),
    [newer, older],
  );
  assert.equal(host.contextKeys.get('contextKeeper.hasAgentSessions'), true);
  const followed = view.getTreeItem(roots[0]);
  assert.equal(followed.contextValue, 'agentSession.followed');
  assert.equal(view.getTreeItem(roots[1]).command?.command, 'contextKeeper.agentSessions.follow');
  await until(() => view.followedGauge !== undefined, 'the first read of the followed session');
  // The gauge is drawn by the Watched Agent view, not as a text row under the session.
  assert.ok(
    view.getChildren(roots[0]).every((n) => n.kind !== 'gauge' || /estimate/.test(view.getTreeItem(n).label as string)),
  );
  assert.match(view.getTreeItem(roots[0]).description as string, /^\d+% · 20k \/ 200k$/);
  assert.equal(view.gaugeView()?.budget.used, view.followedGauge?.usedTokens);
});

test('watch.enabled off empties the view; extra folders are listed when the setting changes', async () => {
  const extra = path.join(base, 'extra');
  const elsewhere = session(extra, 'elsewhere', 5);
  disposables.push(...registerAgentSessions(new FakeLogChannel('test')));
  const view = host.live('tree').find((r) => r.id === AgentSessionsView.viewId)?.target as AgentSessionsView;
  await view.discover();
  assert.deepEqual(view.getChildren(), []);
  assert.equal(host.contextKeys.get('contextKeeper.hasAgentSessions'), false);
  host.setSetting('contextKeeper.watch.extraFolders', [extra]);
  await view.discover();
  assert.deepEqual(
    view.getChildren().map((n) => (n.kind === 'session' ? n.session.file : n.kind)),
    [elsewhere],
  );
  host.setSetting('contextKeeper.watch.enabled', false);
  await view.discover();
  assert.deepEqual(view.getChildren(), []);
  assert.equal(view.followedWatcher, undefined, 'nothing followed while watching is off');
});

test('dispose releases the view, its commands, the document scheme and the listeners', () => {
  const log = new FakeLogChannel('test');
  const registered = registerAgentSessions(log);
  assert.ok(host.live('command').length >= 5);
  assert.ok(host.editorListenerCount() >= 2);
  for (const d of registered) d.dispose();
  log.dispose();
  assert.deepEqual(
    host.live().map((r) => `${r.kind} ${r.id}`),
    [],
  );
  assert.equal(host.editorListenerCount(), 0);
});

test('a watch update that changes no row leaves the tree alone, so the rows keep their commands', async () => {
  session(projects(), 'live-session', 5);
  const view = new AgentSessionsView(new FakeLogChannel('test'));
  disposables.push(view);
  await view.discover();
  await until(() => view.followedGauge !== undefined, 'the first read of the followed session');
  // Let the first reads settle, then count refreshes for updates that change nothing shown.
  await new Promise((resolve) => setTimeout(resolve, 50));
  let refreshes = 0;
  disposables.push(view.onDidChangeTreeData(() => refreshes++));
  const refresh = () => (view as unknown as { refreshRowsIfChanged(): void }).refreshRowsIfChanged();
  refresh();
  refresh();
  assert.equal(refreshes, 0, 'rows read the same: no refresh');
  await view.discover();
  const before = refreshes;
  (view as unknown as { shownRows: string }).shownRows = 'something else was shown';
  refresh();
  assert.equal(refreshes, before + 1, 'a row that reads differently refreshes the tree');
});
