/**
 * The extension's commands (category "ContextKeeper"). Each handler is a thin step between a VS Code
 * surface (palette, sidebar, status bar) and the session controller; long work shows progress and
 * can be cancelled, which aborts the service call through an AbortSignal.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { WALKTHROUGH_KEYS } from '../onboarding';
import type { RecordedCompaction } from '../../compaction/rewrite/imported';
import { maskSecrets, maskStrings } from '../../compaction/secrets';
import type { Entry, ToolSchema } from '../../compaction/types';
import type { ContextServiceApi } from '../../service/api';
import type { TaskOutcome } from '../../service/records';
import { describeOutcome, type CompactOutcome } from '../../service/compaction/outcome';
import { abortSignalFrom } from '../../lifecycle/cancellation';
import { OneAtATime } from '../../lifecycle/one-at-a-time';
import type { CheckpointDocumentProvider } from '../documents/checkpoint-documents';
import { Commands } from './command-ids';
import type { KeyStore } from '../../secrets/key-store';
import type { SessionController } from '../session-controller';
import type { Settings } from '../../settings/settings';
import { SidebarProvider } from '../sidebar/sidebar-provider';
import { compactionNotice, modelErrorFixes, restoreNotice, undoRestoreNotice, type ModelErrorFix } from '../notices';

/** Button labels of the fixes a model error offers. */
const FIX_LABELS: Record<ModelErrorFix, string> = {
  setApiKey: 'Set API Key',
  openSettings: 'Open Settings',
  showLog: 'Show Log',
};
/** The button of a short notice whose whole story is in the log. */
const SHOW_DETAILS = 'Show Details';
import { reviewPreview } from '../documents/preview-review';
import { editedPreviewTexts } from '../preview-edits';
import type { ReadOnlyDocuments } from '../documents/read-only-documents';
import { previewDocument } from '../documents/preview-text';
import { askOverCallLimit } from './call-limit';
import { runTestConnection } from './test-connection';
import { restoreRun, runsOf } from './restore-run';
import { notify } from '../notify';
import { sessionCommands } from './session-commands';
import { leavePreview } from './preview-guard';
import { firstLine } from '../sidebar/transcript-items';
import { latestReportedPrompt } from '../../transcripts/reported';
import { describeImportCount, importCount, importNotice } from '../import-count';
import { refuseWithoutEndpoint } from './task-setup';
import { recordingLabel, recordingSource } from '../session-list';
import { plural } from '../../format/tokens';
import { errorMessage } from '../../format/error-message';
import { formatDateTime } from '../../format/display';
import { textWithPlaceholders } from '../../compaction/content-text';

/** Why the agent cannot run in this window (Restricted Mode, a virtual folder), or undefined when it can. */
export function agentUnavailableReason(): string | undefined {
  if (!vscode.workspace.isTrusted) {
    return 'the agent is off in Restricted Mode: it runs commands and edits files. Trust the folder to use it; meter, import, export and compaction work meanwhile.';
  }
  if (vscode.workspace.workspaceFolders?.some((folder) => folder.uri.scheme !== 'file')) {
    return 'the agent is off in a virtual workspace: its tools work on local folders only.';
  }
  return undefined;
}

/** What an importer returns for a transcript file. */
export interface ImportResult {
  format: string;
  entries: Entry[];
  /** Compactions the recording agent made itself; they become `import` checkpoints. */
  compactions?: RecordedCompaction[];
  /** Model the recording names for the whole session (Aider's header, a trajectory's config), when it does. */
  model?: string;
  /** The context window the file states (tokens), when its format records one (Codex `model_context_window`). */
  contextWindow?: number;
  /** Tool schemas the recording holds (OpenAI chat trajectories, OpenHands); counted while it is inspected. */
  tools?: ToolSchema[];
  /** What import repaired or read otherwise than the file has it, one sentence each naming where. */
  warnings?: string[];
}

/** Parses a transcript file's bytes; throws with file/line/field on malformed input. */
export type TranscriptImporter = (bytes: Uint8Array, fileName: string) => Promise<ImportResult>;

/** What the command handlers work with. */
export interface CommandDeps {
  controller: SessionController;
  keys: KeyStore;
  settings: Settings;
  sidebar: SidebarProvider;
  documents: CheckpointDocumentProvider;
  importer: TranscriptImporter;
  log: vscode.LogOutputChannel;
  /** Where a proposed summary opens for review, read-only. */
  readOnly: ReadOnlyDocuments;
}

