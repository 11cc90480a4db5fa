/**
 * Registers the "Agent Sessions" view and its commands: Refresh, Follow, Open Compaction, and
 * "Compact into a Handoff" (the followed session compacted the way ContextKeeper compacts its own,
 * as Markdown the user can open, copy and give to a fresh session of any agent).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ReadOnlyDocuments } from '../documents/read-only-documents';
import { buildHandoff, type Handoff } from '../../watch/handoff';
import { compactionWorkerFile } from '../../service/compaction/worker/runner';
import { AGENT_CHECKPOINT_SCHEME, AgentSessionsView } from '../agent-sessions';
import { AgentGaugeProvider } from '../agent-gauge-provider';
import { CompactionWorker } from '../../service/compaction/worker/session-worker';
import { errorMessage } from '../../format/error-message';
import { formatTokensFull } from '../../format/tokens';

/**
 * Creates the view (and, given the extension's folder, the Watched Agent gauge view) and returns
 * everything to dispose; the {@link AgentSessionsView} is among them. A handoff opens as a read-only document of
 * `shared` (the extension's one provider of that scheme); without it, one of its own is made and
 * disposed with the rest.
 */
export function registerAgentSessions(
  log: vscode.LogOutputChannel,
  shared?: ReadOnlyDocuments,
  extensionUri?: vscode.Uri,
): vscode.Disposable[] {
  const owned = shared ? undefined : new ReadOnlyDocuments();
  const documents = shared ?? owned!;
  const view = new AgentSessionsView(log);
  // The followed session's gauge, drawn as the Context view draws its own (needs the extension's files).
  const gauge = extensionUri ? new AgentGaugeProvider(extensionUri, view, log) : undefined;
  const tree = vscode.window.createTreeView(AgentSessionsView.viewId, {
    treeDataProvider: view,
    showCollapseAll: false,
  });
  // Large handoffs compact in a worker thread, kept warm between handoffs and stopped when idle.
  const workerFile = compactionWorkerFile();
  const worker = workerFile ? new CompactionWorker(workerFile) : undefined;
  const handoff = async (action: 'open' | 'copy') => {
    const watcher = view.followedWatcher;
    if (!watcher) {
      void vscode.window.showInformationMessage('No Claude Code or Codex session of this workspace is being followed.');
      return;
    }
    const abort = new AbortController();
    const result: Handoff | undefined = await vscode.window.withProgress<Handoff | undefined>(
      { location: vscode.ProgressLocation.Notification, title: 'Compacting into a handoff', cancellable: true },
      async (progress, token) => {
        const sub = token.onCancellationRequested(() => abort.abort(new Error('handoff cancelled')));
        // The figure the Watched Agent gauge shows (the provider's), so the handoff and the gauge agree.
        const watched = await watcher.live.gaugeAsync();
        const reportedTokens = watched.basis === 'exact+new' ? watched.usedTokens : undefined;
        const { items, transcript, meter } = watcher.live.context();
        let shown = 0;
        const onProgress = (p: { message: string; done: number; total: number }) => {
          const percent = p.total > 0 ? (100 * p.done) / p.total : 0;
          progress.report({ message: p.message, increment: Math.max(0, percent - shown) });
          shown = Math.max(shown, percent);
        };
        const title = `${watcher.live.format === 'codex' ? 'Codex' : 'Claude Code'} session ${path.basename(watcher.file)}`;
        try {
          return await buildHandoff({ items, tools: transcript.tools, meter, title, reportedTokens }, abort.signal, {
            worker,
            onProgress,
          });
        } catch (err) {
          // Cancelled by the user: no handoff, no error.
          if (abort.signal.aborted) return undefined;
          throw err;
        } finally {
          sub.dispose();
        }
      },
    );
    if (!result) return;
    log.info(`Handoff of ${watcher.file}: ${result.tokensBefore} → ${result.tokensAfter} tokens`);
    if (action === 'copy') {
      await vscode.env.clipboard.writeText(result.markdown);
      void vscode.window.showInformationMessage(
        `Handoff copied (${formatTokensFull(result.tokensAfter)} tokens in place of ${formatTokensFull(result.tokensBefore)}).`,
      );
      return;
    }
    await documents.show('Handoff.md', result.markdown);
    const pick = await vscode.window.showInformationMessage(
      `Handoff ready: ${formatTokensFull(result.tokensAfter)} tokens in place of ${formatTokensFull(result.tokensBefore)}.`,
      'Copy',
    );
    if (pick === 'Copy') await vscode.env.clipboard.writeText(result.markdown);
  };
  const report = (what: string) => (err: unknown) => {
    log.error(`${what}:`, err);
    void vscode.window
      .showErrorMessage(`${what}: ${errorMessage(err)}`, 'Show Log')
      .then((a) => (a ? log.show() : undefined));
  };
  return [
    view,
    tree,
    ...(gauge ? [gauge, vscode.window.registerWebviewViewProvider(AgentGaugeProvider.viewId, gauge)] : []),
    ...(owned ? [owned] : []),
    { dispose: () => worker?.dispose() },
    vscode.workspace.registerTextDocumentContentProvider(AGENT_CHECKPOINT_SCHEME, view),
    vscode.commands.registerCommand('contextKeeper.agentSessions.refresh', () => view.discover()),
    vscode.commands.registerCommand('contextKeeper.agentSessions.follow', (arg: unknown) => {
      const file = typeof arg === 'string' ? arg : (arg as { session?: { file?: string } } | undefined)?.session?.file;
      if (file) view.follow(file);
    }),
    vscode.commands.registerCommand('contextKeeper.agentSessions.openCompaction', (index: unknown) =>
      typeof index === 'number' ? view.openCompaction(index).catch(report('Cannot open the compaction')) : undefined,
    ),
    vscode.commands.registerCommand('contextKeeper.agentSessions.handoff', () =>
      handoff('open').catch(report('Handoff failed')),
    ),
    vscode.commands.registerCommand('contextKeeper.agentSessions.copyHandoff', () =>
      handoff('copy').catch(report('Handoff failed')),
    ),
    vscode.workspace.onDidChangeWorkspaceFolders(() => view.discover()),
    vscode.workspace.onDidChangeConfiguration((e) =>
      e.affectsConfiguration('contextKeeper.watch') ? view.discover() : undefined,
    ),
  ];
}
