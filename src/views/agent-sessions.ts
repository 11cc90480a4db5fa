/**
 * The "Agent Sessions" view: Claude Code and Codex sessions of the open workspace, listed beside
 * ContextKeeper's own sessions and followed live, read-only. The most recently active one (or the one
 * the user picks) is followed: its gauge (tokens the agent sends now / window, the provider's reported
 * usage, where the agent compacts) updates within a second of a new line, and each compaction the agent
 * makes appears under it as a checkpoint whose diff shows what its summary replaced. Nothing of a
 * watched session is stored; the files are never written.
 */
import fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { readSettings, SETTINGS_SECTION } from '../settings/settings';
import { discoverSessionsAsync, type DiscoveredSession } from '../watch/discovery';
import { SessionWatcher, followFile, type Follow, type WatchUpdate } from '../watch/watcher';
import { deferredCounterForModel } from '../tokenizer/tokenizer';
import { compactionFigures, type WatchedCompaction, type WatchedGauge } from '../watch/live';
import { formatTokens, formatTokensFull, plural } from '../format/tokens';
import { AGENT_NAMES, agentGaugeView, type AgentGaugeView } from '../webview/shared/agent-gauge';
import { Commands } from './commands/command-ids';
import { formatDateTime } from '../format/display';
import { layOutCompare } from './documents/compare-layout';

/** URI scheme of the read-only documents of an agent's compactions. */
export const AGENT_CHECKPOINT_SCHEME = 'contextkeeper-agent';

type Node =
  | { kind: 'session'; session: DiscoveredSession }
  | { kind: 'gauge'; text: string; tooltip: string }
  | { kind: 'compaction'; index: number; compaction: WatchedCompaction };

