/**
 * The agent's workspace access inside VS Code. Files go through `vscode.workspace.fs`, so writes
 * land in open editors' documents' backing files the way VS Code expects and file watchers fire;
 * searching uses `workspace.findFiles` (respecting `files.exclude`). Shell commands and symlink
 * resolution have no VS Code API and use the Node host.
 */
import * as vscode from 'vscode';
import { NodeToolHost } from '../agent/nodeHost';
import type { CommandOutcome, DirectoryEntry, ToolHost } from '../agent/types';

const EXCLUDE = '**/{node_modules,.git,dist,out,.vscode-test}/**';

function entryType(type: vscode.FileType): DirectoryEntry['type'] {
  if (type & vscode.FileType.SymbolicLink) return 'symlink';
  if (type & vscode.FileType.Directory) return 'directory';
  if (type & vscode.FileType.File) return 'file';
  return 'other';
}

/** {@link ToolHost} over one workspace folder. */
export class WorkspaceToolHost implements ToolHost {
  private readonly node: NodeToolHost;
  private readonly folder: vscode.Uri;

  constructor(folder: vscode.Uri) {
    this.folder = folder;
    this.node = new NodeToolHost(folder.fsPath);
  }

  get root(): string {
    return this.node.root;
  }

  realpath(absPath: string): Promise<string> {
    return this.node.realpath(absPath);
  }

  async readFile(absPath: string): Promise<string> {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.file(absPath)));
  }

  async writeFile(absPath: string, content: string): Promise<void> {
    // writeFile creates missing parent folders.
    await vscode.workspace.fs.writeFile(vscode.Uri.file(absPath), new TextEncoder().encode(content));
  }

  async readDirectory(absPath: string): Promise<DirectoryEntry[]> {
    const entries = await vscode.workspace.fs.readDirectory(vscode.Uri.file(absPath));
    return entries.map(([name, type]) => ({ name, type: entryType(type) }));
  }

  async findFiles(glob: string, maxResults: number, signal?: AbortSignal): Promise<string[]> {
    const source = new vscode.CancellationTokenSource();
    const onAbort = () => source.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const uris = await vscode.workspace.findFiles(new vscode.RelativePattern(this.folder, glob), EXCLUDE, maxResults, source.token);
      return uris.map((uri) => vscode.workspace.asRelativePath(uri, false).replace(/\\/g, '/')).sort();
    } finally {
      signal?.removeEventListener('abort', onAbort);
      source.dispose();
    }
  }

  runCommand(
    command: string,
    options: { cwd: string; timeoutMs: number; maxOutputChars: number; signal?: AbortSignal },
  ): Promise<CommandOutcome> {
    return this.node.runCommand(command, options);
  }
}