/** `value` when it is a list of strings, else undefined (a command's argument of unknown origin). */
function textList(value: unknown): readonly string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
}

/** Registers every command; the caller disposes the returned registrations. */
export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  const handlers = new CommandHandlers(deps);
  const table: Record<string, (...args: never[]) => unknown> = {
    [Commands.compactConversation]: (arg?: { focus?: string }) => handlers.compact(arg),
    [Commands.newAgentTask]: (text?: string) => handlers.newTask(text),
    [Commands.retryTask]: () => handlers.retryTask(),
    [Commands.cancel]: () => deps.controller.current?.cancel(),
    [Commands.setApiKey]: () => handlers.setApiKey(),
    [Commands.clearApiKey]: () => handlers.clearApiKey(),
    [Commands.openCheckpoint]: (id?: string) => handlers.openCheckpoint(id),
    [Commands.diffCheckpoint]: (id?: string) => handlers.diffCheckpoint(id),
    [Commands.restoreCheckpoint]: (id?: string) => handlers.restoreCheckpoint(id),
    [Commands.undoRestore]: () => handlers.undoRestore(),
    [Commands.copySummary]: (id?: string) => handlers.copySummary(id),
    [Commands.pinMessage]: (entryId?: string) => handlers.pinMessage(entryId),
    [Commands.importTranscript]: (uri?: vscode.Uri) => handlers.importTranscript(uri),
    [Commands.exportTranscript]: () => handlers.exportTranscript(),
    [Commands.showLog]: () => deps.log.show(),
    // The editor's title bar passes its document's URI: only a list of texts (the sidebar's) is taken.
    [Commands.applyPreview]: (summaries?: unknown) => handlers.applyPreview(textList(summaries)),
    [Commands.discardPreview]: () => deps.controller.current?.discardPreview(),
    [Commands.testConnection]: () =>
      runTestConnection({ endpoint: () => deps.settings.value, apiKey: () => deps.keys.get(), log: deps.log }),
    ...sessionCommands(deps.controller, deps.log),
    [Commands.answerApproval]: (requestId: string, approved: boolean) =>
      deps.controller.current?.resolveApproval(requestId, approved),
  };
  return Object.entries(table).map(([id, handler]) =>
    vscode.commands.registerCommand(id, async (...args: never[]) => {
      try {
        // eslint-disable-next-line no-restricted-syntax -- bounded: the arguments VS Code passes to a command
        return await handler(...args);
      } catch (error) {
        deps.log.error(`${id} failed:`, error);
        void notify('error', `ContextKeeper: ${errorMessage(error)}`, [], deps.log);
        return undefined;
      }
    }),
  );
}

/** The command implementations, sharing the dependencies. */
class CommandHandlers {
  constructor(private readonly deps: CommandDeps) {}

  private service(): Promise<ContextServiceApi> {
    return this.deps.controller.ensure();
  }

  /** One Compact Conversation at a time: a second (a double click) would ask for a second summary. */
  private readonly compactions = new OneAtATime();

  async compact(arg?: { focus?: string }): Promise<CompactOutcome | undefined> {
    const busy = (why: string) => (void notify('info', `ContextKeeper: ${why}`), undefined);
    if (this.deps.controller.current?.getPreview())
      return busy('a summary preview is waiting; apply or discard it first.');
    return this.compactions.run(
      () => this.compactOnce(arg),
      () => busy('a compaction is already running.'),
    );
  }