/** Tree data, discovery, the live follow and the compaction documents. Dispose to stop following. */
export class AgentSessionsView
  implements vscode.TreeDataProvider<Node>, vscode.TextDocumentContentProvider, vscode.Disposable
{
  static readonly viewId = 'contextKeeper.agentSessions';
  private readonly _onDidChangeTreeData = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;
  private readonly _onDidChange = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this._onDidChange.event;
  private readonly _onDidUpdateGauge = new vscode.EventEmitter<void>();
  /** Fires when the followed session's gauge changed, or another (or no) session is followed. */
  readonly onDidUpdateGauge = this._onDidUpdateGauge.event;
  /** Time (ms) the followed session last changed, as seen here: its file's mtime at the first read, then when a read found new lines. */
  private followedActivity = 0;
  /** The followed file and compaction count already warned about (one notification per context). */
  private warned: string | undefined;
  /** The open "compacts soon" notification's answer, when one is showing. */
  private warning: Thenable<unknown> | undefined;
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

  /** Time (ms since the epoch) the followed session last changed; 0 when nothing is followed. */
  get lastActivity(): number {
    return this.followed?.gauge ? this.followedActivity : 0;
  }

  /** The followed session's gauge as the Watched Agent view and the status bar show it. */
  gaugeView(): AgentGaugeView | undefined {
    const f = this.followed;
    if (!f?.gauge) return undefined;
    const seen = f.watcher.live.compactionsSeen();
    const last = seen[seen.length - 1];
    const figures = last ? compactionFigures(last) : undefined;
    return agentGaugeView(
      f.gauge,
      path.basename(f.file),
      figures && (figures.before !== undefined || figures.after !== undefined)
        ? { ...figures, ...(last.trigger ? { trigger: last.trigger } : {}) }
        : undefined,
    );
  }

  /** Why no gauge is shown: the followed file cannot be read, it is being read, or nothing is followed. */
  gaugeNote(): string {
    const f = this.followed;
    if (f?.error) return `Cannot read ${path.basename(f.file)}: ${f.error}`;
    if (f) return 'Reading the session file…';
    return 'No Claude Code or Codex session of this workspace is followed.';
  }

  /**
   * Notifies once per context (until the agent's next compaction) when the followed agent nears its
   * own compaction point: at `contextKeeper.watch.notifyBeforeAgentCompacts` of it. Offers Hand Off,
   * since that is when a handoff keeps what the agent's own summary would drop.
   */
  private warnBeforeAgentCompacts(file: string, g: WatchedGauge): void {
    const fraction = readSettings(vscode.workspace.getConfiguration(SETTINGS_SECTION)).watch.notifyBeforeAgentCompacts;
    const at = g.agentCompactsAt?.tokens;
    if (!fraction || !at || g.usedTokens < at * fraction) return;
    const key = `${file}#${g.checkpoints}`;
    if (this.warned === key || this.warning) return;
    this.warned = key;
    const agent = AGENT_NAMES[g.format];
    const left = Math.max(0, at - g.usedTokens);
    this.warning = vscode.window
      .showInformationMessage(
        `${agent} compacts its context soon: ${formatTokens(g.usedTokens)} of about ${formatTokens(at)}${left ? ` (${formatTokens(left)} to go)` : ''}. A handoff now keeps what its own summary would drop.`,
        'Hand Off',
      )
      .then((pick) => {
        this.warning = undefined;
        if (pick === 'Hand Off') void vscode.commands.executeCommand(Commands.agentHandoff);
      });
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
        const first = state.gauge === undefined;
        state.gauge = u.gauge;
        state.error = undefined;
        // Only a change of the file is the agent's activity: the same lines counted again (exact
        // counts once the tokenizer has loaded) are not, or a reload would hand the agent the status bar.
        if (first) this.followedActivity = mtimeOf(file);
        else if (u.changed) this.followedActivity = Date.now();
        if (u.gauge.checkpoints > before)
          this._onDidChange.fire(this.compactionUri(u.gauge.checkpoints - 1, 'summary'));
        this.warnBeforeAgentCompacts(file, u.gauge);
        this.refreshRowsIfChanged();
        this._onDidUpdateGauge.fire();
      },
      (err) => {
        state.error = (err as Error).message;
        this._onDidChangeTreeData.fire(undefined);
        this._onDidUpdateGauge.fire();
      },
      1000,
    );
    this.log.info(`Following ${file}`);
  }

  /** What the tree shows, row by row (label, description, command arguments), for {@link refreshRowsIfChanged}. */
  private rowsSignature(): string {
    const rows: unknown[] = [];
    const walk = (nodes: Node[]) => {
      for (const node of nodes) {
        const item = this.getTreeItem(node);
        const label = typeof item.label === 'string' ? item.label : item.label?.label;
        rows.push([label, item.description, item.contextValue, item.command?.arguments]);
        walk(this.getChildren(node));
      }
    };
    walk(this.getChildren());
    return JSON.stringify(rows);
  }

  private shownRows = '';

  /**
   * Refreshes the tree only when a row would read differently. A refresh makes VS Code drop the rows'
   * command arguments and register new ones; a session file that grows every second would refresh the
   * tree every second, and a click on a compaction row landing between the two fails with "Actual
   * command not found". Unchanged rows keep their commands.
   */
  private refreshRowsIfChanged(): void {
    const rows = this.rowsSignature();
    if (rows === this.shownRows) return;
    this.shownRows = rows;
    this._onDidChangeTreeData.fire(undefined);
  }

  private stopFollowing(): void {
    if (!this.followed) return;
    this.followed.follow.dispose();
    this.followed = undefined;
    this._onDidUpdateGauge.fire();
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
      const f = compactionFigures(c);
      const at = this.followed?.gauge?.skippedBytes ? '' : ` at line ${c.line}`;
      const label = `Compacted${at}${f.before !== undefined ? `: ${formatTokens(f.before)} → ${f.after !== undefined ? formatTokens(f.after) : '…'}` : ''}`;
      const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon('fold');
      item.description = [
        c.trigger,
        c.summary ? `${formatTokensFull(c.summary.length)} characters of summary` : 'summary not written yet',
      ]
        .filter(Boolean)
        .join(' · ');
      item.tooltip =
        f.source === 'recorded'
          ? `Prompt tokens as ${AGENT_NAMES[this.followed?.watcher.live.format ?? 'claude-code']} recorded them before and after its compaction (system prompt and tools included).`
          : 'Prompt tokens counted from the file before and after the compaction (the agent recorded no figures).';
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
      : `${(s.size / 1e6).toFixed(1)} MB · ${formatDateTime(s.lastActivity)}`;
    item.iconPath = new vscode.ThemeIcon(followed ? 'pulse' : 'history');
    item.tooltip = new vscode.MarkdownString(
      `**${AGENT_NAMES[s.agent]}** session (read-only)\n\n\`${s.file}\`\n\nLast activity ${formatDateTime(s.lastActivity)}${followed ? '\n\nFollowed live.' : '\n\nSelect *Follow* to watch it live.'}`,
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
    // The gauge itself is drawn in the Watched Agent view; the row under the session says only what
    // would otherwise be lost (an estimate while the tokenizer loads, unreadable lines).
    const out: Node[] = gaugeNote(g);
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
      // A selection keeps the editor at line 1 (shared by both sides, see compare-layout.ts), every
      // time it opens; without one it scrolls to the first change.
      { preview: true, selection: new vscode.Range(0, 0, 0, 0) },
    );
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const match = /^\/(\d+)\/(replaced|summary)\.md$/.exec(uri.path);
    const c = match ? this.followed?.watcher.live.compactionsSeen()[Number(match[1])] : undefined;
    if (!match || !c) return 'This compaction is no longer followed.';
    const summary = c.summary
      ? `# Summary written by the agent\n\n${c.summary}\n`
      : '(the agent has not written its summary yet)\n';
    const replaced =
      c.replacedText === undefined
        ? `# Replaced context\n\nThe context before this compaction was read while catching up with an older part of the file and was not kept; only the last compactions read at once are rendered.\n`
        : `# Replaced context (${c.replacedMessages === undefined ? '? messages' : plural(c.replacedMessages, 'message', 'messages')}, ${c.tokensBefore === undefined ? '?' : formatTokensFull(c.tokensBefore)} tokens)\n\n${c.replacedText}\n`;
    // Up to 200k characters a side: laid out so the diff editor's work stays small (see compare-layout.ts).
    const documents = layOutCompare(replaced, summary);
    return match[2] === 'summary' ? documents.summary : documents.replaced;
  }

  dispose(): void {
    this.disposed = true;
    clearInterval(this.timer);
    this.stopFollowing();
    this._onDidChangeTreeData.dispose();
    this._onDidChange.dispose();
    this._onDidUpdateGauge.dispose();
  }
}

