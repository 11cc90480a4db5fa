/**
 * First run: the "Get Started" view (an empty tree whose `viewsWelcome` content package.json
 * contributes, shown while `contextKeeper.needsSetup` is true), the context keys the manifest's
 * `when` clauses read, and the endpoint picker (OpenAI, a local server found on its default port,
 * or any OpenAI-compatible URL).
 */
import * as vscode from 'vscode';
import { discoverEndpoint } from '../models/discover';
import { withApiPath } from '../models/http';
import { Commands } from './commands/command-ids';
import { endpointChosenNotice } from './notices';
import { checkEndpoint } from './commands/endpoint-check';
import { changeSettingsTogether } from '../settings/settings';

/** Local OpenAI-compatible servers and their default base URLs (from each project's documentation). */
export const LOCAL_SERVERS: ReadonlyArray<{ name: string; url: string }> = [
  { name: 'Ollama', url: 'http://127.0.0.1:11434/v1' },
  { name: 'LM Studio', url: 'http://127.0.0.1:1234/v1' },
  { name: 'llama.cpp server', url: 'http://127.0.0.1:8080/v1' },
  { name: 'vLLM', url: 'http://127.0.0.1:8000/v1' },
];

/** The OpenAI API's base URL (what an empty `contextKeeper.baseUrl` means). */
export const OPENAI_URL = 'https://api.openai.com/v1';

/** A model a server lists, with its window in tokens when known. */
type LocalModel = { id: string; window: number | null };

/**
 * The models a server at `baseUrl` serves, with their windows when it says (through the project's
 * endpoint discovery); undefined when nothing answers within `timeoutMs`.
 */
export async function listModels(baseUrl: string, timeoutMs = 800): Promise<LocalModel[] | undefined> {
  try {
    const report = await discoverEndpoint(baseUrl, { timeoutMs });
    return report.kind === 'unknown' && report.models.length === 0
      ? undefined
      : report.models.map((m) => ({ id: m.id, window: m.window }));
  } catch {
    return undefined;
  }
}

