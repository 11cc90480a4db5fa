/**
 * Files the agent modified and read, from every agent's edit tools (see {@link fileTouches} for the
 * rule per tool). Pure; shares no code with the summary writer.
 */
import { agentCalls, argStrings, commandOf, type AgentCall, type RetentionEntry } from './calls';
import { patchEffects, shellEffects, type ShellEffect } from './shell';
import { MessageMemo, messageMemosKept } from '../message-memo';
import { editFailed, neverFinished } from './outcome';

/** One file touched by one call. */
export interface FileTouch extends ShellEffect {
  /** Index of the message holding the call. */
  index: number;
  /** The tool that touched it. */
  tool: string;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** The file argument of an edit or read tool (`file_path`, `path`, `absolutePath`, `notebook_path`, …). */
function pathArg(a: Record<string, unknown>): string | undefined {
  return (
    str(a.file_path) ??
    str(a.path) ??
    str(a.absolutePath) ??
    str(a.notebook_path) ??
    str(a.target_file) ??
    str(a.filename) ??
    str(a.file)
  );
}

/** Editors with a `command` argument (OpenHands, SWE-agent, Anthropic's text editor tool). */
const EDITORS = /^(str_replace_editor|file_editor|str_replace_based_edit_tool|edit_file_tool)$/i;
/** Tools that write a whole file. */
const WRITERS = /^(write|write_file|write_to_file|create_file|create|aider_edit)$/i;
/** Tools that change part of a file. */
const EDITS = /^(edit|multiedit|notebookedit|edit_file|replace_in_file|str_replace|insert|apply_diff|search_replace)$/i;
/** Tools that read a file. */
const READS = /^(read|read_file|view|view_file|open|cat|notebookread|open_file)$/i;

/**
 * The files `call` touches. Rules, by source:
 * - Claude Code: `Write` (created or rewritten), `Edit`, `MultiEdit`, `NotebookEdit` (edited), `Read` (read);
 * - the product's agent: `write_file`, `edit_file`, `read_file`;
 * - Cline: `write_to_file`, `replace_in_file` (`path` or `absolutePath`), `read_file`;
 * - OpenHands and SWE-agent: `str_replace_editor`/`file_editor` with `command` `create` (created),
 *   `str_replace`/`insert`/`undo_edit`/`edit` (edited), `view` (read); SWE-agent's `create`, `edit`, `open`;
 * - Codex: `apply_patch` (custom tool or inside a shell script: `*** Add/Update/Delete File:`,
 *   `*** Move to:`), and shell scripts (see `shellEffects`);
 * - Aider: a file-named code block (`aider_edit`): whole-file content (created or rewritten) or
 *   SEARCH/REPLACE (edited);
 * - any shell tool: redirections, `tee`, `sed -i`, `cp`, `mv`, `rm`, `touch`, Python writes, Windows
 *   and PowerShell moves and deletions (see `shellEffects`), and `cat`/`head`/`tail`/`sed -n` reads; a
 *   command that failed moved and deleted nothing.
 */
export function fileTouches(call: AgentCall): FileTouch[] {
  // Read once per call: the error rules look at every later call's files for each failure.
  let touches = touchesOf.get(call);
  if (!touches) touchesOf.set(call, (touches = readTouches(call)));
  return touches;
}

/** The files of each call already read (a call's name and arguments never change once read). */
const touchesOf = new MessageMemo<AgentCall, FileTouch[]>();
/**
 * The effects of each arguments object (the calls of one message share theirs between readings of
 * the span, see calls.ts), so a call is parsed for files once in its life.
 */
const effectsOf = new MessageMemo<object, { name: string; effects: ShellEffect[] }>();

function readTouches(call: AgentCall): FileTouch[] {
  let known = effectsOf.get(call.args);
  if (!known || known.name !== call.name)
    effectsOf.set(call.args, (known = { name: call.name, effects: readEffects(call) }));
  const out: FileTouch[] = [];
  for (const e of known.effects) out.push({ ...e, index: call.index, tool: call.name });
  return out;
}

function readEffects(call: AgentCall): ShellEffect[] {
  const a = call.args;
  const p = pathArg(a);
  const name = call.name;
  if (EDITORS.test(name)) {
    if (!p) return [];
    const c = str(a.command) ?? 'edit';
    if (c === 'view') return [{ path: p, action: 'read' }];
    return [{ path: p, action: c === 'create' ? 'created' : 'edited' }];
  }
  if (/^apply_patch$/i.test(name)) return patchEffects(argStrings(a).join('\n'));
  if (WRITERS.test(name) && p) return [{ path: p, action: a.diff !== undefined ? 'edited' : 'created' }];
  if (EDITS.test(name) && p) return [{ path: p, action: 'edited' }];
  if (READS.test(name) && p) return [{ path: p, action: 'read' }];
  const command = commandOf(call);
  if (command !== undefined) return shellEffects(command);
  return [];
}

/** Path as compared: forward slashes, no `./` prefix, no trailing slash. */
export function pathKey(p: string): string {
  return p.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '');
}

