/**
 * A small typed fake of the `vscode` module for unit tests of the editor-side code. Load it in place of
 * `vscode` with `import '../support/vscode-fake/register'` before the modules under test. Each namespace
 * is checked against the real API's types (`satisfies Partial<typeof vscode.x>`); state and the user's
 * answers live in {@link host} (see ./host). What it does not model: rendering, real file watching,
 * searching (`findFiles` answers what the test says) and language features.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { CancellationTokenSource, Disposable, EventEmitter, FileType, TabInputTextDiff, Uri } from './core';
import { host, resetHost, type FakeHost } from './host';
import { FakeLogChannel, FakeStatusBarItem, FakeTextDocument, tabGroups } from './window-parts';
import { ChatMessage, LanguageModelError, TextPart, ToolCallPart, ToolResultPart } from '../../models/lm-fake';
import type { LmChat } from '../../../src/models/lm/api';

export * from './core';
export { host, type FakeHost } from './host';

/** `commands`: a registry; built-ins (`setContext`, `vscode.diff`, view focus…) are recorded in `host.executed`. */
export const commands = {
  registerCommand(command: string, callback: (...args: never[]) => unknown): vscode.Disposable {
    if (host.live('command').some((r) => r.id === command)) throw new Error(`command '${command}' already exists`);
    return host.register('command', command, callback);
  },
  async executeCommand<T = unknown>(command: string, ...rest: unknown[]): Promise<T> {
    const registered = host.live('command').find((r) => r.id === command);
    if (registered) return (await (registered.target as (...args: unknown[]) => unknown)(...rest)) as T;
    host.executed.push({ id: command, args: rest });
    if (command === 'setContext') host.contextKeys.set(rest[0] as string, rest[1]);
    if (command === 'vscode.diff') tabGroups.openDiff(rest[0] as vscode.Uri, rest[1] as vscode.Uri, rest[2] as string);
    // vscode.open(uri, options, label): the document in an editor whose tab shows the label.
    if (command === 'vscode.open') await showInEditor(rest[0] as vscode.Uri, rest[2] as string | undefined);
    return undefined as T;
  },
  async getCommands(): Promise<string[]> {
    return host.live('command').map((r) => r.id);
  },
} satisfies Partial<typeof vscode.commands>;

function messageFn(severity: 'information' | 'warning' | 'error') {
  return async <T>(message: string, ...rest: unknown[]): Promise<T | undefined> =>
    host.show(severity, message, rest) as T | undefined;
}

const visibleTextEditors: vscode.TextEditor[] = [];

/** Opens `document` in an editor; its tab shows `label` (as `vscode.open` gives one) or the file name. */
async function showInEditor(document: vscode.TextDocument | vscode.Uri, label?: string): Promise<vscode.TextEditor> {
  const doc = 'getText' in document ? document : await workspace.openTextDocument(document);
  tabGroups.openText(doc.uri, label);
  const editor = { document: doc } as vscode.TextEditor;
  visibleTextEditors.splice(0, visibleTextEditors.length, editor);
  return editor;
}