/** True when `url` names this machine (a local server, which needs no API key). */
export function isLoopback(url: string): boolean {
  try {
    return ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** True when `text` is an http(s) URL. */
export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** A row of the endpoint picker. */
export interface EndpointPick extends vscode.QuickPickItem {
  url?: string;
  models?: Array<{ id: string; window: number | null }>;
  custom?: boolean;
}

/**
 * The rows of the endpoint picker for the probed local servers (`models` undefined when nothing
 * answered): the running servers first, so the first of them is preselected, then OpenAI, the servers
 * not running, and "Other URL…".
 */
export function endpointItems(
  probes: ReadonlyArray<{ name: string; url: string; models?: Array<{ id: string; window: number | null }> }>,
): EndpointPick[] {
  const local: EndpointPick[] = probes.map((p) => ({
    label: `$(server) ${p.name}`,
    description: p.url,
    detail: p.models
      ? `Running: ${p.models.length} model(s)${
          p.models.length
            ? `, e.g. ${p.models
                .slice(0, 3)
                .map((m) => m.id)
                .join(', ')}`
            : ''
        }.`
      : 'Not running on this machine.',
    url: p.url,
    models: p.models,
  }));
  // A server running here comes first, so it is the one preselected.
  return [
    ...local.filter((item) => item.models),
    { label: '$(globe) OpenAI', description: OPENAI_URL, detail: 'Needs an API key.', url: '' },
    ...local.filter((item) => !item.models),
    {
      label: '$(link) Other OpenAI-compatible URL…',
      detail: 'A gateway, a hosted provider or a server elsewhere.',
      custom: true,
    },
  ];
}

/**
 * The model to use at `url`: asks among `models` (what the server lists; the configured model
 * `current` first when it is served there). Resolves to `{ model }`: the one chosen, or undefined to
 * keep the configured one (the server lists no models, or the user escaped while it serves
 * `current`); undefined (give up, nothing written) when the user escaped a list without `current`.
 */
async function askModel(
  url: string,
  models: readonly LocalModel[] | undefined,
  current: string,
): Promise<{ model: string | undefined } | undefined> {
  if (!models || models.length === 0) return { model: undefined };
  const picks = models.map((m) => ({
    label: m.id,
    description: m.window ? `${Math.round(m.window / 1000)}k-token window` : undefined,
  }));
  // The model already configured comes first when this server serves it.
  picks.sort((a, b) => Number(b.label === current) - Number(a.label === current));
  const model = await vscode.window.showQuickPick(picks, {
    title: 'Choose the Model',
    placeHolder: `Models served at ${url}`,
  });
  if (model) return { model: model.label };
  // Escaping keeps the configured model when this server serves it (a pair that works, nothing to
  // warn about); otherwise the endpoint would go with a model it does not serve: nothing is written.
  return models.some((m) => m.id === current) ? { model: undefined } : undefined;
}

/**
 * The "Other URL…" path: asks for the URL, then the model there (see {@link askModel}), then checks
 * the pair as Test Connection does (see {@link checkEndpoint}): the test request and the window
 * lookup use the model being chosen and the `contextKeeper.contextWindow` setting, not the model
 * configured before. When nothing answers there, says so and offers to keep it anyway or to enter
 * another. Resolves to the URL and model to save, or undefined when the user gave up (nothing saved).
 */
async function askCustomUrl(
  log: vscode.LogOutputChannel,
): Promise<{ url: string; models: LocalModel[] | undefined; model: string | undefined } | undefined> {
  const config = vscode.workspace.getConfiguration('contextKeeper');
  const current = config.get<string>('model', '');
  let value: string | undefined;
  for (;;) {
    const typed = await vscode.window.showInputBox({
      title: 'OpenAI-Compatible Base URL',
      prompt: 'Base URL of the API, usually ending in /v1',
      placeHolder: 'http://127.0.0.1:11434/v1',
      value,
      ignoreFocusOut: true,
      validateInput: (text) => (isHttpUrl(text.trim()) ? undefined : 'Enter an http:// or https:// URL.'),
    });
    if (typed === undefined) return undefined;
    // A bare server address gets the API's /v1: saved as every call will use it (test, models, tasks).
    const url = withApiPath(typed);
    if (url !== typed.trim()) log.info(`Base URL ${typed.trim()} names no API path; saved as ${url}.`);
    const models = await listModels(url, 2000);
    const picked = await askModel(url, models, current);
    if (!picked) return undefined;
    const model = picked.model ?? current;
    const check = await checkEndpoint(url, model, config.get<number>('contextWindow', 0));
    if (!check) return undefined;
    log.info(`Checked ${url} before saving it:\n${check.lines.join('\n')}`);
    if (check.reachable) return { url, models, model: picked.model };
    const answer = await vscode.window.showWarningMessage(
      `ContextKeeper: nothing answers at ${url}. Keep it anyway?`,
      {
        modal: true,
        detail: `${check.lines.at(-1) ?? 'No answer.'} Keep it if the server is not started yet; requests fail until it answers.`,
      },
      'Keep Anyway',
      'Enter Another URL',
    );
    if (answer === 'Keep Anyway') return { url, models, model: picked.model };
    if (answer !== 'Enter Another URL') return undefined;
    value = url;
  }
}

/**
 * `contextKeeper.pickEndpoint`: lists the local servers that answer on their default port (probed in
 * parallel, under a second; a running one first, so preselected), OpenAI, and "Other URL…"; then the
 * model when the server lists some (the configured one first; escaping keeps it when the server
 * serves it). Writes `contextKeeper.baseUrl` and the model to the user settings as one change and
 * says so in one notification. Returns the chosen base URL (undefined when the user escaped, or
 * escaped the model of a server that does not serve the configured one: nothing is written then).
 */
export async function pickEndpoint(log: vscode.LogOutputChannel): Promise<string | undefined> {
  const probes = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: 'ContextKeeper: looking for local model servers' },
    () => Promise.all(LOCAL_SERVERS.map(async (server) => ({ ...server, models: await listModels(server.url) }))),
  );
  const items = endpointItems(probes);
  const choice = await vscode.window.showQuickPick(items, {
    title: 'Choose the Model Endpoint',
    placeHolder: 'Where the agent sends its requests',
    matchOnDetail: true,
  });
  if (!choice) return undefined;
  const config = vscode.workspace.getConfiguration('contextKeeper');
  const current = config.get<string>('model', '');
  // The model is chosen before anything is written (for a typed URL, before it is checked).
  const picked = choice.custom
    ? await askCustomUrl(log)
    : await askModel(choice.url ?? '', choice.models, current).then(
        (m) => m && { url: choice.url, models: choice.models, model: m.model },
      );
  if (!picked) return undefined;
  const { url, models, model: chosenModel } = picked;
  // Endpoint and model are announced as one change: the session reopens once, on what was chosen.
  await changeSettingsTogether(async () => {
    await config.update('baseUrl', url, vscode.ConfigurationTarget.Global);
    if (chosenModel) await config.update('model', chosenModel, vscode.ConfigurationTarget.Global);
  });
  log.info(`Endpoint set to ${url || OPENAI_URL}${chosenModel ? `, model ${chosenModel}` : ''}.`);
  // Ticks the walkthrough's endpoint step however this ran: VS Code sees only commands run from its
  // own UI (palette, links), not those the extension runs itself (notification and sidebar buttons).
  void vscode.commands.executeCommand('setContext', WALKTHROUGH_KEYS.endpointChosen, true);
  // Say where requests go now, with the next steps (a hosted endpoint usually needs a key).
  void vscode.window
    .showInformationMessage(
      endpointChosenNotice(url ?? '', chosenModel ?? (models?.length ? current : undefined)),
      // eslint-disable-next-line no-restricted-syntax -- bounded: one or two buttons
      ...(isLoopback(url ?? '') ? ['Test Connection'] : ['Test Connection', 'Set API Key']),
    )
    .then((action) => {
      if (action === 'Test Connection') void vscode.commands.executeCommand(Commands.testConnection);
      if (action === 'Set API Key') void vscode.commands.executeCommand(Commands.setApiKey);
    });
  return url;
}