/** Files of a span: modified (created, edited, moved to, deleted) and read without being modified. */
export interface SpanFiles {
  /** Path key → what happened last, in order of first modification. */
  modified: Map<string, 'created' | 'edited' | 'deleted' | 'moved'>;
  /** Paths read (and not modified) in the span, in order of first read. */
  read: string[];
}

/**
 * Files modified and read by the calls of messages `from` ≤ index < `to` of `entries`.
 * A path is keyed by {@link pathKey}; when the same file is named relative and absolute, both appear.
 * `calls`: `agentCalls(entries)` when the caller has read them already.
 */
export function spanFiles(
  entries: readonly RetentionEntry[],
  from = 0,
  to = entries.length,
  calls: readonly AgentCall[] = agentCalls(entries),
): SpanFiles {
  return filesOfCalls(calls.filter((c) => c.index >= from && c.index < to));
}

/**
 * {@link spanFiles} over calls already read. The calls of a grown span that the span before had
 * (the same call objects: `agentCalls` never changes a call it returned, and gives a call that
 * got its result since as a new object) are not read again: the reading of those is kept and
 * continued. The calls at the end without a result yet are read on a copy of it each time.
 */
export function filesOfCalls(calls: readonly AgentCall[]): SpanFiles {
  const settled = settledFiles(calls);
  const modified = new Map(settled.modified);
  const read = settled.read.slice();
  readFiles(calls, settled.upTo, calls.length, modified, read);
  return { modified, read: read.filter((k) => !modified.has(k)) };
}

/** Files modified (path key → what happened last) and read, in order, by calls read so far. */
interface FilesReading {
  modified: Map<string, 'created' | 'edited' | 'deleted' | 'moved'>;
  read: string[];
  /** The calls read, in order. */
  calls: AgentCall[];
  upTo: number;
}

/** Spans with fewer calls are read whole (cheap), so they do not push a long span's reading out. */
const KEEP_FROM = 128;
let keptFiles: FilesReading | undefined;

/** The reading of `calls` but those at the end without a result: the kept one continued when it read a prefix of them. */
function settledFiles(calls: readonly AgentCall[]): FilesReading {
  // A process that compacts once never reads a grown span: nothing is kept for one. A short span
  // read in between (another checkpoint's) leaves the long span's reading kept.
  if (!messageMemosKept()) keptFiles = undefined;
  const keep = calls.length >= KEEP_FROM && messageMemosKept();
  let k = keep ? keptFiles : undefined;
  if (k && k.upTo <= calls.length) {
    for (let i = 0; i < k.upTo; i++)
      if (k.calls[i] !== calls[i]) {
        k = undefined;
        break;
      }
  } else k = undefined;
  k ??= { modified: new Map(), read: [], calls: [], upTo: 0 };
  // The calls at the end still without a result are read on a copy: theirs may come next time.
  let to = calls.length;
  while (to > k.upTo && calls[to - 1].result === undefined) to--;
  readFiles(calls, k.upTo, to, k.modified, k.read);
  for (let i = k.upTo; i < to; i++) k.calls.push(calls[i]);
  k.upTo = to;
  if (keep) keptFiles = k;
  return k;
}

/** Reads the files of `calls` from ≤ i < to into `modified` and `read` (the rules of {@link spanFiles}). */
function readFiles(
  calls: readonly AgentCall[],
  from: number,
  to: number,
  modified: FilesReading['modified'],
  read: string[],
): void {
  for (let i = from; i < to; i++) {
    const c = calls[i];
    const command = commandOf(c);
    // A failed edit changed nothing; a refused call did not run.
    if (c.denied || (c.failed === true && c.name !== 'aider_edit' && command === undefined)) continue;
    // A command with no result was interrupted: what it would have done is not known to have happened.
    if (command !== undefined && c.result === undefined) continue;
    // Where no flag says, an edit failed when its report says so (`editFailed`, the ledger's rule too).
    const failedEdit =
      command === undefined && c.failed === undefined && c.result !== undefined && editFailed(c.result);
    // A command that failed moved and deleted nothing, and its patch applied nothing (what it wrote
    // by redirection before failing may stand).
    const failedRun = c.failed === true && command !== undefined;
    // A command the terminal left running (it hung, timed out, was interrupted) changed no file known to
    // be written: a heredoc still waiting for its end marker wrote nothing.
    const unfinished = command !== undefined && c.result !== undefined && neverFinished(c.result);
    const patch = failedRun && /^\*\*\* (?:Add|Update|Delete) File:/m.test(command);
    for (const t of fileTouches(c)) {
      const k = pathKey(t.path);
      if (!k) continue;
      if (t.action !== 'read' && (failedEdit || patch || unfinished)) continue;
      if (failedRun && (t.action === 'moved' || t.action === 'deleted')) continue;
      if (t.action === 'read') {
        if (!read.includes(k)) read.push(k);
      } else {
        const before = modified.get(k);
        modified.set(k, before === 'created' && t.action === 'edited' ? 'created' : t.action);
      }
    }
  }
}