/** `window`: notifications, prompts, progress, status bar, output channels, views and tabs. */
export const window = {
  showInformationMessage: messageFn('information'),
  showWarningMessage: messageFn('warning'),
  showErrorMessage: messageFn('error'),
  async showInputBox(options?: vscode.InputBoxOptions): Promise<string | undefined> {
    const answer = host.user.input(options);
    // VS Code does not accept a value its validator rejects.
    if (answer !== undefined && options?.validateInput) {
      const problem = await options.validateInput(answer);
      if (problem)
        throw new Error(
          `the input box refused ${JSON.stringify(answer)}: ${typeof problem === 'string' ? problem : problem.message}`,
        );
    }
    return answer;
  },
  async showQuickPick<T extends vscode.QuickPickItem>(
    items: readonly T[] | Thenable<readonly T[]>,
    options?: vscode.QuickPickOptions,
  ): Promise<T | undefined> {
    const list = await items;
    return host.user.quickPick(list, options) as T | undefined;
  },
  async showOpenDialog(options?: vscode.OpenDialogOptions): Promise<vscode.Uri[] | undefined> {
    return host.user.openDialog(options);
  },
  async showSaveDialog(options?: vscode.SaveDialogOptions): Promise<vscode.Uri | undefined> {
    return host.user.saveDialog(options);
  },
  withProgress<R>(
    options: vscode.ProgressOptions,
    task: (
      progress: vscode.Progress<{ message?: string; increment?: number }>,
      token: vscode.CancellationToken,
    ) => Thenable<R>,
  ): Promise<R> {
    return host.runProgress(options, task);
  },
  createStatusBarItem(
    idOrAlignment?: string | vscode.StatusBarAlignment,
    alignmentOrPriority?: number,
    priority?: number,
  ): vscode.StatusBarItem {
    return typeof idOrAlignment === 'string'
      ? new FakeStatusBarItem(idOrAlignment, alignmentOrPriority, priority)
      : new FakeStatusBarItem('', idOrAlignment, alignmentOrPriority);
  },
  /** Always a log channel (the extension asks for `{ log: true }`). */
  createOutputChannel(name: string, _options?: string | { log: true }): vscode.LogOutputChannel {
    return new FakeLogChannel(name);
  },
  registerWebviewViewProvider(viewId: string, provider: vscode.WebviewViewProvider): vscode.Disposable {
    return host.register('webview-view', viewId, provider);
  },
  registerTreeDataProvider<T>(viewId: string, provider: vscode.TreeDataProvider<T>): vscode.Disposable {
    return host.register('tree', viewId, provider);
  },
  createTreeView<T>(viewId: string, options: vscode.TreeViewOptions<T>): vscode.TreeView<T> {
    const registration = host.register('tree', viewId, options.treeDataProvider);
    const visibility = new EventEmitter<vscode.TreeViewVisibilityChangeEvent>();
    const tree: Partial<vscode.TreeView<T>> = {
      visible: true,
      selection: [],
      onDidChangeVisibility: visibility.event,
      reveal: async () => undefined,
      dispose: () => {
        visibility.dispose();
        registration.dispose();
      },
    };
    return tree as vscode.TreeView<T>;
  },
  showTextDocument(
    document: vscode.TextDocument | vscode.Uri,
    options?: vscode.TextDocumentShowOptions | vscode.ViewColumn,
  ): Promise<vscode.TextEditor> {
    const shown = typeof options === 'number' ? { viewColumn: options } : options;
    const uri = 'getText' in document ? document.uri : document;
    host.shownDocuments.push({ uri, viewColumn: shown?.viewColumn, preview: shown?.preview });
    return showInEditor(document);
  },
  get visibleTextEditors(): readonly vscode.TextEditor[] {
    return visibleTextEditors;
  },
  tabGroups: tabGroups as unknown as vscode.TabGroups,
} satisfies Partial<typeof vscode.window>;

const contentProviders = () => host.live('content-provider');
let untitled = 0;

