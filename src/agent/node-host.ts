/**
 * {@link ToolHost} over Node's file system and child processes, for tests, the command-line tool and
 * the demo. The extension provides its own host over VS Code's workspace APIs.
 */
import { spawn } from 'node:child_process';
import { promises as fs, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { childEnvironment } from './child-env';
import { globToRegExp } from './glob';
import { HeadTailText } from './limits';
import { PatternMatcher } from './pattern-worker';
import { toRelative } from './paths';
import { readFileInside, writeFileInside } from './safe-fs';
import type { CommandOutcome, DirectoryEntry, ToolHost } from './types';

/** Folders never searched by `findFiles` (dependencies, VCS data, build output). */
export const SKIPPED_FOLDERS = new Set(['node_modules', '.git', 'dist', 'out', '.vscode-test']);

/** Options of {@link NodeToolHost}. */
export interface NodeToolHostOptions {
  /**
   * Keys the product holds (for example the one from secret storage), read at each command: variables
   * containing them are removed from commands' environments, with the known key variables.
   */
  secrets?: () => readonly (string | undefined)[];
  /** Wall-clock budget of matching one glob over the walked paths, in milliseconds. Default 5 000. */
  globDeadlineMs?: number;
}

/** Most files one `findFiles` walk looks at: a bound on its time and memory in huge folders. */
export const FIND_MAX_VISITED = 50_000;
/** Paths sent to the matching worker at a time. */
const FIND_BATCH = 2_000;

/** Node-backed workspace access rooted at one folder. */
export class NodeToolHost implements ToolHost {
  readonly root: string;

  /** @param root workspace folder; resolved to its real path (throws when it does not exist). */
  constructor(
    root: string,
    private readonly options: NodeToolHostOptions = {},
  ) {
    this.root = realpathSync(path.resolve(root));
  }

  realpath(absPath: string): Promise<string> {
    return fs.realpath(absPath);
  }

  async readlink(absPath: string): Promise<string | undefined> {
    try {
      return await fs.readlink(absPath);
    } catch {
      return undefined;
    }
  }

  /** Regular files only, at most 10 MiB, real path checked on the opened file (`safe-fs.ts`). */
  readFile(absPath: string): Promise<string> {
    return readFileInside(this.root, absPath);
  }

  /** Created with no-follow and exclusive flags, real path checked before writing (`safe-fs.ts`). */
  writeFile(absPath: string, content: string): Promise<void> {
    return writeFileInside(this.root, absPath, content);
  }

  async readDirectory(absPath: string): Promise<DirectoryEntry[]> {
    const dirents = await fs.readdir(absPath, { withFileTypes: true });
    return dirents.map((d) => ({
      name: d.name,
      type: d.isFile() ? 'file' : d.isDirectory() ? 'directory' : d.isSymbolicLink() ? 'symlink' : 'other',
    }));
  }

  /**
   * Walks the workspace breadth-first (sorted, so results are stable and shallow files come first),
   * visiting at most {@link FIND_MAX_VISITED} files, and matches their paths against the glob in a
   * worker under a deadline ({@link PatternMatcher}): a model-written glob such as `{*,*}{*,*}…Z`
   * becomes a regular expression that backtracks exponentially, which on this thread would block the
   * extension host and Cancel with it.
   *
   * @throws PatternTimeoutError when matching runs past its deadline; SyntaxError for a glob that
   *   does not compile; the signal's reason when it aborts.
   */
  async findFiles(glob: string, maxResults: number, signal?: AbortSignal): Promise<string[]> {
    const matcher = new PatternMatcher(globToRegExp(glob).source, '', this.options.globDeadlineMs);
    try {
      const found: string[] = [];
      let batch: string[] = [];
      let visited = 0;
      const flush = async (): Promise<void> => {
        if (batch.length === 0) return;
        const hits = await matcher.matchLines(batch.join('\n'), maxResults - found.length, signal);
        for (const i of hits) found.push(batch[i]);
        batch = [];
      };
      const queue = [this.root];
      while (queue.length > 0 && found.length < maxResults && visited < FIND_MAX_VISITED) {
        signal?.throwIfAborted();
        const dir = queue.shift()!;
        let dirents;
        try {
          dirents = await fs.readdir(dir, { withFileTypes: true });
        } catch {
          continue;
        }
        dirents.sort((a, b) => a.name.localeCompare(b.name));
        for (const d of dirents) {
          const abs = path.join(dir, d.name);
          if (d.isDirectory()) {
            if (!SKIPPED_FOLDERS.has(d.name)) queue.push(abs);
          } else if (d.isFile() && !d.name.includes('\n')) {
            batch.push(toRelative(this.root, abs));
            if (++visited >= FIND_MAX_VISITED) break;
          }
        }
        // Matched folder by folder, so results keep the walk's order and the walk stops when enough are found.
        if (batch.length >= FIND_BATCH || queue.length === 0 || visited >= FIND_MAX_VISITED) await flush();
      }
      await flush();
      return found.slice(0, maxResults);
    } finally {
      matcher.dispose();
    }
  }

  runCommand(
    command: string,
    options: { cwd: string; timeoutMs: number; maxOutputChars: number; signal?: AbortSignal },
  ): Promise<CommandOutcome> {
    return new Promise((resolve, reject) => {
      if (options.signal?.aborted) {
        reject(options.signal.reason ?? new Error('aborted'));
        return;
      }
      // Own process group (detached) so a timeout or cancel kills the shell and its children.
      const child = spawn(command, {
        cwd: options.cwd,
        shell: true,
        detached: process.platform !== 'win32',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: childEnvironment(
          process.env,
          (this.options.secrets?.() ?? []).filter((k): k is string => !!k),
          { CI: '1', NO_COLOR: '1' },
        ),
      });
      // Head and tail in bounded memory: the end of a build's output carries its error.
      const output = new HeadTailText(options.maxOutputChars);
      let timedOut = false;
      // One decoder per stream, so a character split across two chunks is decoded whole.
      const listen = (stream: NodeJS.ReadableStream): void => {
        const decoder = new StringDecoder('utf8');
        stream.on('data', (chunk: Buffer) => output.push(decoder.write(chunk)));
        stream.on('end', () => output.push(decoder.end()));
      };
      listen(child.stdout);
      listen(child.stderr);
      const kill = (): void => {
        try {
          if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
          else child.kill('SIGKILL');
        } catch {
          // Already gone.
        }
      };
      const timer = setTimeout(() => {
        timedOut = true;
        kill();
      }, options.timeoutMs);
      const onAbort = (): void => kill();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      child.on('error', (error) => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        reject(error);
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        if (options.signal?.aborted) {
          reject(options.signal.reason ?? new Error('aborted'));
          return;
        }
        resolve({ exitCode: code, output: output.text(), timedOut, truncated: output.truncated });
      });
    });
  }
}
