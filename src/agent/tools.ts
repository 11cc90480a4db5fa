/**
 * The workspace tools the agent may call, with their JSON schemas, over a {@link ToolHost}.
 *
 * Rules every tool follows:
 * - paths are workspace-relative (absolute ones must lie inside the root) and are checked with
 *   symlinks resolved (`paths.ts`); anything outside is refused;
 * - results are text capped at `maxResultChars` characters with a visible marker (`limits.ts`); command
 *   output keeps its head and its tail, and its exit status is added after capping so no cap removes it;
 * - side effects (write_file, edit_file, run_command) run only after approval, unless auto-approved;
 *   writes to tool-configuration folders (`.git/`, `.vscode/`, `.github/workflows/`...) always ask;
 * - the history tools (search_history, read_history; offered when a conversation is given) read the
 *   conversation's own raw transcript, never the workspace: they need no approval (`history-tools.ts`);
 * - model-supplied patterns run in a worker under a deadline (`pattern-worker.ts`);
 * - error texts name workspace-relative paths, never the host's folders;
 * - failures become tool results with `ok: false` rather than exceptions, so the model can react;
 * - cancellation (the signal) ends the call with a "cancelled" result.
 */
import * as path from 'node:path';
import type { ToolSchema } from '../compaction/types';
import { capHeadTail, capText, DEFAULT_MAX_RESULT_CHARS } from './limits';
import { protectedFolderOf, relativizeMessage, resolveInside, toRelative } from './paths';
import { DEFAULT_PATTERN_DEADLINE_MS, MATCH_LINE_MAX_CHARS, PatternMatcher } from './pattern-worker';
import { lineDiff } from './diff';
import type { ApprovalHandler, ApprovalRequest, AutoApprove, CommandOutcome, ToolHost, ToolOutcome } from './types';
import { HISTORY_TOOL_SCHEMAS, isHistoryTool, runHistoryTool } from './history-tools';
import type { RecallSource } from '../recall/types';
import { errorMessage } from '../format/error-message';

/** Options of {@link WorkspaceTools}. */
export interface WorkspaceToolsOptions {
  /** Decides edits and commands; when absent, only auto-approved side effects run. */
  approve?: ApprovalHandler;
  autoApprove?: AutoApprove;
  /** Cap on one tool result, in characters. Default 16 000. */
  maxResultChars?: number;
  /** Default and upper bound of run_command's timeout, in milliseconds. Default 60 000. */
  commandTimeoutMs?: number;
  /** Upper bound on search_text matches returned. Default 100. */
  maxSearchResults?: number;
  /** Upper bound on files search_text reads. Default 5 000. */
  maxSearchFiles?: number;
  /** Wall-clock budget of one search_text pattern over all files, in milliseconds. Default 5 000. */
  searchDeadlineMs?: number;
  /**
   * The conversation's raw transcript and checkpoints in force, read at each call: when given, the
   * read-only history tools (search_history, read_history) are offered after the workspace tools.
   */
  history?: () => RecallSource;
}

/** A tool call to execute: the fields of `tool_calls[i]` that matter here. */
export interface ToolCallRequest {
  id: string;
  name: string;
  /** JSON text as written by the model. */
  arguments: string;
}

/** Text shown to the model for a call that was cancelled before it finished. */
export const CANCELLED_RESULT = 'Cancelled: the user stopped the task before this tool call finished.';

const SEARCH_FILE_MAX_BYTES = 1_000_000;
const SEARCH_LINE_MAX_CHARS = 240;
const LIST_MAX_ENTRIES = 500;
/** Most characters of a command echoed at the top of its result. */
const COMMAND_ECHO_MAX_CHARS = 600;
/** Times an edit is shown again because the file changed while its approval was waiting. */
const MAX_APPROVAL_ROUNDS = 3;

function fn(name: string, description: string, properties: Record<string, unknown>, required: string[]): ToolSchema {
  return {
    type: 'function',
    function: { name, description, parameters: { type: 'object', properties, required, additionalProperties: false } },
  };
}

