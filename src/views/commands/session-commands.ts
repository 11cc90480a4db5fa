/**
 * Commands of the session list and of onboarding: New Session, Switch, Rename, Delete, Continue in a
 * New Task, Choose Endpoint. Thin steps between a VS Code surface and the session controller.
 */
import * as vscode from 'vscode';
import { Commands } from './command-ids';
import { askOverCallLimit, timesWindow } from './call-limit';
import { abortSignalFrom } from '../../lifecycle/cancellation';
import { describeOutcome } from '../../service/compaction/outcome';
import { pickEndpoint } from '../onboarding';
import type { SessionController } from '../session-controller';
import { formatDateTime } from '../../format/display';
import { leavePreview } from './preview-guard';
import type { CheckpointRecord } from '../../service/records';
import { notify } from '../notify';
import { continueNotice, editsNotInContext } from '../notices';
import { recordingFacts, type ContinueFacts } from '../../service/compaction/continue-facts';

/** Handlers by command id; registered (with error reporting) by `registerCommands`. */
export function sessionCommands(
  controller: SessionController,
  log: vscode.LogOutputChannel,
): Record<string, (...args: never[]) => unknown> {
  const pickSession = async (title: string, id?: string): Promise<string | undefined> => {
    if (id) return id;
    // Sessions saved on disk but missing from the list are listed first (read at startup).
    await controller.whenListed;
    const items = controller.sessions.all().map((s) => ({
      label: `${s.kind === 'imported' ? '$(cloud-download) ' : '$(comment-discussion) '}${s.label}`,
      description: s.id === controller.current?.sessionId ? 'shown' : undefined,
      detail: `${s.kind === 'imported' ? 'Imported recording' : 'Working session'}${s.updated ? `, last changed ${formatDateTime(s.updated)}` : ''}${s.recordedModel ? `, recorded with ${s.recordedModel}` : ''}`,
      id: s.id,
    }));
    return (await vscode.window.showQuickPick(items, { title }))?.id;
  };
  return {
    [Commands.pickEndpoint]: () => pickEndpoint(log),
    [Commands.newSession]: async () => {
      if (await leavePreview(controller, 'starting a new session')) await controller.startNewSession();
    },
    [Commands.switchSession]: async (id?: string) => {
      const chosen = await pickSession('Switch Session', id);
      if (!chosen) return;
      // Refused as Delete Session is: a warning with the way out, not an error (nothing failed).
      const state = controller.state();
      if (chosen !== controller.current?.sessionId && state !== 'idle' && state !== 'error') {
        log.warn('Switch Session refused: a task is running.');
        const action = await vscode.window.showWarningMessage(
          'ContextKeeper: the agent is working in this session: cancel the task or wait for it to end before switching sessions.',
          'Cancel Task',
        );
        if (action === 'Cancel Task') await vscode.commands.executeCommand(Commands.cancel);
        return;
      }
      if (chosen !== controller.current?.sessionId && !(await leavePreview(controller, 'switching sessions'))) return;
      await controller.switchTo(chosen);
    },
    [Commands.renameSession]: async (id?: string) => {
      const chosen = await pickSession('Rename Session', id);
      const session = controller.sessions.get(chosen);
      if (!session) return;
      const label = await vscode.window.showInputBox({
        title: 'Rename Session',
        value: session.label,
        validateInput: (v) => (v.trim() ? undefined : 'Enter a name.'),
      });
      if (label?.trim()) {
        await controller.renameSession(session.id, label.trim());
      }
    },
    [Commands.deleteSession]: async (id?: string) => {
      const chosen = await pickSession('Delete Session', id);
      const session = controller.sessions.get(chosen);
      if (!session) return;
      // A running task is never left to write into a deleted folder: the user cancels it first or
      // keeps the session. Modal, so the answer is seen even with notifications silenced.
      if (session.id === controller.current?.sessionId && controller.busy) {
        const action = await vscode.window.showWarningMessage(
          `The agent is working in “${session.label}”.`,
          {
            modal: true,
            detail:
              'Cancel Task and Delete stops the task, then deletes the session’s messages and checkpoints from this workspace’s storage. Or keep the session and let the task end.',
          },
          'Cancel Task and Delete',
        );
        if (action !== 'Cancel Task and Delete') return;
        controller.deleting.add(session.id);
        try {
          await controller.cancelTask();
          await controller.deleteSession(session.id);
        } finally {
          controller.deleting.delete(session.id);
        }
        void vscode.window.showInformationMessage(
          `ContextKeeper: the task was cancelled and the session “${session.label}” deleted.`,
        );
        return;
      }
      const answer = await vscode.window.showWarningMessage(
        `Delete the session “${session.label}”?`,
        {
          modal: true,
          detail:
            session.kind === 'imported'
              ? 'Only ContextKeeper’s copy is deleted; the recording file stays.'
              : 'Its messages and checkpoints are deleted from this workspace’s storage.',
        },
        'Delete',
      );
      if (answer === 'Delete') await controller.deleteSession(session.id);
    },
    [Commands.continueInNewTask]: async () => {
      if (!controller.readOnly) return;
      // A recording many times the model's window costs many summarizer calls to continue: asked
      // first, and the choice compacts the new session at once.
      const recording = controller.current;
      const budget = recording?.getBudget();
      const what = budget
        ? `Continuing this recording (${timesWindow(budget.used, budget.window)} the model's window)`
        : 'Continuing this recording';
      const estimate = recording?.estimateCompaction('continue');
      const asked = await askOverCallLimit(estimate, what);
      if (asked === 'cancel') return;
      await controller.continueInNewTask();
      void vscode.window.showInformationMessage(
        'ContextKeeper: continued in a new working session; the recording stays as it was.',
      );
      const service = controller.current;
      // A continued session over the model's input budget is compacted now, not at the first Run:
      // the new task starts within budget. Within the call limit nothing was asked and the limit
      // holds; with no estimate (no summary model fits) the summaries are written without a model.
      const over = service ? service.getBudget().used > service.getBudget().inputBudget : false;
      // The question was estimated on the recording; the new session also counts the agent's system
      // prompt and tools, so the compaction to the same target may need a few calls more: the
      // user's choice of using the model stands for those too.
      const forked = typeof asked?.calls === 'number' ? service?.estimateCompaction('continue')?.needed : undefined;
      const calls =
        asked && typeof asked.calls === 'number'
          ? Math.max(asked.calls, forked ?? 0)
          : asked
            ? asked.calls
            : estimate
              ? undefined
              : 'extractive';
      if (!service || (!asked && !over)) {
        if (service) warnOfEditsNotCarried(service);
        return;
      }
      const outcome = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: 'ContextKeeper: compacting the continued session…',
          cancellable: true,
        },
        async (_progress, token) => {
          const abort = abortSignalFrom(token);
          try {
            return await service.compactNow({ calls, trigger: 'continue' }, abort.signal);
          } finally {
            abort.dispose();
          }
        },
      );
      void vscode.window.showInformationMessage(`ContextKeeper: ${describeOutcome(outcome.status)}`);
      if (outcome.continued) tellContinued(service, outcome.continued);
    },
  };
}

