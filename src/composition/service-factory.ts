/**
 * Builds a context service from the settings, the stored API key and the workspace. The only module
 * that knows how the service is constructed; the views see {@link ContextServiceApi} only.
 *
 * Everything here runs on first use of the session, never at activation: the OpenAI client, the
 * summarizer and the tokenizer's rank tables are all loaded from here on.
 */
import * as vscode from 'vscode';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { NodeToolHost } from '../agent/node-host';
import type { ToolHost } from '../agent/types';
import { deferredCounterForModel } from '../tokenizer/tokenizer';
import type { LogSink } from '../service/api';
import { ContextService } from '../service/service';
import { openModelSource, type ModelSource } from './model-source';
import { openingLine } from './opening-line';
import { recordingWindow } from '../models/recorded';
import { replyReserve } from '../models/resolve';
import { lookupModel } from '../models/table';
import { reusesSessionPrefix, summarizerFromSettings } from '../summarizers/from-options';
import type { ServiceFactory } from '../views/session-controller';
import type { ContextKeeperSettings } from '../settings/settings';
import { WorkspaceToolHost } from '../workspace/tool-host';
import { redactUrl } from '../format/urls';

/** Service log lines: message bodies only at debug/trace level, never at info. */
function logSink(log: vscode.LogOutputChannel): LogSink {
  return (level, message) => {
    switch (level) {
      case 'debug':
        return log.debug(message);
      case 'info':
        return log.info(message);
      case 'warn':
        return log.warn(message);
      case 'error':
        return log.error(message);
    }
  };
}

/** The agent's workspace: the first folder, or a scratch folder when none is open. */
function toolHost(context: vscode.ExtensionContext, apiKey: string | undefined): ToolHost {
  const secrets = () => [apiKey];
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (folder?.uri.scheme === 'file') return new WorkspaceToolHost(folder.uri, secrets);
  const scratch = path.join(context.globalStorageUri.fsPath, 'scratch');
  mkdirSync(scratch, { recursive: true });
  return new NodeToolHost(scratch, { secrets });
}

/**
 * Threshold fractions for the service. With automatic compaction off, the trigger moves to the
 * whole prompt budget: the context is then compacted only when the next request would not fit.
 */
function budgetOf(
  settings: ContextKeeperSettings,
  source: Pick<ModelSource, 'reservedOutput'> & { window: { window: number } },
) {
  return {
    contextWindow: source.window.window,
    reservedOutput: source.reservedOutput,
    compactAt: settings.autoCompact ? settings.compactAt : 1,
    compactTo: settings.compactTo,
  };
}

/** The folder holding this workspace's session folders. */
export function sessionsDir(context: vscode.ExtensionContext): string {
  return path.join((context.storageUri ?? context.globalStorageUri).fsPath, 'sessions');
}

/** A factory bound to this extension's storage and logger. */
export function createServiceFactory(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): ServiceFactory {
  return async ({ settings, apiKey, sessionId, recording }) => {
    const storageDir = sessionsDir(context);
    mkdirSync(storageDir, { recursive: true });
    // The gauge shows a labelled estimate until the table is read in the background: no first count blocks the editor.
    // A recording is counted with its own model's encoding when the table knows that model.
    const counter = deferredCounterForModel(
      recording?.model && lookupModel(recording.model) ? recording.model : settings.model,
    );
    // Restricted Mode: no model endpoint is called; summaries are extractive.
    const summaryModel = vscode.workspace.isTrusted ? settings.summary.model : '';
    const source = await openModelSource(
      settings,
      apiKey,
      log,
      (text) => counter.countText(text),
      () => counter.lineAdditive === true,
      context.globalState,
    );
    // The session's own model at its own endpoint has the agent's prefix in its prompt cache:
    // summaries then send that prefix unchanged, measured against the session's window.
    const ownModel = reusesSessionPrefix(settings, { baseUrl: settings.summary.baseUrl, model: summaryModel });
    const summarizer = summarizerFromSettings({
      baseUrl: summaryModel ? settings.summary.baseUrl || settings.baseUrl : '',
      model: summaryModel,
      apiKey,
      contextWindow: settings.summary.contextWindow || (ownModel ? source.window.window : undefined),
      instruction: settings.summary.instruction || undefined,
      countText: (text) => counter.countText(text),
      lineAdditive: () => counter.lineAdditive === true,
      extractiveFallback: true,
      // Only the session's own model at its own endpoint has seen the transcript: any other summarizer
      // (another model, another endpoint, a URL equal to a leftover endpoint setting while the session
      // runs on an editor model) never sees its credentials.
      maskSecrets: !ownModel,
      reusePrefix: ownModel,
      log: (line) => log.debug(line),
    });
    // An imported recording is measured against the window of the model it was recorded with.
    const shown = recording
      ? recordingWindow(
          recording.model,
          { model: source.model, window: source.window.window, maxOutput: source.window.maxOutput },
          recording.window,
        )
      : undefined;
    const measured =
      shown && !shown.configured
        ? {
            model: shown.model,
            window: { window: shown.window },
            reservedOutput: replyReserve(settings.maxOutputTokens, shown),
            label: shown.label,
          }
        : {
            model: source.model,
            window: source.window,
            reservedOutput: source.reservedOutput,
            label: shown?.label ?? source.label,
          };
    if (shown) log.info(`Imported recording: ${shown.note}.`);
    // The model named is the one the counts and the gauge use (a recording's own), not only the agent's.
    log.info(
      openingLine({
        model: measured.model,
        encoding: counter.encoding,
        recorded: recording !== undefined && measured.model === recording.model,
        agentModel: source.model,
        endpoint:
          settings.modelSource === 'vscode'
            ? ' from VS Code'
            : settings.baseUrl
              ? ` at ${redactUrl(settings.baseUrl) ?? '(invalid URL)'}`
              : '',
        summaries: (source.summarizer ?? summarizer).name,
      }),
    );
    return ContextService.open({
      client: source.client,
      model: measured.model,
      budget: budgetOf(settings, measured),
      windowSource: measured.label,
      ...(recording?.promptTokens !== undefined ? { recordedPromptTokens: recording.promptTokens } : {}),
      // An imported recording is inspected, not continued: counted as the command line's `meter` counts it.
      ...(recording ? { countsRecording: true } : {}),
      host: toolHost(context, apiKey),
      summarizer: source.summarizer ?? summarizer,
      storageDir,
      sessionId,
      keepRecentSteps: settings.keepRecentSteps,
      userBudget: settings.userBudget,
      summaryBudget: settings.summaryBudget,
      reattachBudget: settings.reattachBudget,
      reattachMaxFiles: settings.reattachMaxFiles,
      maxSummaryCalls: settings.maxSummaryCalls,
      maxImagesPerRequest: settings.maxImagesPerRequest || undefined,
      tokenCounter: counter,
      autoApprove: settings.tools.autoApprove ? { edits: true, commands: true } : undefined,
      confirmCompactRestored: async (info) => {
        const n = (x: number) => x.toLocaleString('en-US');
        const answer = await vscode.window.showWarningMessage(
          'ContextKeeper: the restored messages do not fit the context window. Compact them again?',
          {
            modal: true,
            detail: `${info.providerRefused ? 'The provider refused the request as too long' : `The next request would carry ${n(info.used)} prompt tokens; ${n(info.inputBudget)} fit`}. ${n(info.restoredMessages)} restored messages are kept out of automatic compaction. Compact lets ContextKeeper summarize them again; otherwise the task stops and nothing is compacted.`,
          },
          'Compact',
        );
        return answer === 'Compact';
      },
      log: logSink(log),
    });
  };
}