  private async compactOnce(arg?: { focus?: string }): Promise<CompactOutcome | undefined> {
    let focus = arg?.focus;
    // Nothing eligible: say so at once rather than after asking for a focus.
    const blocked = (await this.service()).taskRunning ? undefined : (await this.service()).compactBlocker();
    if (blocked) {
      void notify('info', `ContextKeeper: nothing to compact: ${blocked}.`, [], this.deps.log);
      return undefined;
    }
    if (arg === undefined) {
      const typed = await vscode.window.showInputBox({
        title: 'Compact Conversation',
        prompt: 'What should the summary keep in focus? (optional)',
        placeHolder: 'e.g. the database migration and its open questions',
      });
      if (typed === undefined) return undefined;
      focus = typed.trim() || undefined;
    }
    const service = await this.service();
    const preview = this.deps.settings.value.previewSummary;
    // Over the call limit, the user chooses first: all the calls it needs, no model, or not now.
    const asked = service.taskRunning
      ? undefined
      : await askOverCallLimit(service.estimateCompaction(), 'Compacting this conversation');
    if (asked === 'cancel') return undefined;
    this.deps.log.info(
      `Manual compaction requested${focus ? ' with focus text' : ''}${preview ? ' (preview)' : ''}${asked ? ` (${asked.calls === 'extractive' ? 'without a model' : `${asked.calls} calls allowed`})` : ''}.`,
    );
    const outcome = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: 'ContextKeeper: compacting conversation…',
        cancellable: true,
      },
      async (progress, token) => {
        const abort = abortSignalFrom(token);
        // A large compaction runs in a worker and reports the share of the messages summarized so far.
        let shown = 0;
        const onProgress = (p: { message: string; done: number; total: number }): void => {
          const percent = p.total > 0 ? Math.min(100, (100 * p.done) / p.total) : 0;
          progress.report({ message: p.message, increment: Math.max(0, percent - shown) });
          shown = Math.max(shown, percent);
        };
        try {
          return await service.compactNow({ focus, preview, onProgress, calls: asked?.calls }, abort.signal);
        } finally {
          abort.dispose();
        }
      },
    );
    if (outcome.preview) {
      void reviewPreview(service, previewDocument(outcome.preview), this.deps);
      return outcome;
    }
    this.deps.log.info(`Manual compaction: ${describeOutcome(outcome.status)}`);
    void notify(outcome.status.kind === 'applied' ? 'info' : 'warning', compactionNotice(outcome), [], this.deps.log);
    return outcome;
  }

  /**
   * Applies the pending preview as the sidebar shows it: `summaries` as given (the sidebar's texts,
   * one per summary, in order), else the sidebar's latest edits ({@link editedPreviewTexts}; the
   * review document shows the same), else the summaries as proposed.
   */
  async applyPreview(summaries?: readonly string[]): Promise<void> {
    const service = await this.service();
    if (!service.getPreview()) return;
    const texts = summaries ?? editedPreviewTexts(service);
    const outcome = await service.applyPreview(texts);
    // A refused empty summary is an error notice: its whole reason fits one (a warning's would be cut).
    const { kind } = outcome.status;
    void notify(
      kind === 'applied' ? 'info' : kind === 'empty-summary' ? 'error' : 'warning',
      `ContextKeeper: ${describeOutcome(outcome.status)}`,
      [],
      this.deps.log,
    );
  }

  async newTask(text?: string): Promise<void> {
    // Restricted Mode and virtual folders: the agent runs commands and edits local files, so it stays off.
    const limited = agentUnavailableReason();
    if (limited) {
      void notify('warning', `ContextKeeper: ${limited}`, [], this.deps.log);
      return;
    }
    // Before asking for (or taking) a task: without an endpoint it would only fail after the fact.
    if (await refuseWithoutEndpoint(this.deps.keys, this.deps.settings.value.baseUrl, this.deps.log)) {
      if (text !== undefined) this.deps.sidebar.restoreTask(text); // Run cleared the sidebar's box
      return;
    }
    const task =
      text ?? (await vscode.window.showInputBox({ title: 'New Agent Task', prompt: 'What should the agent do?' }));
    if (!task?.trim()) return;
    const service = await this.service();
    if (this.deps.controller.readOnly) {
      const choice = await vscode.window.showInformationMessage(
        'ContextKeeper: this is an imported recording, opened for inspection. Continue it in a new working session to run tasks.',
        'Continue in a New Task',
      );
      if (choice) await vscode.commands.executeCommand(Commands.continueInNewTask);
      return;
    }
    if (this.refuseWhileRunning(service, text)) return;
    await this.deps.sidebar.reveal();
    const outcome = await this.runInProgress(service, task, text);
    this.deps.log.info(
      `Task ended: ${outcome.status} after ${outcome.modelCalls} model calls, ${outcome.toolCalls} tool calls, ${outcome.compactions} compactions.`,
    );
    // The walkthrough's task step ticks on a task that ran to its end, not on one started.
    if (outcome.status === 'done')
      void vscode.commands.executeCommand('setContext', WALKTHROUGH_KEYS.taskCompleted, true);
    if (outcome.status === 'error') {
      const reason = outcome.error ?? 'unknown error';
      const endpoint = this.deps.settings.value.baseUrl || 'https://api.openai.com/v1';
      // The error state offers Retry with this task, and the task box gets it back (Run emptied it).
      this.deps.controller.reportError(`The agent stopped: ${reason}`, true, outcome.failure, task);
      this.deps.sidebar.restoreTask(task);
      const fixes = modelErrorFixes(outcome.failure, this.deps.controller.needsKey).map((fix) => FIX_LABELS[fix]);
      void notify(
        'error',
        `ContextKeeper: the agent stopped: ${reason} (endpoint ${endpoint})`,
        ['Retry', ...fixes],
        this.deps.log,
      ).then((choice) => {
        // A toast cannot be closed from here: once the task was sent again (or replaced), its Retry says so.
        if (choice === 'Retry') {
          if (this.deps.controller.failedTask === task) void this.retryTask();
          else
            void notify(
              'info',
              'ContextKeeper: this task was already retried (or another task ran since); nothing was sent.',
              [],
              this.deps.log,
            );
        }
        if (choice === 'Set API Key') void vscode.commands.executeCommand(Commands.setApiKey);
        if (choice === 'Open Settings')
          void vscode.commands.executeCommand('workbench.action.openSettings', '@ext:contextkeeper.context-keeper');
        if (choice === 'Show Log') this.deps.log.show();
      });
    }
    // A task cancelled to delete its session: the delete command says what happened.
    const deleted =
      !this.deps.controller.sessions.get(service.sessionId) || this.deps.controller.deleting.has(service.sessionId);
    if (outcome.status === 'cancelled' && !deleted)
      void notify(
        'info',
        'ContextKeeper: task cancelled. What the agent did so far is kept; a reply cut short is marked “interrupted”.',
      );
    if (outcome.status === 'step-limit')
      void vscode.window.showWarningMessage('ContextKeeper: the agent reached its step limit.');
  }

  /** Runs `task` under the view's progress bar; a task Run sent (`text`) goes back into the box when refused. */
  private async runInProgress(
    service: ContextServiceApi,
    task: string,
    text: string | undefined,
  ): Promise<TaskOutcome> {
    try {
      return await vscode.window.withProgress(
        { location: { viewId: SidebarProvider.viewId }, title: 'Agent working', cancellable: true },
        async (_progress, token) => {
          const abort = abortSignalFrom(token);
          try {
            return await service.runTask(task, abort.signal);
          } finally {
            abort.dispose();
          }
        },
      );
    } catch (error) {
      // Refused before it started (another task got there first): the text goes back into the box.
      if (text !== undefined) this.deps.sidebar.restoreTask(text);
      throw error;
    }
  }

  /**
   * A second task while one runs is not taken: it goes back into the box Run emptied, and the toast
   * says so (the page keeps it already; this covers the command palette and a page that lagged).
   * True when refused.
   */
  private refuseWhileRunning(service: ContextServiceApi, text: string | undefined): boolean {
    if (!service.taskRunning) return false;
    if (text !== undefined) this.deps.sidebar.restoreTask(text);
    void notify(
      'info',
      'ContextKeeper: a task is already running; the new one was kept in the task box. Run it when the agent is done, or cancel first.',
      [],
      this.deps.log,
    );
    return true;
  }

  /** Sends the task that failed again, as it was typed; nothing when no failed task is shown. */
  async retryTask(): Promise<void> {
    const task = this.deps.controller.failedTask;
    if (task === undefined) {
      void notify(
        'info',
        'ContextKeeper: nothing to retry: the failed task was sent again or replaced.',
        [],
        this.deps.log,
      );
      return;
    }
    await this.newTask(task);
  }

  async setApiKey(): Promise<void> {
    const key = await vscode.window.showInputBox({
      title: 'Set API Key',
      prompt: 'API key of the model provider. Stored in VS Code secret storage, never in settings.',
      password: true,
      ignoreFocusOut: true,
      validateInput: (value) => (value.trim().length === 0 ? 'Enter a key, or press Escape.' : undefined),
    });
    if (key === undefined) return;
    await this.deps.keys.set(key.trim());
    this.deps.log.info('API key stored in secret storage.');
    void vscode.window.showInformationMessage('ContextKeeper: API key stored.');
  }

  async clearApiKey(): Promise<void> {
    await this.deps.keys.clear();
    this.deps.log.info('API key removed from secret storage.');
    void vscode.window.showInformationMessage('ContextKeeper: API key cleared.');
  }

  /** Asks for a checkpoint when none was given; restored ones only when `includeRestored`. */
  private async pickCheckpoint(id: string | undefined, includeRestored: boolean): Promise<string | undefined> {
    if (id) return id;
    const service = await this.service();
    const items = service
      .getCheckpoints()
      .filter((checkpoint) => includeRestored || !checkpoint.restored)
      .reverse()
      .map((checkpoint) => ({
        label: `${checkpoint.trigger} · ${checkpoint.strategy}`,
        description: `${checkpoint.tokensBefore} → ${checkpoint.tokensAfter} tokens, ${plural(checkpoint.replacedIds.length, 'message', 'messages')}`,
        detail: `${formatDateTime(checkpoint.time)}${checkpoint.restored ? ' (restored)' : ''}`,
        id: checkpoint.id,
      }));
    if (items.length === 0) {
      void vscode.window.showInformationMessage('ContextKeeper: no checkpoints in this session yet.');
      return undefined;
    }
    return (await vscode.window.showQuickPick(items, { title: 'Choose a checkpoint' }))?.id;
  }

  async openCheckpoint(id?: string): Promise<void> {
    const chosen = await this.pickCheckpoint(id, true);
    if (chosen) await this.deps.documents.show(chosen);
  }

  async diffCheckpoint(id?: string): Promise<void> {
    const chosen = await this.pickCheckpoint(id, true);
    if (chosen) await this.deps.documents.showDiff(chosen);
  }

  async restoreCheckpoint(id?: string): Promise<void> {
    const service = await this.service();
    const before = service.getBudget().used;
    const views = this.deps.controller.model.checkpointViews();
    const done = await restoreRun(
      {
        checkpoints: () => views,
        budget: () => service.getBudget(),
        plan: (ids) => service.planRestore(ids),
        restore: (ids) => service.restoreCheckpoint(ids),
        readOnly: () => this.deps.controller.readOnly,
      },
      id,
    );
    if (!done) return;
    const { restored } = done;
    this.deps.documents.refresh();
    const after = service.getBudget().used;
    this.deps.log.info(`Restored the compaction run ${restored.id} (undone: ${restored.undone.join(', ')}).`);
    void vscode.window
      .showInformationMessage(
        restoreNotice(runsOf(views, restored.undone), restored.undone.length, before, after),
        'Undo Restore',
        'Compact Again',
      )
      .then((choice) => {
        if (choice === 'Undo Restore') void vscode.commands.executeCommand(Commands.undoRestore);
        if (choice === 'Compact Again') void vscode.commands.executeCommand(Commands.compactConversation, {});
      });
  }

  /** Undoes the latest restore: the context it replaced comes back (see ContextServiceApi.undoRestore). */
  async undoRestore(): Promise<void> {
    const service = await this.service();
    // A notification's Undo Restore outlives its action (a later change, or the undo already done):
    // pressed then, it says the undo is spent instead of failing.
    if (!service.getUndoableRestore()) {
      void notify(
        'info',
        'ContextKeeper: nothing to undo: that restore was undone already or the conversation changed since.',
        [],
        this.deps.log,
      );
      return;
    }
    const before = service.getBudget().used;
    const undone = await service.undoRestore();
    this.deps.documents.refresh();
    const after = service.getBudget().used;
    this.deps.log.info(`Undid the restore of checkpoint ${undone.id} (in force again: ${undone.undone.join(', ')}).`);
    void vscode.window.showInformationMessage(undoRestoreNotice(undone.undone.length, before, after));
  }

  async copySummary(id?: string): Promise<void> {
    const chosen = await this.pickCheckpoint(id, true);
    const checkpoint = chosen && (await this.service()).getCheckpoints().find((c) => c.id === chosen);
    if (!checkpoint) return;
    await vscode.env.clipboard.writeText(maskSecrets(checkpoint.summary));
    void vscode.window.showInformationMessage('ContextKeeper: summary copied.');
  }

  async pinMessage(entryId?: string): Promise<void> {
    const service = await this.service();
    if (entryId) {
      const pinned = service.getTranscript().pinned.includes(entryId);
      await service.pin(entryId, !pinned);
      this.deps.controller.model.pinsChanged();
      return;
    }
    const { context, pinned } = service.getTranscript();
    const pinnedSet = new Set(pinned);
    const items = context
      .filter((item) => item.kind === 'raw' && item.message.role !== 'system' && item.message.role !== 'developer')
      .reverse()
      .map((item) => ({
        label: `${pinnedSet.has(item.id) ? '$(pinned) ' : ''}${item.message.role}`,
        description: firstLine(textWithPlaceholders(item.message.content), 100),
        id: item.id,
        isPinned: pinnedSet.has(item.id),
      }));
    const choice = await vscode.window.showQuickPick(items, {
      title: 'Pin or unpin a message (pinned messages are never summarized)',
    });
    if (!choice) return;
    await service.pin(choice.id, !choice.isPinned);
    this.deps.controller.model.pinsChanged();
    void vscode.window.showInformationMessage(`ContextKeeper: message ${choice.isPinned ? 'unpinned' : 'pinned'}.`);
  }

  async importTranscript(uri?: vscode.Uri): Promise<void> {
    let file = uri;
    if (!file) {
      const picked = await vscode.window.showOpenDialog({
        title: 'Import Transcript',
        canSelectMany: false,
        openLabel: 'Import',
        filters: { Transcripts: ['jsonl', 'json', 'traj', 'md'], 'All files': ['*'] },
      });
      file = picked?.[0];
    }
    if (!file) return;
    // The import opens as a session of its own and is shown: the waiting preview would be orphaned.
    if (!(await leavePreview(this.deps.controller, 'importing a transcript'))) return;
    const fileName = file.path.split('/').pop() ?? file.path;
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `ContextKeeper: importing ${fileName}…` },
      async () => {
        const imported = await this.deps.importer(await vscode.workspace.fs.readFile(file), fileName);
        const recordedModel = imported.model ?? imported.entries.find((e) => e.meta?.model)?.meta?.model;
        await this.deps.controller.importTranscript(
          {
            source: recordingSource(imported.format, fileName),
            entries: imported.entries,
            compactions: imported.compactions,
            tools: imported.tools,
          },
          recordingLabel(imported.format, fileName),
          recordedModel,
          latestReportedPrompt(imported.entries)?.tokens,
          imported.contextWindow,
        );
        return imported;
      },
    );
    const counted = importCount(result.entries);
    const count = describeImportCount(counted);
    this.deps.log.info(
      `Imported ${fileName}: ${count}, format ${result.format}.${counted.placeholders ? ' Placeholder results answer tool calls the recording never answered; checkpoints count them too.' : ''}`,
    );
    // What import read otherwise than the file has it (a block of unknown type read as text, arguments
    // that are not JSON, repaired pairing) is told as the command line tells it, each naming where.
    const warnings = result.warnings ?? [];
    for (const warning of warnings) this.deps.log.warn(`Import ${fileName}: ${warning}`);
    await this.deps.sidebar.reveal();
    // The toast gives the count first and stays short; the breakdown and the warnings are in the log.
    const notice = importNotice(counted, result.format, warnings.length);
    if (!notice.details) {
      void notify('info', notice.text);
      return;
    }
    void notify('info', notice.text, [SHOW_DETAILS], this.deps.log).then((choice) => {
      if (choice === SHOW_DETAILS) this.deps.log.show();
    });
  }

  async exportTranscript(): Promise<void> {
    const service = await this.service();
    const target = await vscode.window.showSaveDialog({
      title: 'Export Transcript',
      filters: { JSON: ['json'] },
      defaultUri: exportLocation(`context-keeper-${service.sessionId}.json`),
    });
    if (!target) return;
    // The file may be shared: credentials from tool output are masked (the session's own copy keeps them).
    const exported = maskStrings(service.exportTranscript());
    await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(`${JSON.stringify(exported, null, 2)}\n`));
    this.deps.log.info(`Exported ${exported.entries.length} entries to ${target.fsPath}.`);
    void vscode.window
      .showInformationMessage(
        `ContextKeeper: exported ${plural(exported.entries.length, 'message', 'messages')} to ${target.fsPath}.`,
        'Open',
        'Reveal',
      )
      .then(async (choice) => {
        if (choice === 'Open') await vscode.window.showTextDocument(target, { preview: false });
        else if (choice === 'Reveal') await vscode.commands.executeCommand('revealFileInOS', target);
      });
  }
}

/**
 * Where Export proposes to write `fileName`: the user's home folder, outside every workspace folder,
 * so a transcript (the whole conversation, tool output included) is not committed with the project
 * by accident. When the home folder lies inside a workspace folder, no folder is proposed.
 */
export function exportLocation(fileName: string): vscode.Uri | undefined {
  const home = vscode.Uri.file(os.homedir());
  const inside = (vscode.workspace.workspaceFolders ?? []).some((folder) => {
    const relative = path.relative(folder.uri.fsPath, home.fsPath);
    return !relative.startsWith('..') && !path.isAbsolute(relative);
  });
  return inside ? undefined : vscode.Uri.joinPath(home, fileName);
}
