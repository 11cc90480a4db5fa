/**
 * Finds the session files other agents write for a workspace folder:
 * - Claude Code: `<config home>/projects/<folder name>/*.jsonl`, the config home being
 *   `CLAUDE_CONFIG_DIR` or `~/.claude`, and the folder name the workspace's absolute path with every
 *   character other than an ASCII letter or digit replaced by `-`.
 * - Codex: `<CODEX_HOME or ~/.codex>/sessions/YYYY/MM/DD/rollout-*.jsonl`, matched by the working
 *   directory (`payload.cwd`) its first `session_meta` record names.
 * Only the first line of each Codex file is read, and only once per file: it is remembered with the
 * file's identity, size and modification time, so a poll over unchanged files only lists and stats them
 * ({@link discoverSessionsAsync}, which the extension host polls with, does even that asynchronously).
 * Paths in Windows form (`C:\\x`) and POSIX form are both handled, so a remote or Windows workspace
 * path matches the agent's naming.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { detectWatchedFormat, type WatchedFormat } from './formats';

/** One discovered session file. */
export interface DiscoveredSession {
  file: string;
  agent: WatchedFormat;
  /** Bytes. */
  size: number;
  /** Last modification, ms since the epoch. */
  lastActivity: number;
}

/** Where to look; every field defaults from the environment. */
export interface DiscoveryOptions {
  /** Claude Code's config home (default: CLAUDE_CONFIG_DIR or ~/.claude). */
  claudeHome?: string;
  /** Codex's home (default: CODEX_HOME or ~/.codex). */
  codexHome?: string;
  /** More folders holding session files of any of the two agents, searched as they are (one level). */
  extraFolders?: readonly string[];
  /** Environment to read the defaults from (default: process.env). */
  env?: NodeJS.ProcessEnv;
}

/** Most bytes read from the start of a session file to find its first line. */
const META_BYTES = 64 * 1024;
/** First read of a file's head; grown (doubling) up to {@link META_BYTES} only while no line end is found. */
const FIRST_READ_BYTES = 4 * 1024;
/** Most files whose first line is remembered between polls. */
const HEAD_CACHE_MAX = 20_000;

/** Files whose heads are read at once by {@link discoverSessionsAsync}. */
const PARALLEL_HEADS = 16;

/** A first line read, with the file it was read from (identity, size and modification time then). */
interface KnownHead {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  line: string;
  /** True when the line ended (or passed {@link META_BYTES}): it cannot change while the file is the same. */
  complete: boolean;
}

/**
 * First lines already read, by path. Session files only grow (agents append), so a complete first line
 * never changes while the file is the same inode, and an incomplete one not while its size and
 * modification time stay: a poll every few seconds over thousands of rollouts reads each head once.
 */
const heads = new Map<string, KnownHead>();

/** The remembered first line of `file` when `st` says it still holds, else undefined. */
function knownHead(file: string, st: fs.Stats): string | undefined {
  const known = heads.get(file);
  if (!known || known.dev !== st.dev || known.ino !== st.ino) return undefined;
  return known.complete || (known.size === st.size && known.mtimeMs === st.mtimeMs) ? known.line : undefined;
}

function rememberHead(file: string, st: fs.Stats, line: string, complete: boolean): void {
  if (!heads.has(file) && heads.size >= HEAD_CACHE_MAX) heads.delete(heads.keys().next().value as string);
  heads.set(file, { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, line, complete });
}

/**
 * The first line in a head read of `n` bytes where `size` were asked, and whether it is complete;
 * undefined when a larger read is needed (no line end yet, more file, still under {@link META_BYTES}).
 */
function headOf(buf: Buffer, n: number, size: number): { line: string; complete: boolean } | undefined {
  const end = buf.subarray(0, n).indexOf(0x0a);
  if (end < 0 && n >= size && size < META_BYTES) return undefined;
  return { line: buf.subarray(0, end >= 0 ? end : n).toString('utf8'), complete: end >= 0 || n >= META_BYTES };
}

/** Claude Code's project folder name for a workspace path (its own rule: non-alphanumerics to `-`). */
export function claudeProjectFolderName(workspacePath: string): string {
  return workspacePath.replace(/[^A-Za-z0-9]/g, '-');
}

/** True for a Windows-form path (`C:\\…`, `C:/…` or `\\\\server\\share`). */
function isWindowsPath(p: string): boolean {
  return /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');
}

