/**
 * The value types of the `vscode` fake: events, disposables, URIs (VS Code's own implementation, from
 * the `vscode-uri` package), enums and the small classes the extension constructs. Each class
 * implements the real interface from @types/vscode, so a drift from the API fails the type-check.
 */
import type * as vscode from 'vscode';
import { URI, Utils } from 'vscode-uri';

/** Emitters created and not yet disposed, so a test can see that deactivation released them. */
export const liveEmitters = new Set<EventEmitter<unknown>>();

/** VS Code's event emitter: listeners in order, each returns a disposable; `dispose` drops them all. */
export class EventEmitter<T> implements vscode.EventEmitter<T> {
  private listeners: Array<(value: T) => unknown> = [];

  constructor() {
    liveEmitters.add(this as EventEmitter<unknown>);
  }

  /** Listeners attached now (a leak check counts them). */
  get listenerCount(): number {
    return this.listeners.length;
  }

  readonly event: vscode.Event<T> = (listener, thisArgs?: unknown, disposables?: vscode.Disposable[]) => {
    const bound = (value: T) => listener.call(thisArgs, value);
    this.listeners.push(bound);
    const subscription = new Disposable(() => {
      this.listeners = this.listeners.filter((l) => l !== bound);
    });
    disposables?.push(subscription);
    return subscription;
  };

  fire(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }

  dispose(): void {
    this.listeners = [];
    liveEmitters.delete(this as EventEmitter<unknown>);
  }
}

/** VS Code's Disposable: runs its callback once. */
export class Disposable implements vscode.Disposable {
  private done = false;

  constructor(private readonly callOnDispose: () => unknown) {}

  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => items.forEach((item) => item.dispose()));
  }

  dispose(): void {
    if (this.done) return;
    this.done = true;
    this.callOnDispose();
  }
}

/** VS Code's Uri: the `vscode-uri` implementation (the editor's own code) plus `joinPath`. */
export class Uri extends URI {
  static joinPath(base: vscode.Uri, ...segments: string[]): vscode.Uri {
    return Utils.joinPath(URI.from(base), ...segments);
  }
}

export class CancellationTokenSource implements vscode.CancellationTokenSource {
  private readonly emitter = new EventEmitter<void>();
  private cancelled = false;
  readonly token: vscode.CancellationToken = {
    isCancellationRequested: false,
    onCancellationRequested: this.emitter.event,
  };

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    (this.token as { isCancellationRequested: boolean }).isCancellationRequested = true;
    this.emitter.fire();
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}

export enum ConfigurationTarget {
  Global = 1,
  Workspace = 2,
  WorkspaceFolder = 3,
}

export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}

export enum FileType {
  Unknown = 0,
  File = 1,
  Directory = 2,
  SymbolicLink = 64,
}

export enum FileChangeType {
  Changed = 1,
  Created = 2,
  Deleted = 3,
}

export enum FilePermission {
  Readonly = 1,
}

/** The errors a file system provider throws, by code (`FileNotFound`, `NoPermissions`). */
export class FileSystemError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
  static FileNotFound(uri?: unknown): FileSystemError {
    return new FileSystemError(`not found: ${String(uri)}`, 'FileNotFound');
  }
  static NoPermissions(uri?: unknown): FileSystemError {
    return new FileSystemError(`no permissions: ${String(uri)}`, 'NoPermissions');
  }
}

export enum ViewColumn {
  Active = -1,
  Beside = -2,
  One = 1,
}

export enum LogLevel {
  Off = 0,
  Trace = 1,
  Debug = 2,
  Info = 3,
  Warning = 4,
  Error = 5,
}

export class ThemeColor implements vscode.ThemeColor {
  constructor(readonly id: string) {}
}

export class ThemeIcon implements vscode.ThemeIcon {
  static readonly File = new ThemeIcon('file');
  static readonly Folder = new ThemeIcon('folder');
  constructor(
    readonly id: string,
    readonly color?: vscode.ThemeColor,
  ) {}
}

export class MarkdownString implements vscode.MarkdownString {
  isTrusted?: boolean;
  supportThemeIcons?: boolean;
  supportHtml?: boolean;
  baseUri?: vscode.Uri;
  constructor(
    public value = '',
    supportThemeIcons = false,
  ) {
    this.supportThemeIcons = supportThemeIcons;
  }
  appendText(value: string): MarkdownString {
    this.value += value.replace(/[\\`*_{}[\]()#+\-.!]/g, '\\$&');
    return this;
  }
  appendMarkdown(value: string): MarkdownString {
    this.value += value;
    return this;
  }
  appendCodeblock(value: string, language = ''): MarkdownString {
    this.value += `\n\`\`\`${language}\n${value}\n\`\`\`\n`;
    return this;
  }
}

export class TreeItem implements vscode.TreeItem {
  label?: string | vscode.TreeItemLabel;
  resourceUri?: vscode.Uri;
  id?: string;
  iconPath?: vscode.TreeItem['iconPath'];
  description?: string | boolean;
  tooltip?: string | vscode.MarkdownString;
  command?: vscode.Command;
  contextValue?: string;
  accessibilityInformation?: vscode.AccessibilityInformation;
  collapsibleState?: vscode.TreeItemCollapsibleState;
  constructor(
    labelOrUri: string | vscode.TreeItemLabel | vscode.Uri,
    collapsibleState?: vscode.TreeItemCollapsibleState,
  ) {
    if (labelOrUri instanceof URI) this.resourceUri = labelOrUri;
    else this.label = labelOrUri as string | vscode.TreeItemLabel;
    this.collapsibleState = collapsibleState;
  }
}

export class TabInputTextDiff implements vscode.TabInputTextDiff {
  constructor(
    readonly original: vscode.Uri,
    readonly modified: vscode.Uri,
  ) {}
}

export class TabInputText implements vscode.TabInputText {
  constructor(readonly uri: vscode.Uri) {}
}

export class RelativePattern implements vscode.RelativePattern {
  baseUri: vscode.Uri;
  base: string;
  constructor(
    base: vscode.WorkspaceFolder | vscode.Uri | string,
    readonly pattern: string,
  ) {
    this.baseUri = typeof base === 'string' ? Uri.file(base) : 'uri' in base ? base.uri : base;
    this.base = this.baseUri.fsPath;
  }
}

export class Position implements Pick<vscode.Position, 'line' | 'character'> {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

/** A range of positions (what `TextDocumentShowOptions.selection` takes). */
export class Range implements Pick<vscode.Range, 'start' | 'end'> {
  readonly start: vscode.Position;
  readonly end: vscode.Position;
  constructor(startLine: number, startCharacter: number, endLine: number, endCharacter: number) {
    this.start = new Position(startLine, startCharacter) as vscode.Position;
    this.end = new Position(endLine, endCharacter) as vscode.Position;
  }
}