/** JSON schemas of the workspace tools, in the order they are offered to the model. */
export const WORKSPACE_TOOL_SCHEMAS: ToolSchema[] = [
  fn(
    'read_file',
    'Read a text file of the workspace. Optionally a 1-based inclusive line range. Long output is truncated.',
    {
      path: { type: 'string', description: 'Workspace-relative path.' },
      start_line: { type: 'integer', minimum: 1 },
      end_line: { type: 'integer', minimum: 1 },
    },
    ['path'],
  ),
  fn(
    'list_directory',
    'List a folder of the workspace; sub-folders end with "/".',
    { path: { type: 'string', description: 'Workspace-relative folder; "." for the root.' } },
    ['path'],
  ),
  fn(
    'find_files',
    'Find files by glob (e.g. "src/**/*.ts", "*.json"). Skips node_modules, .git and build output.',
    { pattern: { type: 'string' }, max_results: { type: 'integer', minimum: 1, maximum: 500 } },
    ['pattern'],
  ),
  fn(
    'search_text',
    `Search file contents with a JavaScript regular expression (lines are matched on their first ${MATCH_LINE_MAX_CHARS} characters, under a time limit); returns path:line: text, bounded.`,
    {
      pattern: { type: 'string', description: 'Regular expression.' },
      glob: { type: 'string', description: 'Only files matching this glob. Default all files.' },
      case_sensitive: { type: 'boolean' },
      max_results: { type: 'integer', minimum: 1, maximum: 500 },
    },
    ['pattern'],
  ),
  fn(
    'write_file',
    "Create or overwrite a file with the given content. Needs the user's approval.",
    { path: { type: 'string' }, content: { type: 'string' } },
    ['path', 'content'],
  ),
  fn(
    'edit_file',
    'Replace an exact piece of text in a file. old_text must occur exactly once unless replace_all is true. Needs approval.',
    {
      path: { type: 'string' },
      old_text: { type: 'string' },
      new_text: { type: 'string' },
      replace_all: { type: 'boolean' },
    },
    ['path', 'old_text', 'new_text'],
  ),
  fn(
    'run_command',
    'Run a shell command in the workspace (or a sub-folder). Needs approval. Output is capped; a timeout kills it.',
    {
      command: { type: 'string' },
      cwd: { type: 'string', description: 'Workspace-relative folder. Default the root.' },
      timeout_ms: { type: 'integer', minimum: 100 },
    },
    ['command'],
  ),
];

/** A tool failure to report to the model as an unsuccessful result. */
class ToolFailure extends Error {}

type Args = Record<string, unknown>;

function stringArg(args: Args, name: string, required = true): string | undefined {
  const value = args[name];
  if (value === undefined || value === null) {
    if (required) throw new ToolFailure(`Missing required argument "${name}".`);
    return undefined;
  }
  if (typeof value !== 'string') throw new ToolFailure(`Argument "${name}" must be a string.`);
  return value;
}

function intArg(args: Args, name: string): number | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw new ToolFailure(`Argument "${name}" must be an integer.`);
  return value;
}

function abortPromise(signal: AbortSignal): { promise: Promise<never>; dispose: () => void } {
  let onAbort = (): void => {};
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason ?? new Error('aborted'));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  promise.catch(() => {});
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}

/** The workspace tools of one agent session. */
export class WorkspaceTools {
  readonly schemas: ToolSchema[];
  private readonly maxResultChars: number;
  private readonly commandTimeoutMs: number;
  private requestCounter = 0;

  constructor(
    readonly host: ToolHost,
    private readonly options: WorkspaceToolsOptions = {},
  ) {
    this.maxResultChars = options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
    this.commandTimeoutMs = options.commandTimeoutMs ?? 60_000;
    this.schemas = options.history ? [...WORKSPACE_TOOL_SCHEMAS, ...HISTORY_TOOL_SCHEMAS] : WORKSPACE_TOOL_SCHEMAS;
  }

  /**
   * Runs one tool call. Never throws: bad arguments, refused paths, declined approvals and host errors
   * come back as `ok: false` results; an abort comes back as a `cancelled` result.
   */
  async execute(call: ToolCallRequest, signal: AbortSignal): Promise<ToolOutcome> {
    if (signal.aborted) return { content: CANCELLED_RESULT, ok: false, cancelled: true };
    const abort = abortPromise(signal);
    try {
      const content = await Promise.race([this.dispatch(call, signal), abort.promise]);
      return { content: this.cap(call, content, 'narrow the request to see more'), ok: true };
    } catch (error) {
      if (signal.aborted) return { content: CANCELLED_RESULT, ok: false, cancelled: true };
      const message = relativizeMessage(this.host.root, errorMessage(error));
      return { content: this.cap(call, `Error: ${message}`), ok: false };
    } finally {
      abort.dispose();
    }
  }

