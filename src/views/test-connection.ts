/**
 * ContextKeeper: Test Connection. Asks the configured endpoint what it is and which models it serves
 * with which windows, sends one tiny request to the configured model, and says what it found: a
 * notification with the verdict, the whole report in the log. With VS Code's own models as the
 * source, lists the editor's chat models with their input limits instead.
 */
import * as vscode from 'vscode';
import { testConnection, type ConnectionTestResult } from '../models/testConnection';
import { selectLmModel } from '../models/lm/client';
import type { LmApi } from '../models/lm/api';

/** What the command reads; supplied by the composition root. */
export interface TestConnectionDeps {
  /** Endpoint settings now in force. `source: 'vscode'` means VS Code's language models. */
  endpoint(): { source: 'endpoint' | 'vscode'; baseUrl: string; model: string; contextWindow: number };
  apiKey(): Promise<string | undefined>;
  log: vscode.LogOutputChannel;
}

/** Lines about the editor's chat models, and whether the configured one is there. */
async function testEditorModels(model: string): Promise<{ ok: boolean; lines: string[] }> {
  const api: LmApi = vscode;
  const models = await vscode.lm.selectChatModels();
  const lines = [`VS Code offers ${models.length} chat model${models.length === 1 ? '' : 's'}.`];
  for (const m of models) lines.push(`  ${m.vendor}/${m.family} (${m.id}): ${m.maxInputTokens.toLocaleString('en-US')} input tokens`);
  try {
    const chosen = await selectLmModel(api, model);
    lines.push(`Model ${model || '(first offered)'}: ${chosen.name}, ${chosen.maxInputTokens.toLocaleString('en-US')} tokens, reported by VS Code.`);
    return { ok: true, lines };
  } catch (error) {
    lines.push(error instanceof Error ? error.message : String(error));
    return { ok: false, lines };
  }
}

/** Runs the test with progress and reports it. Resolves to the result (tests and the welcome view use it). */
export async function runTestConnection(deps: TestConnectionDeps): Promise<{ ok: boolean; lines: string[] } | undefined> {
  const settings = deps.endpoint();
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'ContextKeeper: testing the connection', cancellable: true },
    async (_progress, token): Promise<{ ok: boolean; lines: string[] } | undefined> => {
      const controller = new AbortController();
      const sub = token.onCancellationRequested(() => controller.abort());
      try {
        if (settings.source === 'vscode') return await testEditorModels(settings.model);
        const r: ConnectionTestResult = await testConnection({ baseUrl: settings.baseUrl, model: settings.model, apiKey: await deps.apiKey(), contextWindow: settings.contextWindow, signal: controller.signal });
        return r;
      } catch (error) {
        if (controller.signal.aborted) return undefined;
        return { ok: false, lines: [`The test stopped: ${error instanceof Error ? error.message : String(error)}`] };
      } finally {
        sub.dispose();
      }
    },
  );
  if (!result) return undefined;
  deps.log.info(`Test connection:\n${result.lines.join('\n')}`);
  const summary = result.lines.find((l) => /^Model /.test(l)) ?? result.lines[0];
  const verdict = result.ok ? `Connection works. ${summary}` : `Connection problem. ${result.lines.at(-1) ?? ''}`;
  const choice = await (result.ok ? vscode.window.showInformationMessage(verdict, 'Show Details') : vscode.window.showWarningMessage(verdict, 'Show Details'));
  if (choice === 'Show Details') deps.log.show(true);
  return result;
}
