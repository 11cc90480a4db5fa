/**
 * ContextKeeper: Test Connection. Asks the configured endpoint what it is and which models it serves
 * with which windows, sends one tiny request to the configured model, and says what it found: a
 * notification naming the endpoint tried with the verdict (and, when it failed, Choose Endpoint /
 * Set API Key / Show Log), the whole report in the log. With VS Code's own models as the
 * source, lists the editor's chat models with their input limits instead.
 */
import * as vscode from 'vscode';
import { testConnection, type ConnectionTestResult } from '../../models/test-connection';
import { selectLmModel } from '../../models/lm/client';
import type { LmApi } from '../../models/lm/api';
import { Commands } from './command-ids';
import { connectionVerdict, type ConnectionReport } from '../notices';
import { notify } from '../notify';
import { WALKTHROUGH_KEYS } from '../onboarding';
import { errorMessage } from '../../format/error-message';
import { formatTokensFull } from '../../format/tokens';

/** What the command reads; supplied by the composition root. */
export interface TestConnectionDeps {
  /** Endpoint settings now in force. `source: 'vscode'` means VS Code's language models. */
  endpoint(): { modelSource: 'endpoint' | 'vscode'; baseUrl: string; model: string; contextWindow: number };
  apiKey(): Promise<string | undefined>;
  log: vscode.LogOutputChannel;
}

/** Lines about the editor's chat models, and whether the configured one is there. */
async function testEditorModels(model: string): Promise<ConnectionReport> {
  const api: LmApi = vscode;
  const models = await vscode.lm.selectChatModels();
  const lines = [`VS Code offers ${models.length} chat model${models.length === 1 ? '' : 's'}.`];
  for (const m of models)
    lines.push(`  ${m.vendor}/${m.family} (${m.id}): ${formatTokensFull(m.maxInputTokens)} input tokens`);
  try {
    const chosen = await selectLmModel(api, model);
    const modelLine = `Model ${model || '(first offered)'}: ${chosen.name}, ${formatTokensFull(chosen.maxInputTokens)} tokens, reported by VS Code.`;
    lines.push(modelLine);
    return { ok: true, lines, modelLine };
  } catch (error) {
    lines.push(errorMessage(error));
    return { ok: false, lines };
  }
}

/**
 * Runs the test with progress and reports it. Resolves to the result (tests and the welcome view use it).
 * With no endpoint chosen and no API key stored (the setup the welcome view asks for), nothing is
 * sent: the OpenAI default cannot answer without a key, so the user is told no endpoint is chosen
 * and offered Choose Endpoint and Set API Key; resolves to undefined then.
 */
export async function runTestConnection(deps: TestConnectionDeps): Promise<ConnectionReport | undefined> {
  const settings = deps.endpoint();
  if (settings.modelSource === 'endpoint' && !settings.baseUrl.trim() && !(await deps.apiKey())) {
    deps.log.info('Test connection: no endpoint chosen and no API key stored; nothing sent.');
    const choice = await vscode.window.showInformationMessage(
      'ContextKeeper: no endpoint is chosen yet (OpenAI, the default, needs an API key).',
      'Choose Endpoint',
      'Set API Key',
    );
    if (choice === 'Choose Endpoint') void vscode.commands.executeCommand(Commands.pickEndpoint);
    if (choice === 'Set API Key') void vscode.commands.executeCommand(Commands.setApiKey);
    return undefined;
  }
  const result = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: 'ContextKeeper: testing the connection',
      cancellable: true,
    },
    async (_progress, token): Promise<ConnectionReport | undefined> => {
      const controller = new AbortController();
      const sub = token.onCancellationRequested(() => controller.abort());
      try {
        if (settings.modelSource === 'vscode') return await testEditorModels(settings.model);
        const r: ConnectionTestResult = await testConnection({
          baseUrl: settings.baseUrl,
          model: settings.model,
          apiKey: await deps.apiKey(),
          contextWindow: settings.contextWindow,
          signal: controller.signal,
        });
        return r;
      } catch (error) {
        if (controller.signal.aborted) return undefined;
        return {
          ok: false,
          lines: [`The test stopped: ${errorMessage(error)}`],
          failure: { kind: 'unknown' },
        };
      } finally {
        sub.dispose();
      }
    },
  );
  if (!result) return undefined;
  // The walkthrough's test step (see WALKTHROUGH_KEYS): the endpoint answered the test request.
  if (result.ok) void vscode.commands.executeCommand('setContext', WALKTHROUGH_KEYS.connectionTested, true);
  deps.log.info(
    `Test connection (${settings.modelSource === 'vscode' ? 'VS Code language models' : settings.baseUrl.trim() || 'no endpoint chosen: the OpenAI default'}):\n${result.lines.join('\n')}`,
  );
  const key = await deps.apiKey();
  const verdict = connectionVerdict(result, settings.modelSource, settings.baseUrl, !!key);
  // Either verdict offers one "Show Details" (the log with the whole report), not a second one from
  // notify; a failure is an error notice, whose longer toast keeps the status and the server's message.
  const choice = await notify(result.ok ? 'info' : 'error', verdict.text, verdict.actions, deps.log);
  if (choice === 'Show Details' || choice === 'Show Log') deps.log.show(true);
  if (choice === 'Choose Endpoint') void vscode.commands.executeCommand(Commands.pickEndpoint);
  if (choice === 'Set API Key') void vscode.commands.executeCommand(Commands.setApiKey);
  return result;
}