  /**
   * The general cap on one result. A command's result already fits (its output was capped with room
   * for the status line); should it not, its tail, where the status is, is kept with its head.
   */
  private cap(call: ToolCallRequest, text: string, hint = ''): string {
    return call.name === 'run_command'
      ? capHeadTail(text, this.maxResultChars).text
      : capText(text, this.maxResultChars, hint).text;
  }

  private async dispatch(call: ToolCallRequest, signal: AbortSignal): Promise<string> {
    let args: Args;
    try {
      const parsed: unknown = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      args = parsed as Args;
    } catch {
      throw new ToolFailure(`Arguments of ${call.name} are not a JSON object: ${call.arguments.slice(0, 200)}`);
    }
    if (this.options.history && isHistoryTool(call.name)) {
      const result = runHistoryTool(call.name, args, this.options.history());
      if (!result.ok) throw new ToolFailure(result.error);
      return result.text;
    }
    switch (call.name) {
      case 'read_file':
        return this.readFile(args);
      case 'list_directory':
        return this.listDirectory(args);
      case 'find_files':
        return this.findFiles(args, signal);
      case 'search_text':
        return this.searchText(args, signal);
      case 'write_file':
        return this.writeFile(call, args, signal);
      case 'edit_file':
        return this.editFile(call, args, signal);
      case 'run_command':
        return this.runCommand(call, args, signal);
      default:
        throw new ToolFailure(
          `Unknown tool "${call.name}". Available: ${this.schemas.map((s) => (s.type === 'function' ? s.function.name : '')).join(', ')}.`,
        );
    }
  }

  private resolve(requested: string): Promise<string> {
    const host = this.host;
    return resolveInside(
      host.root,
      requested,
      (p) => host.realpath(p),
      host.readlink ? (p) => host.readlink!(p) : undefined,
    );
  }

  private rel(absolute: string): string {
    return toRelative(this.host.root, absolute);
  }

  private async readFile(args: Args): Promise<string> {
    const file = await this.resolve(stringArg(args, 'path')!);
    const text = await this.host.readFile(file);
    const lines = text.split('\n');
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    const start = intArg(args, 'start_line') ?? 1;
    const end = Math.min(intArg(args, 'end_line') ?? lines.length, lines.length);
    if (start < 1 || start > Math.max(lines.length, 1)) {
      throw new ToolFailure(`start_line ${start} is outside the file (${lines.length} lines).`);
    }
    if (end < start) throw new ToolFailure(`end_line ${end} is before start_line ${start}.`);
    const header = `${this.rel(file)} (lines ${start}-${end} of ${lines.length})`;
    return `${header}\n${lines.slice(start - 1, end).join('\n')}`;
  }

  private async listDirectory(args: Args): Promise<string> {
    const folder = await this.resolve(stringArg(args, 'path', false) ?? '.');
    const entries = await this.host.readDirectory(folder);
    entries.sort(
      (a, b) => (a.type === 'directory' ? 0 : 1) - (b.type === 'directory' ? 0 : 1) || a.name.localeCompare(b.name),
    );
    const shown = entries.slice(0, LIST_MAX_ENTRIES).map((e) => (e.type === 'directory' ? `${e.name}/` : e.name));
    const more =
      entries.length > LIST_MAX_ENTRIES ? `\n[${entries.length - LIST_MAX_ENTRIES} more entries not shown]` : '';
    return `${this.rel(folder)}/ (${entries.length} entries)\n${shown.join('\n')}${more}`;
  }

  private async findFiles(args: Args, signal: AbortSignal): Promise<string> {
    const pattern = stringArg(args, 'pattern')!;
    const max = Math.min(intArg(args, 'max_results') ?? 200, 500);
    const files = await this.host.findFiles(pattern, max + 1, signal);
    if (files.length === 0) return `No files match ${pattern}.`;
    const more = files.length > max ? `\n[more files match; showing the first ${max}]` : '';
    return `${files.slice(0, max).join('\n')}${more}`;
  }