function mtimeOf(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return Date.now();
  }
}

/** Rows under the followed session that the Watched Agent view's gauge does not show. */
function gaugeNote(g: WatchedGauge): Node[] {
  const notes: string[] = [];
  if (g.estimated) notes.push('Counts are estimates until the tokenizer has loaded');
  if (g.badLines) notes.push(`${g.badLines} unreadable line(s) skipped`);
  if (g.skippedBytes)
    notes.push(`read from the agent's last compaction on (first ${formatBytes(g.skippedBytes)} skipped)`);
  return notes.length ? [{ kind: 'gauge', text: notes.join('; '), tooltip: gaugeTooltip(g) }] : [];
}

function gaugeTooltip(g: WatchedGauge): string {
  return [
    g.estimated
      ? 'Counts are estimates (4 characters a token) until the tokenizer has loaded, a moment after the session is opened.'
      : '',
    g.basis === 'exact+new'
      ? `In use: ${formatTokensFull(g.usedTokens)} prompt tokens: ${g.reportedFrom === 'compaction' ? "the agent's own figure after its compaction" : "the provider's reported figure for the latest request"}, ${formatTokensFull(g.reportedTokens!)} (exact, with the agent's system prompt and tools), plus what was written since.`
      : `In use: ${formatTokensFull(g.usedTokens)} prompt tokens, counted from the file; the agent's system prompt and tool schemas are not recorded, so the real figure is higher.`,
    `Counted from the file: ${formatTokensFull(g.tokens)} prompt tokens in ${plural(g.messages, 'message', 'messages')} (since the agent's last compaction).`,
    `Window: ${formatTokensFull(g.window)} tokens (${g.windowSource === 'recording' ? 'recorded by the agent' : 'from the model table'}${g.model ? `, model ${g.model}` : ''}).`,
    g.agentCompactsAt
      ? `The agent compacts at about ${formatTokensFull(g.agentCompactsAt.tokens)} tokens (${g.agentCompactsAt.source}).`
      : 'Where this agent compacts is not known.',
    g.skippedBytes
      ? `Large file: its first ${formatBytes(g.skippedBytes)} were not read (they lie before the agent's last compaction, or the last 16 MiB hold none); ${g.checkpoints} compaction(s) since.`
      : `${g.checkpoints} compaction(s) so far.`,
    g.badLines ? `${g.badLines} line(s) of the file were not JSON and were skipped.` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

/** Bytes in MB (decimal) with one decimal, or KB under a megabyte. */
function formatBytes(bytes: number): string {
  return bytes >= 1_000_000 ? `${(bytes / 1_000_000).toFixed(1)} MB` : `${Math.ceil(bytes / 1000)} KB`;
}
