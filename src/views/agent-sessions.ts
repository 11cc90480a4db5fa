/**
 * The "Agent Sessions" view: Claude Code and Codex sessions of the open workspace, listed beside
 * ContextKeeper's own sessions and followed live, read-only. The most recently active one (or the one
 * the user picks) is followed: its gauge (tokens the agent sends now / window, the provider's reported
 * usage, where the agent compacts) updates within a second of a new line, and each compaction the agent
 * makes appears under it as a checkpoint whose diff shows what its summary replaced. Nothing of a
 * watched session is stored; the files are never written.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { readSettings, SETTINGS_SECTION } from '../settings/settings';
import { discoverSessionsAsync, type DiscoveredSession } from '../watch/discovery';
import { SessionWatcher, followFile, type Follow, type WatchUpdate } from '../watch/watcher';
import { deferredCounterForModel } from '../tokenizer/tokenizer';
import type { WatchedCompaction, WatchedGauge } from '../watch/live';
import { formatTokens, plural } from '../format/tokens';

/** URI scheme of the read-only documents of an agent's compactions. */
export const AGENT_CHECKPOINT_SCHEME = 'contextkeeper-agent';

type Node =
  | { kind: 'session'; session: DiscoveredSession }
  | { kind: 'gauge'; text: string; tooltip: string }
  | { kind: 'compaction'; index: number; compaction: WatchedCompaction };

const AGENT_NAMES = { 'claude-code': 'Claude Code', codex: 'Codex' } as const;