  private async searchText(args: Args, signal: AbortSignal): Promise<string> {
    const source = stringArg(args, 'pattern')!;
    const glob = stringArg(args, 'glob', false) ?? '**/*';
    const max = Math.min(intArg(args, 'max_results') ?? this.options.maxSearchResults ?? 100, 500);
    let matcher: PatternMatcher;
    try {
      matcher = new PatternMatcher(
        source,
        args['case_sensitive'] === true ? '' : 'i',
        this.options.searchDeadlineMs ?? DEFAULT_PATTERN_DEADLINE_MS,
      );
    } catch (error) {
      throw new ToolFailure(`Invalid regular expression: ${(error as Error).message}`);
    }
    const maxFiles = this.options.maxSearchFiles ?? 5_000;
    const hits: string[] = [];
    let more = false;
    let files: string[] = [];
    try {
      files = await this.host.findFiles(glob, maxFiles, signal);
      for (const relative of files) {
        signal.throwIfAborted();
        let text: string;
        try {
          text = await this.host.readFile(path.join(this.host.root, relative));
        } catch {
          continue;
        }
        // Skip binaries and huge generated files: they flood results and cost a lot to scan.
        if (text.length > SEARCH_FILE_MAX_BYTES || text.includes('\u0000')) continue;
        const lines = text.split('\n');
        const matched = await matcher.matchLines(text, max - hits.length + 1, signal);
        for (const i of matched) {
          if (hits.length >= max) {
            more = true;
            break;
          }
          const line =
            lines[i].length > SEARCH_LINE_MAX_CHARS ? `${lines[i].slice(0, SEARCH_LINE_MAX_CHARS)}…` : lines[i];
          hits.push(`${relative}:${i + 1}: ${line}`);
        }
        if (more) break;
      }
    } finally {
      matcher.dispose();
    }
    if (hits.length === 0) return `No matches for /${source}/ in ${files.length} files.`;
    const tail = more ? `\n[more matches not shown; at most ${max} are returned — narrow the pattern or glob]` : '';
    return `${hits.join('\n')}${tail}`;
  }

  private async writeFile(call: ToolCallRequest, args: Args, signal: AbortSignal): Promise<string> {
    const file = await this.resolve(stringArg(args, 'path')!);
    const content = stringArg(args, 'content')!;
    await this.approveAndWrite(call, file, signal, (before) => ({
      title: `${before === undefined ? 'Create' : 'Overwrite'} ${this.rel(file)}`,
      after: content,
    }));
    return `Wrote ${this.rel(file)} (${content.length} characters, ${content.split('\n').length} lines).`;
  }

  private async editFile(call: ToolCallRequest, args: Args, signal: AbortSignal): Promise<string> {
    const file = await this.resolve(stringArg(args, 'path')!);
    const oldText = stringArg(args, 'old_text')!;
    const newText = stringArg(args, 'new_text')!;
    if (oldText === '') throw new ToolFailure('old_text is empty; use write_file to create a file.');
    const replaceAll = args['replace_all'] === true;
    let count = 0;
    await this.approveAndWrite(
      call,
      file,
      signal,
      (before, changed) => {
        if (before === undefined)
          throw new ToolFailure(`${this.rel(file)} was deleted while the approval was waiting; nothing was changed.`);
        count = before.split(oldText).length - 1;
        const again = changed ? ' (it changed while the approval was waiting)' : '';
        if (count === 0)
          throw new ToolFailure(
            `old_text was not found in ${this.rel(file)}${again}; read the file again and copy the text exactly.`,
          );
        if (count > 1 && !replaceAll) {
          throw new ToolFailure(
            `old_text occurs ${count} times in ${this.rel(file)}${again}; add surrounding lines or set replace_all.`,
          );
        }
        const after = replaceAll ? before.split(oldText).join(newText) : before.replace(oldText, () => newText);
        return { title: `Edit ${this.rel(file)}`, after };
      },
      true,
    );
    return `Edited ${this.rel(file)}: ${replaceAll ? count : 1} replacement(s).`;
  }

