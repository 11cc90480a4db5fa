/**
 * Types shared by the agent session, its workspace tools and the hosts that back them.
 * Plain data only; no `vscode` import (the extension implements {@link ToolHost} and
 * {@link ApprovalHandler} with VS Code APIs, tests and the command-line tool with Node's).
 */

/** Kind of a side effect the user may have to approve. */
export type ApprovalKind = 'edit' | 'command';

/**
 * A request to approve a file write/edit or a shell command before it runs.
 * For edits, `before`/`after` hold the whole file text so a host can show a diff.
 */
export interface ApprovalRequest {
  /** Unique per request; answers refer to it. */
  requestId: string;
  kind: ApprovalKind;
  /** Tool call that asks for it. */
  toolCallId: string;
  toolName: string;
  /** One line for a list ("Edit src/a.ts", "Run: npm test"). */
  title: string;
  /** Longer text: a unified-diff-like summary or the command with its working folder. */
  detail: string;
  /** Workspace-relative path of the file, for edits. */
  path?: string;
  /** Current file text (empty string when the file does not exist yet), for edits. */
  before?: string;
  /** Proposed file text, for edits. */
  after?: string;
  /** The shell command, for `command`. */
  command?: string;
}

/**
 * Decides an {@link ApprovalRequest}. Resolves true to allow. Must settle when `signal` aborts
 * (resolving false is fine); a rejection counts as a refusal.
 */
export type ApprovalHandler = (request: ApprovalRequest, signal: AbortSignal) => Promise<boolean>;

/** Which side effects run without asking. */
export interface AutoApprove {
  edits?: boolean;
  commands?: boolean;
}

/** One directory entry as a host reports it. */
export interface DirectoryEntry {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
}

/** Result of a shell command run by a host. Output sizes in characters. */
export interface CommandOutcome {
  /** Exit code, or null when the process was killed. */
  exitCode: number | null;
  /**
   * Combined stdout and stderr in arrival order, capped by the host at `maxOutputChars` characters:
   * over the cap, its head and its tail around an omission marker (`HeadTailText` in `limits.ts`).
   */
  output: string;
  timedOut: boolean;
  /** True when output was cut at the cap. */
  truncated: boolean;
}

/**
 * The file system and process access that workspace tools need. Paths passed in are absolute and
 * already checked to lie inside {@link ToolHost.root}; implementations need not re-check.
 * Every method may throw; the tool layer turns errors into tool results.
 */
export interface ToolHost {
  /** Absolute workspace root with symlinks resolved. */
  readonly root: string;
  /** Resolves symlinks of an existing path (for the containment check). Throws ENOENT-style errors. */
  realpath(absPath: string): Promise<string>;
  /**
   * The target of a symlink as stored, or undefined when `absPath` is not a link (or missing). Lets the
   * containment check see dangling links; hosts without it cannot refuse writes through them.
   */
  readlink?(absPath: string): Promise<string | undefined>;
  /**
   * The whole file decoded as UTF-8. Callers check containment in {@link root} first. Rejects when the
   * file is missing or unreadable (the host's own error: ENOENT-style or `FileSystemError`).
   */
  readFile(absPath: string, signal?: AbortSignal): Promise<string>;
  /**
   * Writes `content` as UTF-8, replacing the file and creating missing parent folders. Must check the
   * workspace boundary again on the file it opens (links may change after the path check). Rejects on
   * I/O errors and on a target outside the root.
   */
  writeFile(absPath: string, content: string, signal?: AbortSignal): Promise<void>;
  /** The direct children of a folder, unsorted, symlinks not followed. Rejects when it is not a readable folder. */
  readDirectory(absPath: string): Promise<DirectoryEntry[]>;
  /**
   * Workspace-relative paths (forward slashes) of files matching a glob, at most `maxResults`,
   * skipping `node_modules`, `.git` and build output folders.
   */
  findFiles(glob: string, maxResults: number, signal?: AbortSignal): Promise<string[]>;
  /** Runs a shell command in `cwd`; kills it on timeout or abort. */
  runCommand(
    command: string,
    options: { cwd: string; timeoutMs: number; maxOutputChars: number; signal?: AbortSignal },
  ): Promise<CommandOutcome>;
}

/** Result of one tool call as appended to the conversation. */
export interface ToolOutcome {
  /** Text of the `tool` message (already capped, with a visible marker when cut). */
  content: string;
  ok: boolean;
  /** True when the call was cancelled before it finished. */
  cancelled?: boolean;
}