/** Tree data, discovery, the live follow and the compaction documents. Dispose to stop following. */
export class AgentSessionsView
  implements vscode.TreeDataProvider<Node>, vscode.TextDocumentContentProvider, vscode.Disposable
{
  static readonly viewId = 'contextKeeper.agentSessions';
  private readonly _onDidChangeTreeData = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;
  private readonly _onDidChange = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this._onDidChange.event;
  private sessions: DiscoveredSession[] = [];
  private followed:
    { file: string; watcher: SessionWatcher; follow: Follow; gauge?: WatchedGauge; error?: string } | undefined;
  private pinnedFile: string | undefined;
  private readonly timer: NodeJS.Timeout;
  private discovering: Promise<void> | undefined;
  private discoverAgain: Promise<void> | undefined;
  private disposed = false;

  constructor(private readonly log: vscode.LogOutputChannel) {
    void this.discover();
    // New sessions start without telling anyone: look again now and then (a folder listing is cheap).
    this.timer = setInterval(() => void this.discover(), 10_000);
  }

  /**
   * Lists the sessions again and follows the chosen or most recent one. The listing is asynchronous;
   * a call while one runs makes one more run after it. Settles when the view shows the new listing.
   */
  discover(): Promise<void> {
    if (this.discovering) {
      this.discoverAgain ??= this.discovering.then(() => {
        this.discoverAgain = undefined;
        return this.discover();
      });
      return this.discoverAgain;
    }
    this.discovering = this.discoverNow().finally(() => {
      this.discovering = undefined;
    });
    return this.discovering;
  }

  private async discoverNow(): Promise<void> {
    const { enabled, extraFolders } = readSettings(vscode.workspace.getConfiguration(SETTINGS_SECTION)).watch;
    if (!enabled) {
      this.sessions = [];
      this.stopFollowing();
      this._onDidChangeTreeData.fire(undefined);
      return;
    }
    const found = new Map<string, DiscoveredSession>();
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      if (folder.uri.scheme !== 'file') continue;
      for (const s of await discoverSessionsAsync(folder.uri.fsPath, { extraFolders })) found.set(s.file, s);
    }
    if (this.disposed) return;
    this.sessions = [...found.values()].sort((a, b) => b.lastActivity - a.lastActivity);
    const want = this.pinnedFile && found.has(this.pinnedFile) ? this.pinnedFile : this.sessions[0]?.file;
    if (want !== this.followed?.file) {
      if (want) this.startFollowing(want);
      else this.stopFollowing();
    }
    void vscode.commands.executeCommand('setContext', 'contextKeeper.hasAgentSessions', this.sessions.length > 0);
    this._onDidChangeTreeData.fire(undefined);
  }

  /** Follows `file` from now on, until another is picked. */
  follow(file: string): void {
    this.pinnedFile = file;
    this.startFollowing(file);
    this._onDidChangeTreeData.fire(undefined);
  }

  /** The followed session's watcher, for a handoff. */
  get followedWatcher(): SessionWatcher | undefined {
    return this.followed?.watcher;
  }

  /** The gauge of the followed session (undefined before its first read). */
  get followedGauge(): WatchedGauge | undefined {
    return this.followed?.gauge;
  }

  private startFollowing(file: string): void {
    this.stopFollowing();
    let watcher: SessionWatcher;
    try {
      // The tokenizer's table is read in the background: the gauge is a labelled estimate until then.
      watcher = new SessionWatcher(file, undefined, { counter: (model) => deferredCounterForModel(model) });
    } catch (err) {
      this.log.warn(`Cannot follow ${file}: ${(err as Error).message}`);
      return;
    }
    const state: NonNullable<AgentSessionsView['followed']> = { file, watcher, follow: { dispose: () => undefined } };
    this.followed = state;
    state.follow = followFile(
      watcher,
      (u: WatchUpdate) => {
        const before = state.gauge?.checkpoints ?? 0;
        state.gauge = u.gauge;
        state.error = undefined;
        if (u.gauge.checkpoints > before)
          this._onDidChange.fire(this.compactionUri(u.gauge.checkpoints - 1, 'summary'));
        this._onDidChangeTreeData.fire(undefined);
      },
      (err) => {
        state.error = (err as Error).message;
        this._onDidChangeTreeData.fire(undefined);
      },
      1000,
    );
    this.log.info(`Following ${file}`);
  }

  private stopFollowing(): void {
    this.followed?.follow.dispose();
    this.followed = undefined;
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'gauge') {
      const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon('dashboard');
      item.tooltip = node.tooltip;
      item.accessibilityInformation = { label: node.tooltip };
      return item;
    }
    if (node.kind === 'compaction') {
      const c = node.compaction;
      const at = this.followed?.gauge?.skippedBytes ? '' : ` at line ${c.line}`;
      const label = `Compacted${at}${c.tokensBefore !== undefined ? `: ${formatTokens(c.tokensBefore)} → ${c.tokensAfter !== undefined ? formatTokens(c.tokensAfter) : '…'}` : ''}`;
      const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon('fold');
      item.description = c.summary
        ? `${c.summary.length.toLocaleString()} characters of summary`
        : 'summary not written yet';
      item.contextValue = 'agentCompaction';
      item.command = {
        command: 'contextKeeper.agentSessions.openCompaction',
        title: 'Open Compaction',
        arguments: [node.index],
      };
      return item;
    }
    const s = node.session;
    const followed = this.followed?.file === s.file;
    const name = `${AGENT_NAMES[s.agent]} · ${path.basename(s.file, '.jsonl').slice(0, 20)}`;
    const item = new vscode.TreeItem(
      name,
      followed ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
    );
    item.id = s.file;
    item.contextValue = followed ? 'agentSession.followed' : 'agentSession';
    const g = followed ? this.followed?.gauge : undefined;
    item.description = g
      ? `${Math.round((g.usedTokens / g.window) * 100)}% · ${formatTokens(g.usedTokens)} / ${formatTokens(g.window)}`
      : `${(s.size / 1e6).toFixed(1)} MB · ${new Date(s.lastActivity).toLocaleString()}`;
    item.iconPath = new vscode.ThemeIcon(followed ? 'pulse' : 'history');
    item.tooltip = new vscode.MarkdownString(
      `**${AGENT_NAMES[s.agent]}** session (read-only)\n\n\`${s.file}\`\n\nLast activity ${new Date(s.lastActivity).toLocaleString()}${followed ? '\n\nFollowed live.' : '\n\nSelect *Follow* to watch it live.'}`,
    );
    if (!followed)
      item.command = { command: 'contextKeeper.agentSessions.follow', title: 'Follow', arguments: [s.file] };
    return item;
  }

  getChildren(node?: Node): Node[] {
    if (!node) return this.sessions.map((session) => ({ kind: 'session' as const, session }));
    if (node.kind !== 'session' || this.followed?.file !== node.session.file) return [];
    const f = this.followed;
    if (f.error) return [{ kind: 'gauge', text: `Cannot read: ${f.error}`, tooltip: f.error }];
    const g = f.gauge;
    if (!g) return [{ kind: 'gauge', text: 'Reading…', tooltip: 'Reading the session file' }];
    const out: Node[] = [gaugeNode(g)];
    f.watcher.live
      .compactionsSeen()
      .forEach((compaction, index) => out.push({ kind: 'compaction', index, compaction }));
    return out;
  }

  /** URI of one side of an agent compaction's diff. */
  compactionUri(index: number, side: 'replaced' | 'summary'): vscode.Uri {
    return vscode.Uri.from({ scheme: AGENT_CHECKPOINT_SCHEME, path: `/${index}/${side}.md` });
  }

  /** Opens the diff of compaction `index`: what it replaced against its summary. */
  async openCompaction(index: number): Promise<void> {
    const c = this.followed?.watcher.live.compactionsSeen()[index];
    if (!c) return;
    const at = this.followed?.gauge?.skippedBytes ? '' : ` at line ${c.line}`;
    const title = `${AGENT_NAMES[this.followed!.watcher.live.format]} compaction${at}: replaced ↔ summary`;
    await vscode.commands.executeCommand(
      'vscode.diff',
      this.compactionUri(index, 'replaced'),
      this.compactionUri(index, 'summary'),
      title,
      { preview: true },
    );
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const match = /^\/(\d+)\/(replaced|summary)\.md$/.exec(uri.path);
    const c = match ? this.followed?.watcher.live.compactionsSeen()[Number(match[1])] : undefined;
    if (!match || !c) return 'This compaction is no longer followed.';
    if (match[2] === 'summary')
      return c.summary
        ? `# Summary written by the agent\n\n${c.summary}\n`
        : '(the agent has not written its summary yet)\n';
    if (c.replacedText === undefined)
      return `# Replaced context\n\nThe context before this compaction was read while catching up with an older part of the file and was not kept; only the last compactions read at once are rendered.\n`;
    return `# Replaced context (${c.replacedMessages === undefined ? '? messages' : plural(c.replacedMessages, 'message', 'messages')}, ${c.tokensBefore?.toLocaleString() ?? '?'} tokens)\n\n${c.replacedText}\n`;
  }

  dispose(): void {
    this.disposed = true;
    clearInterval(this.timer);
    this.stopFollowing();
    this._onDidChangeTreeData.dispose();
    this._onDidChange.dispose();
  }
}