/** The "Get Started" view: always empty, so VS Code shows its welcome content. */
class EmptyTree implements vscode.TreeDataProvider<never> {
  getTreeItem(element: never): vscode.TreeItem {
    return element;
  }
  getChildren(): never[] {
    return [];
  }
}

/**
 * Context keys the walkthrough's `completionEvents` watch (`onContext:`), set once the step succeeded.
 * Not a command event: VS Code counts a command only when its own UI ran it, and running it proves
 * nothing (a test may fail). VS Code's walkthrough service ticks a step when the key turns true, or at
 * its registration when the key is already true; so these start unset and are set only on success.
 */
export const WALKTHROUGH_KEYS = {
  endpointChosen: 'contextKeeper.endpointChosen',
  connectionTested: 'contextKeeper.connectionTested',
  /** A task ran to its end (not failed, cancelled or cut at the step limit). */
  taskCompleted: 'contextKeeper.taskCompleted',
} as const;

/** The context keys the manifest's `when` clauses read; set only when a value changes. */
export class ContextKeys implements vscode.Disposable {
  private readonly values = new Map<string, unknown>();
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.window.registerTreeDataProvider('contextKeeper.welcome', new EmptyTree());
  }

  /** Sets `contextKeeper.<key>` for each entry that changed. */
  update(values: Record<string, string | boolean>): void {
    for (const [key, value] of Object.entries(values)) {
      if (this.values.get(key) === value) continue;
      this.values.set(key, value);
      void vscode.commands.executeCommand('setContext', `contextKeeper.${key}`, value);
    }
  }

  dispose(): void {
    this.registration.dispose();
  }
}