  /**
   * Asks for an edit (a diff from the file as it is now to what `plan` makes of it) and writes it,
   * only if the file still holds the text the approval showed at the moment of writing. An approval
   * may wait for minutes while the user keeps working: when the file changed meanwhile (saved, created
   * or deleted), `plan` runs again on the new text and the user is asked again with the new diff, at most
   * {@link MAX_APPROVAL_ROUNDS} times; after that the edit is refused and nothing is written.
   * @param mustExist the first read's error is thrown (an edit of a missing or unreadable file)
   * @param plan the title and new text for the file's current text (undefined: no such file);
   *   `changed` is true from the second round on. Throws ToolFailure to refuse.
   * @throws ToolFailure when declined, refused by `plan`, or when the file kept changing.
   */
  private async approveAndWrite(
    call: ToolCallRequest,
    file: string,
    signal: AbortSignal,
    plan: (before: string | undefined, changed: boolean) => { title: string; after: string },
    mustExist = false,
  ): Promise<void> {
    const read = () => this.host.readFile(file, signal).catch((): undefined => undefined);
    // An edit needs the file: the host's own error (missing, unreadable) is the answer then.
    let before = mustExist ? await this.host.readFile(file, signal) : await read();
    for (let round = 0; round < MAX_APPROVAL_ROUNDS; round++) {
      const { title, after } = plan(before, round > 0);
      await this.requireApproval(
        {
          kind: 'edit',
          call,
          title: round > 0 ? `${title} (the file changed while the approval was waiting: new diff)` : title,
          detail: lineDiff(before ?? '', after),
          path: this.rel(file),
          before: before ?? '',
          after,
        },
        signal,
      );
      const now = await read();
      if (now === before) {
        await this.host.writeFile(file, after, signal);
        return;
      }
      before = now;
    }
    throw new ToolFailure(
      `${this.rel(file)} kept changing while the approval was waiting; nothing was written. Read it again.`,
    );
  }

  private async runCommand(call: ToolCallRequest, args: Args, signal: AbortSignal): Promise<string> {
    const command = stringArg(args, 'command')!;
    const cwd = await this.resolve(stringArg(args, 'cwd', false) ?? '.');
    const timeoutMs = Math.min(intArg(args, 'timeout_ms') ?? this.commandTimeoutMs, this.commandTimeoutMs);
    await this.requireApproval(
      {
        kind: 'command',
        call,
        title: `Run: ${command}`,
        detail: `${command}\n(in ${this.rel(cwd)}, timeout ${timeoutMs} ms)`,
        command,
      },
      signal,
    );
    const status = (outcome: CommandOutcome): string =>
      outcome.timedOut
        ? `timed out after ${timeoutMs} ms and was killed`
        : outcome.exitCode === null
          ? 'was killed'
          : `exit code ${outcome.exitCode}`;
    // The echoed command, the output and the status share the result cap: the output gets what the
    // other two leave (with room for the "Error: " prefix of a failure), so the status is never cut.
    const header = `$ ${capHeadTail(command, COMMAND_ECHO_MAX_CHARS).text}\n`;
    const statusRoom = '\n[timed out after  ms and was killed]'.length + String(timeoutMs).length + 'Error: '.length;
    const outputRoom = Math.max(0, this.maxResultChars - header.length - statusRoom);
    const outcome = await this.host.runCommand(command, { cwd, timeoutMs, maxOutputChars: outputRoom, signal });
    // Hosts cap their output; this keeps a host that does not within the room as well.
    const output = capHeadTail(outcome.output, outputRoom).text.replace(/\n$/, '');
    const result = `${header}${output}\n[${status(outcome)}]`;
    if (outcome.timedOut || outcome.exitCode !== 0) throw new ToolFailure(result);
    return result;
  }

  private async requireApproval(
    request: {
      kind: ApprovalRequest['kind'];
      call: ToolCallRequest;
      title: string;
      detail: string;
    } & Partial<ApprovalRequest>,
    signal: AbortSignal,
  ): Promise<void> {
    // Tool configuration runs code later (git hooks, tasks, CI): never written unasked.
    const guarded = request.path !== undefined ? protectedFolderOf(request.path) : undefined;
    const auto = request.kind === 'edit' ? this.options.autoApprove?.edits : this.options.autoApprove?.commands;
    if (auto && guarded === undefined) return;
    const handler = this.options.approve;
    if (!handler)
      throw new ToolFailure(`${request.title} needs approval and no approver is configured; the action was not run.`);
    const { call, ...rest } = request;
    if (guarded !== undefined) rest.title = `${rest.title} (${guarded} configures tools that run code: always asks)`;
    const full: ApprovalRequest = {
      ...rest,
      requestId: `approval-${++this.requestCounter}-${call.id}`,
      toolCallId: call.id,
      toolName: call.name,
    };
    let approved = false;
    try {
      approved = await handler(full, signal);
    } catch {
      approved = false;
    }
    signal.throwIfAborted();
    if (!approved) throw new ToolFailure(`The user declined: ${request.title}. Nothing was changed.`);
  }
}