function gaugeNode(g: WatchedGauge): Node {
  const pct = Math.round((g.usedTokens / g.window) * 100);
  const basis =
    g.basis === 'exact+new'
      ? `provider-reported + ${formatTokens(g.usedTokens - (g.reportedTokens ?? 0))} since`
      : 'counted (no usage recorded)';
  const agent = g.agentCompactsAt ? `; this agent compacts at about ${formatTokens(g.agentCompactsAt.tokens)}` : '';
  const bad = g.badLines ? `; ${g.badLines} unreadable line(s) skipped` : '';
  const estimate = g.estimated ? ' (estimate: the tokenizer is loading)' : '';
  const text = `${g.estimated ? '≈ ' : ''}${formatTokens(g.usedTokens)} / ${formatTokens(g.window)} (${pct}%), ${basis}${agent}${bad}${estimate}`;
  const tooltip = [
    g.estimated
      ? 'Counts are estimates (4 characters a token) until the tokenizer has loaded, a moment after the session is opened.'
      : '',
    g.basis === 'exact+new'
      ? `In use: ${g.usedTokens.toLocaleString()} prompt tokens: the provider's reported ${g.reportedTokens!.toLocaleString()} for the latest request (exact, with the agent's system prompt and tools) plus what was written since.`
      : `In use: ${g.usedTokens.toLocaleString()} prompt tokens, counted from the file; the agent's system prompt and tool schemas are not recorded, so the real figure is higher.`,
    `Counted from the file: ${g.tokens.toLocaleString()} prompt tokens in ${plural(g.messages, 'message', 'messages')} (since the agent's last compaction).`,
    `Window: ${g.window.toLocaleString()} tokens (${g.windowSource === 'recording' ? 'recorded by the agent' : 'from the model table'}${g.model ? `, model ${g.model}` : ''}).`,
    g.agentCompactsAt
      ? `The agent compacts at about ${g.agentCompactsAt.tokens.toLocaleString()} tokens (${g.agentCompactsAt.source}).`
      : 'Where this agent compacts is not known.',
    g.skippedBytes
      ? `Large file: its first ${formatBytes(g.skippedBytes)} were not read (they lie before the agent's last compaction, or the last 16 MiB hold none); ${g.checkpoints} compaction(s) since.`
      : `${g.checkpoints} compaction(s) so far.`,
    g.badLines ? `${g.badLines} line(s) of the file were not JSON and were skipped.` : '',
  ]
    .filter(Boolean)
    .join('\n');
  return { kind: 'gauge', text, tooltip };
}

/** Bytes in MB (decimal) with one decimal, or KB under a megabyte. */
function formatBytes(bytes: number): string {
  return bytes >= 1_000_000 ? `${(bytes / 1_000_000).toFixed(1)} MB` : `${Math.ceil(bytes / 1000)} KB`;
}