/**
 * Normalizes a directory path for comparison: separators, trailing separator, and case on Windows
 * (its file system ignores case) and macOS-style `/private` prefixes of temporary folders.
 */
export function normalizeDir(p: string): string {
  if (isWindowsPath(p)) return path.win32.normalize(p).replace(/\\+$/, '').toLowerCase();
  let n = path.posix.normalize(p).replace(/\/+$/, '');
  if (n.startsWith('/private/var/') || n.startsWith('/private/tmp/')) n = n.slice('/private'.length);
  return n || '/';
}

/**
 * Lists the sessions of `workspaceDir`, newest activity first. Missing homes are not an error.
 * @throws nothing for unreadable files; they are skipped
 */
export function discoverSessions(workspaceDir: string, options: DiscoveryOptions = {}): DiscoveredSession[] {
  const env = options.env ?? process.env;
  const home = env.HOME || env.USERPROFILE || os.homedir();
  const claudeHome = options.claudeHome ?? env.CLAUDE_CONFIG_DIR ?? path.join(home, '.claude');
  const codexHome = options.codexHome ?? env.CODEX_HOME ?? path.join(home, '.codex');
  const found = new Map<string, DiscoveredSession>();
  const add = (file: string, agent: WatchedFormat) => {
    try {
      const st = fs.statSync(file);
      if (st.isFile()) found.set(file, { file, agent, size: st.size, lastActivity: st.mtimeMs });
    } catch {
      // Vanished between listing and stat: not a session any more.
    }
  };

  const variants = new Set([workspaceDir, realpathOr(workspaceDir)]);
  for (const dir of variants) {
    const folder = path.join(claudeHome, 'projects', claudeProjectFolderName(dir));
    for (const f of listJsonl(folder)) add(f, 'claude-code');
  }

  const wanted = new Set([...variants].map(normalizeDir));
  for (const f of codexRollouts(path.join(codexHome, 'sessions'))) {
    const cwd = codexWorkingDir(f);
    if (cwd !== undefined && wanted.has(normalizeDir(cwd))) add(f, 'codex');
  }

  for (const folder of options.extraFolders ?? []) {
    for (const f of listJsonl(folder)) {
      const agent = agentOfFile(f);
      if (agent) add(f, agent);
    }
  }
  return [...found.values()].sort((a, b) => b.lastActivity - a.lastActivity);
}

/**
 * {@link discoverSessions} without blocking: listings, stats and head reads are asynchronous (at most
 * {@link PARALLEL_HEADS} files at a time), and a Codex rollout whose identity, size and modification
 * time are unchanged since a previous poll is not read again.
 * @throws nothing for unreadable folders or files; they are skipped
 */
export async function discoverSessionsAsync(
  workspaceDir: string,
  options: DiscoveryOptions = {},
): Promise<DiscoveredSession[]> {
  const env = options.env ?? process.env;
  const home = env.HOME || env.USERPROFILE || os.homedir();
  const claudeHome = options.claudeHome ?? env.CLAUDE_CONFIG_DIR ?? path.join(home, '.claude');
  const codexHome = options.codexHome ?? env.CODEX_HOME ?? path.join(home, '.codex');
  const found = new Map<string, DiscoveredSession>();
  const add = async (file: string, agent: WatchedFormat) => {
    try {
      const st = await fs.promises.stat(file);
      if (st.isFile()) found.set(file, { file, agent, size: st.size, lastActivity: st.mtimeMs });
    } catch {
      // Vanished between listing and stat: not a session any more.
    }
  };
  const variants = new Set([workspaceDir, await fs.promises.realpath(workspaceDir).catch(() => workspaceDir)]);
  for (const dir of variants) {
    const folder = path.join(claudeHome, 'projects', claudeProjectFolderName(dir));
    await inBatches(await listJsonlAsync(folder), (f) => add(f, 'claude-code'));
  }
  const wanted = new Set([...variants].map(normalizeDir));
  await inBatches(await codexRolloutsAsync(path.join(codexHome, 'sessions')), async (f) => {
    const cwd = codexCwdOf(await firstLineOfAsync(f));
    if (cwd !== undefined && wanted.has(normalizeDir(cwd))) await add(f, 'codex');
  });
  for (const folder of options.extraFolders ?? []) {
    await inBatches(await listJsonlAsync(folder), async (f) => {
      const agent = detectWatchedFormat(await firstLineOfAsync(f));
      if (agent) await add(f, agent);
    });
  }
  return [...found.values()].sort((a, b) => b.lastActivity - a.lastActivity);
}

