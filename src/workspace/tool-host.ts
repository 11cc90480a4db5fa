/**
 * The agent's workspace access inside VS Code. Searching and listing use VS Code's APIs
 * (`workspace.findFiles` respects `files.exclude`). Reads, writes, shell commands and symlink resolution
 * use the Node host, which checks the workspace boundary on the opened file (no VS Code API can).
 */
import * as vscode from 'vscode';
import { NodeToolHost } from '../agent/node-host';
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

  /** @param secrets keys kept out of commands' environments (see `NodeToolHost`). */
  constructor(folder: vscode.Uri, secrets?: () => readonly (string | undefined)[]) {
    this.folder = folder;
    this.node = new NodeToolHost(folder.fsPath, { secrets });
  }

  get root(): string {
    return this.node.root;
  }

  realpath(absPath: string): Promise<string> {
    return this.node.realpath(absPath);
  }

  readlink(absPath: string): Promise<string | undefined> {
    return this.node.readlink(absPath);
  }

  // Reads and writes go through the Node host: it checks the real path of the opened file at the moment
  // of the write and refuses pipes and devices, which vscode.workspace.fs cannot do. File watchers still
  // see the change on disk.
  readFile(absPath: string): Promise<string> {
    return this.node.readFile(absPath);
  }

  writeFile(absPath: string, content: string): Promise<void> {
    return this.node.writeFile(absPath, content);
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
      const uris = await vscode.workspace.findFiles(
        new vscode.RelativePattern(this.folder, glob),
        EXCLUDE,
        maxResults,
        source.token,
      );
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
