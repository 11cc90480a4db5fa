/**
 * Objects the fake `window` and `workspace` hand out: status bar items, log output channels, text
 * documents and the editor tabs (diff editors opened by `vscode.diff`). Each registers itself in
 * {@link host} while alive, so a test sees what deactivation left behind.
 */
import type * as vscode from 'vscode';
import { EventEmitter, LogLevel, TabInputText, TabInputTextDiff } from './core';
import { host } from './host';

/** A status bar item: what it shows, whether it is shown, and its registration while not disposed. */
export class FakeStatusBarItem implements vscode.StatusBarItem {
  name: string | undefined;
  text = '';
  tooltip: string | vscode.MarkdownString | undefined;
  color: string | vscode.ThemeColor | undefined;
  backgroundColor: vscode.ThemeColor | undefined;
  command: string | vscode.Command | undefined;
  accessibilityInformation: vscode.AccessibilityInformation | undefined;
  visible = false;
  private readonly registration: vscode.Disposable;

  constructor(
    readonly id: string,
    readonly alignment: vscode.StatusBarAlignment = 1,
    readonly priority: number | undefined = undefined,
  ) {
    this.registration = host.register('status-bar-item', id, this);
  }

  show(): void {
    this.visible = true;
  }

  hide(): void {
    this.visible = false;
  }

  dispose(): void {
    this.visible = false;
    this.registration.dispose();
  }
}

/** A log output channel that keeps its lines (`[info] text`) for assertions. */
export class FakeLogChannel implements vscode.LogOutputChannel {
  readonly lines: string[] = [];
  readonly logLevel = LogLevel.Trace;
  private readonly levelEmitter = new EventEmitter<vscode.LogLevel>();
  readonly onDidChangeLogLevel = this.levelEmitter.event;
  private readonly registration: vscode.Disposable;

  constructor(readonly name: string) {
    this.registration = host.register('output-channel', name, this);
  }

  trace(message: string): void {
    this.lines.push(`[trace] ${message}`);
  }
  debug(message: string): void {
    this.lines.push(`[debug] ${message}`);
  }
  info(message: string): void {
    this.lines.push(`[info] ${message}`);
  }
  warn(message: string): void {
    this.lines.push(`[warn] ${message}`);
  }
  /** Formats as VS Code's log does: the message and each argument, an Error by its message, joined by spaces. */
  error(error: string | Error, ...args: unknown[]): void {
    const text = [error, ...args].map((part) =>
      part instanceof Error ? part.message : typeof part === 'string' ? part : JSON.stringify(part),
    );
    this.lines.push(`[error] ${text.join(' ')}`);
  }
  append(value: string): void {
    this.lines.push(value);
  }
  appendLine(value: string): void {
    this.lines.push(value);
  }
  replace(value: string): void {
    this.lines.splice(0, this.lines.length, value);
  }
  clear(): void {
    this.lines.length = 0;
  }
  show(): void {
    host.executed.push({ id: 'output.show', args: [this.name] });
  }
  hide(): void {}
  dispose(): void {
    this.levelEmitter.dispose();
    this.registration.dispose();
  }
}

/** The parts of a text document the fake models. */
type DocumentParts = Pick<
  vscode.TextDocument,
  'uri' | 'fileName' | 'isUntitled' | 'languageId' | 'version' | 'isDirty' | 'isClosed' | 'lineCount' | 'getText'
>;

/** A read-only text document with the text it was opened with (only {@link DocumentParts} are there). */
export class FakeTextDocument implements DocumentParts {
  readonly fileName: string;
  readonly isUntitled: boolean;
  readonly version = 1;
  readonly isDirty = false;
  readonly isClosed = false;
  readonly lineCount: number;

  constructor(
    readonly uri: vscode.Uri,
    private readonly text: string,
    readonly languageId: string,
  ) {
    this.fileName = uri.fsPath;
    this.isUntitled = uri.scheme === 'untitled';
    this.lineCount = text.split('\n').length;
  }

  getText(): string {
    return this.text;
  }

  /** This document where the API wants a whole `TextDocument` (the extension uses only {@link DocumentParts}). */
  asDocument(): vscode.TextDocument {
    return this as unknown as vscode.TextDocument;
  }
}

/** One tab of the single editor group. */
interface FakeTab {
  label: string;
  input: unknown;
  group: FakeGroup;
  isActive: boolean;
}

interface FakeGroup {
  tabs: FakeTab[];
  activeTab: FakeTab | undefined;
  isActive: boolean;
}

const group: FakeGroup = { tabs: [], activeTab: undefined, isActive: true };

/** `window.tabGroups` with one group; diff editors and text editors open as tabs, the newest active. */
export const tabGroups = {
  get all(): FakeGroup[] {
    return [group];
  },
  get activeTabGroup(): FakeGroup {
    return group;
  },
  async close(tabs: FakeTab | FakeTab[]): Promise<boolean> {
    for (const tab of Array.isArray(tabs) ? tabs : [tabs]) {
      group.tabs = group.tabs.filter((t) => t !== tab);
      if (group.activeTab === tab) group.activeTab = group.tabs.at(-1);
    }
    return true;
  },
  openDiff(original: vscode.Uri, modified: vscode.Uri, title: string): void {
    this.activate({ label: title, input: new TabInputTextDiff(original, modified), group, isActive: true });
  },
  openText(uri: vscode.Uri, label?: string): void {
    this.activate({
      label: label ?? uri.path.split('/').pop() ?? uri.path,
      input: new TabInputText(uri),
      group,
      isActive: true,
    });
  },
  activate(tab: FakeTab): void {
    for (const t of group.tabs) t.isActive = false;
    group.tabs.push(tab);
    group.activeTab = tab;
  },
  /** Closes every tab (between tests). */
  reset(): void {
    group.tabs = [];
    group.activeTab = undefined;
  },
};
