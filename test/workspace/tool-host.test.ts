/**
 * The agent's workspace access inside VS Code (typed `vscode` fake): listing maps VS Code's file types,
 * searching asks `workspace.findFiles` for the folder with the excludes and a limit and returns sorted
 * relative paths, an abort cancels the search, and reads and writes keep to the workspace folder.
 */
import '../support/vscode-fake/register';
import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { WorkspaceToolHost } from '../../src/workspace/tool-host';
import { host, RelativePattern, resetVscodeFake, Uri } from '../support/vscode-fake';

let root: string;
let outside: string;

beforeEach(() => {
  resetVscodeFake();
  const base = mkdtempSync(path.join(tmpdir(), 'ck-toolhost-'));
  root = path.join(base, 'ws');
  outside = path.join(base, 'outside.txt');
  mkdirSync(path.join(root, 'src'), { recursive: true });
  writeFileSync(path.join(root, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(outside, 'secret\n');
  symlinkSync(outside, path.join(root, 'link.txt'));
  host.workspaceFolders = [{ uri: Uri.file(root), name: 'ws', index: 0 }];
});
afterEach(() => rmSync(path.dirname(root), { recursive: true, force: true }));

test('readDirectory reports files, folders and symbolic links as VS Code types them', async () => {
  const tools = new WorkspaceToolHost(Uri.file(root));
  const entries = await tools.readDirectory(root);
  assert.deepEqual(
    entries.sort((a, b) => a.name.localeCompare(b.name)),
    [
      { name: 'link.txt', type: 'symlink' },
      { name: 'src', type: 'directory' },
    ],
  );
  assert.deepEqual(await tools.readDirectory(path.join(root, 'src')), [{ name: 'a.ts', type: 'file' }]);
});

test('findFiles searches the folder with the excludes and the limit, and returns sorted relative paths', async () => {
  let asked: { include: vscode.GlobPattern; exclude: unknown; max: number | undefined } | undefined;
  host.findFiles = (include, exclude, max) => {
    asked = { include, exclude, max };
    return [Uri.file(path.join(root, 'src', 'z.ts')), Uri.file(path.join(root, 'src', 'a.ts'))];
  };
  const tools = new WorkspaceToolHost(Uri.file(root));
  assert.deepEqual(await tools.findFiles('src/**/*.ts', 50), ['src/a.ts', 'src/z.ts']);
  assert.ok(asked?.include instanceof RelativePattern);
  assert.equal(asked.include.baseUri.fsPath, root);
  assert.equal(asked.include.pattern, 'src/**/*.ts');
  assert.match(String(asked.exclude), /node_modules/);
  assert.equal(asked.max, 50);
});

test('an abort cancels the running search', async () => {
  let token: vscode.CancellationToken | undefined;
  const tools = new WorkspaceToolHost(Uri.file(root));
  const abort = new AbortController();
  let cancelledDuring = false;
  host.findFiles = (_i, _e, _m, t) => {
    token = t;
    abort.abort();
    cancelledDuring = t?.isCancellationRequested === true;
    return [];
  };
  await tools.findFiles('**/*', 10, abort.signal);
  assert.equal(cancelledDuring, true);
  assert.ok(token);
});

test('reads and writes stay inside the folder: a link out of it is refused, a file inside is written', async () => {
  const tools = new WorkspaceToolHost(Uri.file(root), () => ['sk-never-in-env']);
  assert.equal(tools.root, root);
  await assert.rejects(tools.readFile(path.join(root, 'link.txt')), /outside|workspace/i);
  await assert.rejects(tools.writeFile(outside, 'overwritten'), /outside|workspace/i);
  assert.equal(readFileSync(outside, 'utf8'), 'secret\n');
  await tools.writeFile(path.join(root, 'src', 'b.ts'), 'export const b = 2;\n');
  assert.equal(readFileSync(path.join(root, 'src', 'b.ts'), 'utf8'), 'export const b = 2;\n');
});