/**
 * Says why the compaction that fitted the continued session summarised again a summary the user
 * edited by hand, or landed above its target, from what the run measured ({@link continueNotice});
 * Open Checkpoint opens the first edited checkpoint no longer in the context, where the edits are kept.
 */
function tellContinued(
  service: { getCheckpoints(): CheckpointRecord[]; getTranscript(): { context: readonly { id: string }[] } },
  facts: ContinueFacts,
): void {
  const notice = continueNotice(facts);
  if (!notice) return;
  const ids = new Set(service.getTranscript().context.map((item) => item.id));
  const dropped = editsNotInContext(service.getCheckpoints(), ids);
  const actions = notice.openCheckpoint && dropped.length ? ['Open Checkpoint'] : [];
  void notify(notice.level, notice.text, actions).then((choice) => {
    if (choice === 'Open Checkpoint') void vscode.commands.executeCommand(Commands.openCheckpoint, dropped[0]);
  });
}

/**
 * Continued with no compaction (the recording fits): a summary edited by hand that is not in the
 * context as written was summarised again by a later compaction in the recording, before it was
 * continued; said so, with where the edits are kept.
 */
function warnOfEditsNotCarried(service: {
  getCheckpoints(): CheckpointRecord[];
  getTranscript(): { context: readonly { id: string }[] };
}): void {
  const ids = new Set(service.getTranscript().context.map((item) => item.id));
  const dropped = editsNotInContext(service.getCheckpoints(), ids);
  if (dropped.length === 0) return;
  const notice = continueNotice(recordingFacts(dropped.length));
  if (!notice) return;
  void notify(notice.level, notice.text, ['Open Checkpoint']).then((choice) => {
    if (choice) void vscode.commands.executeCommand(Commands.openCheckpoint, dropped[0]);
  });
}
