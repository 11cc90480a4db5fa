/**
 * The agent's model for one session: the OpenAI-compatible endpoint of the settings, or a chat model
 * VS Code offers (`vscode.lm`). Resolves the context window the session measures against (asking
 * the endpoint, or the editor model's input limit; the user's setting wins), the reply reserve, and
 * a label saying where the window came from. Runs when a session opens, which happens again whenever
 * the model or endpoint settings change.
 */
import { boundedFetch } from '../models/bounded-fetch';
import { withApiPath } from '../models/http';
import { sharedFetchWorker } from '../models/worker-fetch';
import * as vscode from 'vscode';
import OpenAI from 'openai';
import type { ChatClient } from '../agent/session';
import type { Summarizer } from '../compaction/types';
import type { LmApi } from '../models/lm/api';
import { LanguageModelClient, selectLmModel } from '../models/lm/client';
import { describeWindow, replyReserve, WarnOnce, type ResolvedWindow } from '../models/resolve';
import { editorModelWindow, sessionWindow } from '../models/session';
import { ExtractiveSummarizer } from '../compaction/summary/extractive';
import { FallbackSummarizer } from '../summarizers/fallback';
import { lineAdditiveOption } from '../summarizers/from-options';
import { OpenAISummarizer } from '../summarizers/openai';
import { describeWindowOrigin, type ContextKeeperSettings } from '../settings/settings';
import { notify } from '../views/notify';

/** Placeholder key for servers that want none (local OpenAI-compatible servers ignore it). */
const NO_KEY = 'not-set';

/** What the service factory needs from the model source. */
export interface ModelSource {
  client: ChatClient;
  /** Model id as requests name it. */
  model: string;
  window: ResolvedWindow & { inputOnly?: boolean };
  /** Output tokens to reserve: the setting, capped by the model's output limit; 0 for an input-only window. */
  reservedOutput: number;
  /** "32,768 tokens, reported by the server", for the gauge and the log. */
  label: string;
  /** A summarizer over the editor's models when one is configured for them. */
  summarizer?: Summarizer;
}

/** Warnings already shown in this window of VS Code (a setting above the served window is said once). */
const warned = new WarnOnce();

/**
 * Opens the model source of `settings`. Window warnings are logged each time and shown as a toast once
 * per window of VS Code, or once ever per endpoint, model and warning when `shownBefore` (globalState)
 * is given. Throws with a plain message when an editor model cannot be had.
 */
export async function openModelSource(
  settings: ContextKeeperSettings,
  apiKey: string | undefined,
  log: vscode.LogOutputChannel,
  countText: (text: string) => number,
  lineAdditive?: () => boolean,
  shownBefore?: vscode.Memento,
): Promise<ModelSource> {
  let source: Omit<ModelSource, 'label' | 'reservedOutput'>;
  if (settings.modelSource === 'vscode') {
    const api: LmApi = vscode;
    const chat = await selectLmModel(api, settings.model);
    const client = new LanguageModelClient({
      api,
      model: chat,
      justification: 'ContextKeeper runs its coding agent with this model.',
    });
    source = { client, model: chat.id, window: editorModelWindow(chat, settings.contextWindow) };
    if (settings.summary.model && !settings.summary.baseUrl) {
      const summaryChat = await selectLmModel(api, settings.summary.model);
      const summaryClient =
        summaryChat === chat
          ? client
          : new LanguageModelClient({
              api,
              model: summaryChat,
              justification: 'ContextKeeper writes summaries of older conversation with this model.',
            });
      const primary = new OpenAISummarizer({
        baseURL: 'https://vscode.lm.invalid/v1',
        model: summaryChat.id,
        contextWindow: settings.summary.contextWindow || summaryChat.maxInputTokens,
        client: summaryClient as unknown as OpenAI,
        instruction: settings.summary.instruction || undefined,
        countText,
        stream: true,
        // Another editor model (often another vendor's) has not seen the transcript: mask what it is sent.
        maskSecrets: summaryChat !== chat,
        log: (line) => log.debug(line),
      });
      source.summarizer = new FallbackSummarizer(primary, {
        extractive: new ExtractiveSummarizer(countText, lineAdditiveOption(lineAdditive)),
      });
    }
    log.info(`Model from VS Code: ${chat.name} (${chat.vendor}/${chat.family}), ${chat.maxInputTokens} input tokens.`);
  } else {
    // Streamed events are bounded in size before the SDK buffers them (`bounded-fetch.ts`); the HTTP
    // work runs in the process's HTTP worker where the policy set in ./root allows (`worker-fetch.ts`).
    const client = new OpenAI({
      // A bare server address gets /v1, as Test Connection and the model list call it (`withApiPath`).
      baseURL: settings.baseUrl ? withApiPath(settings.baseUrl) : undefined,
      apiKey: apiKey ?? NO_KEY,
      maxRetries: 1,
      fetch: boundedFetch(sharedFetchWorker().fetch),
    });
    const window = await sessionWindow({
      baseUrl: settings.baseUrl,
      model: settings.model,
      apiKey,
      setting: settings.contextWindow,
    });
    source = { client, model: settings.model, window };
  }
  const label = describeWindow(source.window, describeWindowOrigin(settings.contextWindowOrigin));
  log.info(`Context window of ${source.model}: ${label}.`);
  for (const warning of warned.filter(source.window.warnings)) {
    log.warn(warning);
    // A toast once per endpoint, model and warning, across window loads: the served window does not
    // change by reloading, and the log keeps the warning every time.
    if (
      shownBefore &&
      !firstShowing(shownBefore, `${settings.modelSource}|${settings.baseUrl}|${source.model}|${warning}`)
    )
      continue;
    void warnAboutWindow(warning, log);
  }
  // An editor model's limit is input only: its reply does not share the window.
  const reservedOutput = source.window.inputOnly ? 0 : replyReserve(settings.maxOutputTokens, source.window);
  return { ...source, label, reservedOutput };
}

/** Where window warnings already shown are remembered (globalState), newest last, at most {@link SHOWN_KEPT}. */
const SHOWN_KEY = 'contextKeeper.windowWarningsShown';
const SHOWN_KEPT = 100;

/** True the first time `key` is seen in `memento` (and remembers it); false ever after. */
function firstShowing(memento: vscode.Memento, key: string): boolean {
  const shown = memento.get<string[]>(SHOWN_KEY, []);
  if (shown.includes(key)) return false;
  void memento.update(SHOWN_KEY, [...shown, key].slice(-SHOWN_KEPT));
  return true;
}

/** The setting a window warning can point to. */
const WINDOW_SETTING = 'contextKeeper.contextWindow';
/** The button that opens {@link WINDOW_SETTING} in the Settings editor. */
const OPEN_SETTING = 'Open Setting';

/**
 * Shows a window warning; one that names the window setting (no window known, a setting above the
 * model's limit) gets a button that opens that setting, so the fix is one click away.
 */
async function warnAboutWindow(warning: string, log: vscode.LogOutputChannel): Promise<void> {
  const actions = warning.includes(WINDOW_SETTING) ? [OPEN_SETTING] : [];
  const choice = await notify('warning', `ContextKeeper: ${warning}`, actions, log);
  if (choice === OPEN_SETTING) await vscode.commands.executeCommand('workbench.action.openSettings', WINDOW_SETTING);
}