/** `workspace`: settings with layers, trust, folders, files on disk, and documents from content providers. */
export const workspace = {
  getConfiguration(section?: string): vscode.WorkspaceConfiguration {
    const full = (key: string) => (section ? `${section}.${key}` : key);
    const config = {
      get: (key: string, fallback?: unknown) => host.settingValue(full(key)) ?? fallback,
      has: (key: string) => host.settings.has(full(key)),
      inspect: (key: string) => {
        const layers = host.settings.get(full(key));
        return layers ? { key: full(key), ...layers } : undefined;
      },
      update: async (key: string, value: unknown, target?: vscode.ConfigurationTarget | boolean | null) => {
        host.settingUpdates.push({ key: full(key), value, target });
        host.setSetting(full(key), value, target === false || Number(target) > 1 ? 'workspaceValue' : 'globalValue');
      },
    };
    return config as vscode.WorkspaceConfiguration;
  },
  onDidChangeConfiguration: (
    listener: (e: vscode.ConfigurationChangeEvent) => unknown,
    thisArgs?: unknown,
    disposables?: vscode.Disposable[],
  ) => host.onDidChangeConfiguration.event(listener, thisArgs, disposables),
  onDidGrantWorkspaceTrust: (listener: () => unknown, thisArgs?: unknown, disposables?: vscode.Disposable[]) =>
    host.onDidGrantWorkspaceTrust.event(listener, thisArgs, disposables),
  onDidCloseTextDocument: (
    listener: (e: vscode.TextDocument) => unknown,
    thisArgs?: unknown,
    disposables?: vscode.Disposable[],
  ) => host.onDidCloseTextDocument.event(listener, thisArgs, disposables),
  onDidChangeWorkspaceFolders: (
    listener: (e: vscode.WorkspaceFoldersChangeEvent) => unknown,
    thisArgs?: unknown,
    disposables?: vscode.Disposable[],
  ) => host.onDidChangeWorkspaceFolders.event(listener, thisArgs, disposables),
  get isTrusted(): boolean {
    return host.isTrusted;
  },
  get workspaceFolders(): readonly vscode.WorkspaceFolder[] | undefined {
    return host.workspaceFolders;
  },
  registerTextDocumentContentProvider(scheme: string, provider: vscode.TextDocumentContentProvider): vscode.Disposable {
    return host.register('content-provider', scheme, provider);
  },
  registerFileSystemProvider(scheme: string, provider: vscode.FileSystemProvider): vscode.Disposable {
    return host.register('file-system', scheme, provider);
  },
  /** Documents of a registered scheme come from its provider; `file:` documents from disk; `{content}` as given. */
  async openTextDocument(
    arg?: vscode.Uri | string | { language?: string; content?: string },
  ): Promise<vscode.TextDocument> {
    if (typeof arg === 'string') arg = Uri.file(arg);
    if (arg === undefined || !('scheme' in arg)) {
      return new FakeTextDocument(
        Uri.from({ scheme: 'untitled', path: `/Untitled-${++untitled}` }),
        arg?.content ?? '',
        arg?.language ?? 'plaintext',
      ).asDocument();
    }
    const uri = arg;
    const provider = contentProviders().find((r) => r.id === uri.scheme)?.target as
      vscode.TextDocumentContentProvider | undefined;
    if (provider)
      return new FakeTextDocument(
        uri,
        (await provider.provideTextDocumentContent(uri, new CancellationTokenSource().token)) ?? '',
        'markdown',
      ).asDocument();
    if (uri.scheme === 'file')
      return new FakeTextDocument(uri, await fs.readFile(uri.fsPath, 'utf8'), 'plaintext').asDocument();
    throw new Error(`cannot open ${uri.toString()}: no content provider for scheme ${uri.scheme}`);
  },
  async findFiles(
    include: vscode.GlobPattern,
    exclude?: vscode.GlobPattern | null,
    maxResults?: number,
    token?: vscode.CancellationToken,
  ): Promise<vscode.Uri[]> {
    return host.findFiles(include, exclude, maxResults, token);
  },
  asRelativePath(pathOrUri: string | vscode.Uri): string {
    const fsPath = typeof pathOrUri === 'string' ? pathOrUri : pathOrUri.fsPath;
    const folder = host.workspaceFolders?.find((f) => fsPath.startsWith(f.uri.fsPath + path.sep));
    return folder ? path.relative(folder.uri.fsPath, fsPath) : fsPath;
  },
  fs: {
    readFile: async (uri: vscode.Uri) => new Uint8Array(await fs.readFile(uri.fsPath)),
    writeFile: async (uri: vscode.Uri, content: Uint8Array) => fs.writeFile(uri.fsPath, content),
    delete: async (uri: vscode.Uri, options?: { recursive?: boolean }) =>
      fs.rm(uri.fsPath, { recursive: options?.recursive === true }),
    readDirectory: async (uri: vscode.Uri) =>
      (await fs.readdir(uri.fsPath, { withFileTypes: true })).map((d): [string, vscode.FileType] => [
        d.name,
        d.isSymbolicLink()
          ? FileType.SymbolicLink
          : d.isDirectory()
            ? FileType.Directory
            : d.isFile()
              ? FileType.File
              : FileType.Unknown,
      ]),
  } as unknown as vscode.FileSystem,
} satisfies Partial<typeof vscode.workspace>;

/** `env`: the clipboard only. */
export const env = {
  clipboard: {
    readText: async () => host.clipboard,
    writeText: async (value: string) => {
      host.clipboard = value;
    },
  },
} satisfies Partial<typeof vscode.env>;

/** The chat models `lm.selectChatModels` offers (set by a test). */
export const chatModels: LmChat[] = [];

/** `lm`: selection over {@link chatModels} by vendor, family, version and id, as VS Code filters. */
export const lm = {
  async selectChatModels(selector: vscode.LanguageModelChatSelector = {}): Promise<LmChat[]> {
    return chatModels.filter((m) =>
      (['vendor', 'family', 'version', 'id'] as const).every((k) => selector[k] === undefined || selector[k] === m[k]),
    );
  },
  onDidChangeChatModels: (listener: () => unknown) => new Disposable(() => void listener),
};

export const LanguageModelChatMessage = {
  User: (content: string | Array<TextPart | ToolResultPart>, name?: string) =>
    Object.assign(new ChatMessage(1, content), { name }),
  Assistant: (content: string | Array<TextPart | ToolCallPart>, name?: string) =>
    Object.assign(new ChatMessage(2, content), { name }),
};
export {
  TextPart as LanguageModelTextPart,
  ToolCallPart as LanguageModelToolCallPart,
  ToolResultPart as LanguageModelToolResultPart,
  LanguageModelError,
};
export { TabInputTextDiff };

/** A clean editor for the next test: new host state, no tabs, no chat models. */
export function resetVscodeFake(): FakeHost {
  tabGroups.reset();
  chatModels.length = 0;
  return resetHost();
}
