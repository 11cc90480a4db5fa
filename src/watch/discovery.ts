/**
 * Finds the session files other agents write for a workspace folder:
 * - Claude Code: `<config home>/projects/<folder name>/*.jsonl`, the config home being
 *   `CLAUDE_CONFIG_DIR` or `~/.claude`, and the folder name the workspace's absolute path with every
 *   character other than an ASCII letter or digit replaced by `-`.
 * - Codex: `<CODEX_HOME or ~/.codex>/sessions/YYYY/MM/DD/rollout-*.jsonl`, matched by the working
 *   directory (`payload.cwd`) its first `session_meta` record names.
 * Only the first line of each Codex file is read, once per file (remembered by inode between polls). Paths in Windows form (`C:\\x`) and POSIX form are
 * both handled, so a remote or Windows workspace path matches the agent's naming.
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

/**
 * First lines already read, by path, with the file identity they were read from. Session files only
 * grow (agents append), so a complete first line never changes while the file is the same inode: a
 * poll every few seconds over thousands of rollouts then reads each head once, not every time.
 */
const heads = new Map<string, { dev: number; ino: number; line: string }>();

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
 * in growing pieces and remembers a complete line per file identity ({@link heads}), so repeated
 * discovery costs one `stat` per file.
 */
export function firstLineOf(file: string): string {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const st = fs.fstatSync(fd);
    const known = heads.get(file);
    if (known && known.dev === st.dev && known.ino === st.ino) return known.line;
    let size = Math.min(FIRST_READ_BYTES, META_BYTES);
    for (;;) {
      const buf = Buffer.alloc(size);
      const n = fs.readSync(fd, buf, 0, size, 0);
      const end = buf.subarray(0, n).indexOf(0x0a);
      if (end >= 0 || n < size || size >= META_BYTES) {
        const line = buf.subarray(0, end >= 0 ? end : n).toString('utf8');
        // A complete line (or a head past the limit) is final; one still being written is read again.
        if (end >= 0 || n >= META_BYTES) {
          if (heads.size >= HEAD_CACHE_MAX) heads.delete(heads.keys().next().value as string);
          heads.set(file, { dev: st.dev, ino: st.ino, line });
        }
        return line;
      }
      size = Math.min(size * 2, META_BYTES);
    }
  } catch {
    return '';
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Forgets remembered first lines (tests; a file replaced in place keeps its path but not its inode). */
export function clearHeadCache(): void {
  heads.clear();
}

/** The `cwd` of a Codex rollout's `session_meta` record, when its first line is one. */
export function codexWorkingDir(file: string): string | undefined {
  try {
    const rec = JSON.parse(firstLineOf(file)) as { type?: unknown; payload?: { cwd?: unknown } };
    return rec.type === 'session_meta' && typeof rec.payload?.cwd === 'string' ? rec.payload.cwd : undefined;
  } catch {
    return undefined;
  }
}

function agentOfFile(file: string): WatchedFormat | undefined {
  return detectWatchedFormat(firstLineOf(file));
}