/** Runs `work` over `items`, {@link PARALLEL_HEADS} at a time. */
async function inBatches<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += PARALLEL_HEADS)
    await Promise.all(items.slice(i, i + PARALLEL_HEADS).map(work));
}

async function listJsonlAsync(folder: string): Promise<string[]> {
  try {
    const entries = await fs.promises.readdir(folder, { withFileTypes: true });
    return entries.filter((d) => d.isFile() && d.name.endsWith('.jsonl')).map((d) => path.join(folder, d.name));
  } catch {
    return [];
  }
}

/** Codex rollouts under `sessions/YYYY/MM/DD/`, listed asynchronously. */
async function codexRolloutsAsync(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of entries) {
      const p = path.join(dir, d.name);
      if (d.isDirectory() && depth < 3) await walk(p, depth + 1);
      else if (d.isFile() && d.name.startsWith('rollout-') && d.name.endsWith('.jsonl')) out.push(p);
    }
  };
  await walk(root, 0);
  return out;
}

function realpathOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

function listJsonl(folder: string): string[] {
  try {
    return fs
      .readdirSync(folder, { withFileTypes: true })
      .filter((d) => d.isFile() && d.name.endsWith('.jsonl'))
      .map((d) => path.join(folder, d.name));
  } catch {
    return [];
  }
}

/** Codex rollouts under `sessions/YYYY/MM/DD/`. */
function codexRollouts(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of entries) {
      const p = path.join(dir, d.name);
      if (d.isDirectory() && depth < 3) walk(p, depth + 1);
      else if (d.isFile() && d.name.startsWith('rollout-') && d.name.endsWith('.jsonl')) out.push(p);
    }
  };
  walk(root, 0);
  return out;
}

/**
 * The first line of a file (at most {@link META_BYTES} bytes), or '' when unreadable. Reads the head
 * in growing pieces and remembers it ({@link heads}), so repeated discovery costs one `stat` per file.
 */
export function firstLineOf(file: string): string {
  let fd: number | undefined;
  try {
    const st = fs.statSync(file);
    const known = knownHead(file, st);
    if (known !== undefined) return known;
    fd = fs.openSync(file, 'r');
    for (let size = FIRST_READ_BYTES; ; size = Math.min(size * 2, META_BYTES)) {
      const buf = Buffer.alloc(size);
      const n = fs.readSync(fd, buf, 0, size, 0);
      const head = headOf(buf, n, size);
      if (head) {
        rememberHead(file, st, head.line, head.complete);
        return head.line;
      }
    }
  } catch {
    return '';
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** {@link firstLineOf} without blocking: a remembered line costs one asynchronous `stat`. */
async function firstLineOfAsync(file: string): Promise<string> {
  try {
    const st = await fs.promises.stat(file);
    const known = knownHead(file, st);
    if (known !== undefined) return known;
    const handle = await fs.promises.open(file, 'r');
    try {
      for (let size = FIRST_READ_BYTES; ; size = Math.min(size * 2, META_BYTES)) {
        const buf = Buffer.alloc(size);
        const { bytesRead: n } = await handle.read(buf, 0, size, 0);
        const head = headOf(buf, n, size);
        if (head) {
          rememberHead(file, st, head.line, head.complete);
          return head.line;
        }
      }
    } finally {
      await handle.close();
    }
  } catch {
    return '';
  }
}

/** Forgets remembered first lines (tests; a file replaced in place keeps its path but not its inode). */
export function clearHeadCache(): void {
  heads.clear();
}

/** The `cwd` of a Codex rollout's `session_meta` record, when its first line is one. */
export function codexWorkingDir(file: string): string | undefined {
  return codexCwdOf(firstLineOf(file));
}

/** The `cwd` of a `session_meta` record line, when it is one. */
function codexCwdOf(line: string): string | undefined {
  try {
    const rec = JSON.parse(line) as { type?: unknown; payload?: { cwd?: unknown } };
    return rec.type === 'session_meta' && typeof rec.payload?.cwd === 'string' ? rec.payload.cwd : undefined;
  } catch {
    return undefined;
  }
}

function agentOfFile(file: string): WatchedFormat | undefined {
  return detectWatchedFormat(firstLineOf(file));
}
