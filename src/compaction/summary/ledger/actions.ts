/**
 * The actions of a span as data: file operations and commands with their outcomes, read from native
 * tool calls and, for formats that record actions as text, from SWE-agent `<function=…>` blocks and
 * Aider SEARCH/REPLACE blocks. The work-state ledger (`ledger.ts`) is built from these.
 *
 * Pure: no I/O.
 */
import { exceptionLine, isStackFrame, whatFailed } from '../../stack-trace';
import type { ChatMessage, ContextItem } from '../../types';
import { appliedEditPaths, argvCommand, errorLines, isWarningLine, toolCallsOf } from '../../text';
import { textWithPlaceholders } from '../../content-text';
import { listsAppliedEdits, recordedToolOutcome } from '../../tool-outcomes';
import { commandOutcome, fileOutcome } from './run-outcome';
import { isToolOutputText } from '../../text';
import { GrowingSpan } from '../../meter/span-memo';
import { parseJsonObject } from '../../../format/json';
import { MessageMemo } from '../../message-memo';
import { namedFiles } from '../../retention/errors';
import { fatalLine, isDenial, masksStatus, printedOutput } from '../../retention/outcome';
import { MISSING_RESULT_TEXT } from '../../plan/repair';
import { shellWords } from '../../retention/shell';
import { COLLAPSED_POINTER_OPENING } from '../recall-pointer';
import { environmentFacts, type EnvFact } from './environment';

/** What happened to a file. */
export type FileOp = 'read' | 'created' | 'edited' | 'deleted' | 'moved';

/** One action, in the order it happened. `ok` is false when its result reads as a failure. */
export type Action =
  | {
      kind: 'file';
      op: FileOp;
      path: string;
      to?: string;
      symbols: string[];
      /** One changed line of an edit, as written (see {@link changeGist}), when the edit names no symbol. */
      change?: string;
      ok: boolean;
      tool: string;
      error?: string;
    }
  | {
      kind: 'command';
      command: string;
      ok: boolean;
      exit?: number;
      error?: string;
      tool: string;
      /** A probe's negative answer ("no match", "not found"), or "denied by the user": not a failure (see `run-outcome.ts`). */
      answer?: string;
      /** The person refused the run: it did not run (`ok` is false) and is no failure to fix. */
      denied?: true;
      /**
       * For a failed run, the files it names (path keys): in the command and in its output's first 60
       * lines (`retention/errors.ts`, `namedFiles`). An edit of one of them followed by a passing check
       * fixes it.
       */
      named?: string[];
      /** What the output said about programs it probed: missing, or found with a version or path (`environment.ts`). */
      env?: EnvFact[];
    }
  | { kind: 'plan'; text: string; tool: string }
  /** A commit made in the span: Aider's `> Commit <hash> <message>` notice, or `git commit`'s `[branch <hash>] <message>`. */
  | { kind: 'commit'; hash: string; message: string; tool: string };

/** Aider's commit notice, kept by the importer at the end of the reply whose edits it committed. */
const AIDER_COMMIT = /^> Commit ([0-9a-f]{7,40}) (\S.*?)\s*$/gm;
/** `git commit`'s first line of output: `[main e647cd7] message`, `[main (root-commit) e647cd7] message`. */
const GIT_COMMIT_LINE = /^\[[^\]\s]+(?: \(root-commit\))? ([0-9a-f]{7,40})\] (\S.*?)\s*$/gm;

/** The commits a successful `git commit` reports in `output` (none for another command). */
function gitCommits(command: string, output: string | undefined, tool: string): Action[] {
  if (!output || !/\bgit\b[^\n|;&]*\bcommit\b/.test(command)) return [];
  return [...printedOutput(output).matchAll(GIT_COMMIT_LINE)].map((m) => ({
    kind: 'commit' as const,
    hash: m[1],
    message: m[2],
    tool,
  }));
}

export const PATH_KEYS = [
  'file_path',
  'path',
  'filePath',
  'target_file',
  'file',
  'filename',
  'notebook_path',
  'absolute_path',
  'absolutePath',
];
const COMMAND_KEYS = ['command', 'cmd', 'script'];
/** The outcome listed for a command whose call got no result (the product's placeholder stands in its place). */
export const NO_RESULT_ANSWER = 'no result was recorded (interrupted, denied or never answered; outcome unknown)';
const PLAN_TOOL = /todo|task_?list|task_?tracker|update_?plan|^plan$/i;
export const READ_TOOL = /^(read|view|open|cat|read_file|readfile|get_file|file_read)$|read_?file|view_?file/i;
export const WRITE_TOOL = /^(write|create)|write_?to_?file|create_?file|write_?file/i;
export const EDIT_TOOL = /edit|replace|patch|insert|str_replace/i;
export const DELETE_TOOL = /delete|remove_?file|rm_?file/i;
const SHELL_TOOL = /bash|shell|command|exec|terminal|^run|powershell|cmd/i;

export { exitStatus } from './run-outcome';

/**
 * Names a code edit defines or changes, from the new text it writes (functions, classes, types,
 * endpoints), at most 40. The new text of a document (`path` ending in .md, .mdx, .markdown, .txt,
 * .rst or .adoc) is prose, whose words only look like code ("the architecture class"): its headings
 * are named instead (`## GTM and product order` → `GTM and product order`), at most 8.
 */
export function symbolsIn(code: string, path?: string): string[] {
  if (path !== undefined && DOC_PATH.test(path)) return headingsIn(code);
  const out: string[] = [];
  const add = (s: string | undefined) => {
    if (s && s.length > 1 && !out.includes(s) && !KEYWORDS.has(s)) out.push(s);
  };
  for (const re of SYMBOL_RES) for (const m of code.matchAll(re)) add(m[1]);
  for (const m of code.matchAll(ENDPOINT_RE)) add(`${m[1].toUpperCase()} ${m[2]}`);
  for (const m of code.matchAll(DECORATOR_ENDPOINT_RE)) add(`${(m[1] ?? 'route').toUpperCase()} ${m[2]}`);
  return out.slice(0, 40);
}
/** A document: its text is prose, not code. */
const DOC_PATH = /\.(?:md|mdx|markdown|txt|rst|adoc)$/i;

/** The Markdown headings (`#` to `######`) and reStructuredText/AsciiDoc titles of `text`, in order, at most 8. */
function headingsIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^(?:#{1,6}|={1,6})\s+(.+?)\s*#*\s*$/gm)) {
    const h = m[1].replace(/[*_`]/g, '').trim();
    if (h.length > 1 && !out.includes(h)) out.push(h.length > 60 ? `${h.slice(0, 59).trimEnd()}…` : h);
    if (out.length === 8) break;
  }
  return out;
}

const KEYWORDS = new Set([
  'if',
  'for',
  'while',
  'switch',
  'catch',
  'function',
  'return',
  'constructor',
  'else',
  'do',
  'try',
  'with',
  'new',
  'typeof',
  'await',
  'super',
  'this',
]);
const SYMBOL_RES: RegExp[] = [
  /\b(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*[(<]/g,
  /\bclass\s+([A-Za-z_$][\w$]*)/g,
  /\bdef\s+([A-Za-z_]\w*)\s*\(/g,
  /\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=\n]{1,80})?=\s*(?:async\s*)?(?:\([^()\n]*\)|[A-Za-z_$][\w$]*)\s*(?::[^=\n]{1,80})?=>/g,
  /\b(?:interface|enum)\s+([A-Za-z_$][\w$]*)/g,
  /\btype\s+([A-Z][\w$]*)\s*(?:<[^>\n]*>)?\s*=/g,
  /\bfn\s+([A-Za-z_]\w*)/g,
  /\bfunc\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)\s*\(/g,
  /\b(?:struct|trait)\s+([A-Z]\w*)/g,
  /^[ \t]+(?:(?:public|private|protected|static|async|override|readonly|get|set)\s+)*([A-Za-z_$][\w$]*)\s*\([^()\n]*\)\s*(?::\s*[^{\n]{1,80})?\{/gm,
];
const ENDPOINT_RE = /\.(get|post|put|patch|delete)\(\s*['"`](\/[^'"`\s]*)/gi;
const DECORATOR_ENDPOINT_RE = /@(?:\w+\.)?(?:(get|post|put|patch|delete)|route)\(\s*['"](\/[^'"\s]*)/gi;

function parseArgs(args: string): Record<string, unknown> | undefined {
  return parseJsonObject(args);
}

function pick(obj: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const k of keys) {
    const v = obj[k];
    if (typeof v === 'string' && v.trim()) return v.trim();
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return argvCommand(v);
  }
  return undefined;
}

/** New text an edit writes (`new_string`, `content`, a diff's added lines, MultiEdit's edits). */
export function newTextOf(args: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const k of [
    'new_string',
    'new_str',
    'new_text',
    'content',
    'file_text',
    'text',
    'code',
    'insert_text',
    'newText',
  ]) {
    if (typeof args[k] === 'string') parts.push(args[k]);
  }
  if (typeof args.diff === 'string') parts.push(replaceParts(args.diff));
  if (Array.isArray(args.edits))
    for (const e of args.edits as Array<Record<string, unknown>>)
      if (e && typeof e.new_string === 'string') parts.push(e.new_string);
  return parts.join('\n');
}

/** Old text an edit replaces (`old_string`, `old_str`, `old_text`, SEARCH halves, MultiEdit's edits). */
export function oldTextOf(args: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const k of ['old_string', 'old_str', 'old_text', 'oldText'])
    if (typeof args[k] === 'string') parts.push(args[k]);
  if (typeof args.diff === 'string')
    for (const m of args.diff.matchAll(/SEARCH\r?\n([\s\S]*?)\r?\n=======/g)) parts.push(m[1]);
  if (Array.isArray(args.edits))
    for (const e of args.edits as Array<Record<string, unknown>>)
      if (e && typeof e.old_string === 'string') parts.push(e.old_string);
  return parts.join('\n');
}

/**
 * What an edit changed, in one line: the first line of the new text that the old text does not
 * hold (trimmed, at least three characters with a letter or digit), cut at a word boundary to 90
 * characters with "…". A line the old text holds but for a separator at its end (`"a": 1` given a
 * comma to add an entry after it, a statement given its `;`) is context, not the change: it is the
 * gist only when the edit changed nothing else. Undefined when the edit adds no such line (a pure
 * deletion).
 */
export function changeGist(oldText: string, newText: string): string | undefined {
  const lines = oldText.split('\n').map((l) => l.trim());
  const before = new Set(lines);
  const bare = new Set(lines.map(withoutEndSeparator));
  const added = newText
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length >= 3 && !before.has(l) && /[\p{L}\p{N}]/u.test(l));
  const line = added.find((l) => !bare.has(withoutEndSeparator(l))) ?? added[0];
  if (line === undefined || line.length <= 90) return line;
  const cut = line.lastIndexOf(' ', 89);
  return `${line.slice(0, cut > 40 ? cut : 89)}…`;
}

/** `line` without the list or statement separators at its end (`,` `;`), for comparing lines. */
function withoutEndSeparator(line: string): string {
  return line.replace(/[\s,;]+$/, '');
}

/** The REPLACE halves of SEARCH/REPLACE blocks (Cline diffs, Aider), or the text itself. */
function replaceParts(diff: string): string {
  const out: string[] = [];
  for (const m of diff.matchAll(/=======\r?\n([\s\S]*?)(?:>>>>>>>|\+\+\+\+\+\+\+) ?REPLACE/g)) out.push(m[1]);
  return out.length ? out.join('\n') : diff;
}

/** A file operation a shell command or script performs, with the new code it writes when known. */
type ShellFileOp = { op: FileOp; path: string; to?: string; symbols?: string[] };

/**
 * The files a shell command changes, as the files section reads them ({@link shellFileOps}): written
 * by redirection, `tee` or a script (`created`; `append` when only added to, `>>` or `tee -a`),
 * edited in place (`sed -i`), deleted, or moved (`to` where). Files it only reads are left out.
 */
export function shellFileChanges(command: string): Array<{ op: FileOp; path: string; to?: string; append?: true }> {
  return shellFileOps(command).flatMap((f) => {
    if (f.op === 'read') return [];
    const append = f.op === 'created' && appendsTo(command, f.path);
    return [{ op: f.op, path: f.path, ...(f.to ? { to: f.to } : {}), ...(append ? { append: true as const } : {}) }];
  });
}

/** Whether `command` only adds to `path` (`>> path`, `tee -a path`, `Add-Content path`) rather than writing it anew. */
function appendsTo(command: string, path: string): boolean {
  const p = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(
    `>>\\s*['"]?${p}\\b|\\btee\\s+-a\\s+['"]?${p}\\b|\\bAdd-Content\\s+(?:-Path\\s+)?['"]?${p}\\b`,
  ).test(command);
}

/** Redirect targets that are not files (`2>&1`, `/dev/null`, `>&2`, `nul` on Windows). */
function isFileTarget(target: string): boolean {
  return !!target && !/^(&\d*|\/dev\/|nul$|NUL$|\$)/.test(target) && !/^[<>|&]/.test(target);
}

/**
 * File operations a shell command performs that matter later: moves, renames and deletions (see
 * {@link moveOps}; also inside `bash -lc "…"`, `cmd /c`, `powershell -Command`), files written by
 * redirection (`cat > f`, `cat <<EOF > f`, `echo … >> f`, `printf`), `tee`, `touch`, `sed -i`,
 * `cp`, and scripts that write files (`python`/`node` code with `open(p, 'w')`, `write_text`,
 * `writeFileSync`, `Set-Content`/`Out-File`). Heredoc bodies are the new code of the file they
 * are written to (its symbols are read from them) and are not read as commands.
 */
function shellFileOps(command: string): ShellFileOp[] {
  const ops: ShellFileOp[] = [];
  const lines = command.split('\n');
  const commandLines: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const here = /<<-?\s*(['"]?)([\w.-]+)\1/.exec(line);
    if (!here) {
      commandLines.push(line);
      continue;
    }
    const end = here[2];
    let j = i + 1;
    while (j < lines.length && lines[j].trim() !== end) j++;
    const body = lines.slice(i + 1, j).join('\n');
    commandLines.push(line);
    const target =
      /(?:^|[^0-9&>])>>?\s*(['"]?)([^\s'";&|<>]+)\1/.exec(line.replace(/<<-?\s*(['"]?)[\w.-]+\1/, '')) ??
      /\btee\s+(?:-a\s+)?(['"]?)([^\s'";&|<>]+)\1/.exec(line);
    if (target && isFileTarget(target[2]))
      ops.push({ op: 'created', path: target[2], symbols: symbolsIn(body, target[2]) });
    else if (/\b(python3?|node|deno|bun|ruby|perl|pwsh|powershell)\b/.test(line))
      for (const op of scriptWrites(body)) ops.push(op);
    i = j;
  }
  // A lone `&` ends a command too (cmd.exe runs the next one after it; a POSIX shell runs the first in
  // the background); `2>&1` and `&>` are redirections, not separators.
  // Plain assignments (`SRC=a.txt`): a later `cp "$SRC" "$DST"` copies the files they hold.
  const vars = new Map<string, string>();
  let cwd: string | undefined;
  for (const part of unwrapScripts(commandLines.join('\n')).split(/&&|\|\||;|\n|(?<![>&])&(?![&>])/)) {
    const assignment = /^\s*([A-Za-z_]\w*)=(['"]?)([^\s'"$`]+)\2\s*$/.exec(part);
    if (assignment) {
      vars.set(assignment[1], assignment[3]);
      continue;
    }
    const t = (
      vars.size
        ? part.replace(/\$\{(\w+)\}|\$(\w+)/g, (all, a?: string, b?: string) => vars.get(a ?? b ?? '') ?? all)
        : part
    )
      .trim()
      .replace(/^(?:sudo\s+)/, '');
    // `cd DIR && rm -rf .next`: what follows names paths in DIR.
    const cd = CHANGE_DIRECTORY.exec(t);
    if (cd) {
      cwd = joinedPath(cwd, unquote(cd[1]));
      continue;
    }
    const start = ops.length;
    partOps(t, ops);
    if (cwd !== undefined)
      for (let k = start; k < ops.length; k++) {
        const op = ops[k];
        ops[k] = {
          ...op,
          path: joinedPath(cwd, op.path) ?? op.path,
          ...(op.to ? { to: joinedPath(cwd, op.to) ?? op.to } : {}),
        };
      }
  }
  return ops;
}

/** A command that changes the folder the next ones run in: `cd DIR`, `cd /d DIR`, `pushd DIR`, `Set-Location DIR`. */
const CHANGE_DIRECTORY =
  /^(?:cd|chdir|pushd|Set-Location|sl)\s+(?:\/d\s+|-(?:Literal)?Path\s+)?("[^"]+"|'[^']+'|[^\s"']+)\s*$/i;

/** An absolute path: POSIX (`/…`, `~/…`), Windows with a drive letter (`c:\\…`, `c:/…`), a UNC share. */
const ABSOLUTE = /^(?:[/~]|[A-Za-z]:[\\/]|\\\\)/;

/**
 * `path` in the folder `dir` (`c:\\app\\terraform` + `.terraform` → `c:\\app\\terraform\\.terraform`), in
 * `dir`'s separator, with `.` and `..` steps taken; `path` itself when it is absolute or names a
 * variable; undefined when `dir` is unknown or not absolute.
 */
function joinedPath(dir: string | undefined, path: string): string | undefined {
  if (ABSOLUTE.test(path)) return path;
  if (dir === undefined || !ABSOLUTE.test(dir) || /^[$%]/.test(path)) return dir === undefined ? undefined : path;
  const sep = /^[A-Za-z]:|^\\\\/.test(dir) ? '\\' : '/';
  const parts = dir.split(/[\\/]/);
  if (parts[parts.length - 1] === '') parts.pop();
  for (const step of path.split(/[\\/]/)) {
    if (step === '' || step === '.') continue;
    if (step === '..') {
      if (parts.length > 1) parts.pop();
    } else parts.push(step);
  }
  return parts.join(sep);
}

/** The file operations of one simple command of a shell script `t` (see {@link shellFileOps}), pushed to `ops`. */
function partOps(t: string, ops: ShellFileOp[]): void {
  const moves = moveOps(t);
  if (moves) {
    for (const op of moves) ops.push(op);
    return;
  }
  let m: RegExpExecArray | null;
  if (/<</.test(t)) return;
  for (const op of copyOps(t)) ops.push(op);
  m = /(?:^|\s)(?:cat|echo|printf)\b[^>]*?(?:^|[^0-9&>])>>?\s*(\S+)/.exec(t) ?? /^touch\s+(\S+)/.exec(t);
  if (m && isFileTarget(unquote(m[1]))) ops.push({ op: 'created', path: unquote(m[1]) });
  m = /\btee\s+(?:-a\s+)?([^\s|;&>]+)/.exec(t);
  if (m && isFileTarget(unquote(m[1]))) ops.push({ op: 'created', path: unquote(m[1]) });
  m = /^sed\s+(?:-\w+\s+)*-i\S*\s+.*\s(\S+)$/.exec(t);
  if (m) ops.push({ op: 'edited', path: unquote(m[1]) });
  m = /\b(?:Set-Content|Add-Content|Out-File)\s+(?:-(?:Path|FilePath)\s+)?(['"]?)([^\s'"]+)\1/i.exec(t);
  if (m) ops.push({ op: 'created', path: m[2] });
  if (/^(python3?|node)\s+-[ce]\s/.test(t)) for (const op of scriptWrites(t)) ops.push(op);
  for (const op of shellReads(t)) ops.push(op);
}

/**
 * `script` with the scripts of wrapper shells inlined (`bash -lc "rm x"`, `sh -c 'mv a b'`, `cmd /c
 * del x`, `powershell -NoProfile -Command "Remove-Item x"`): the wrapper and its script's quotes removed,
 * so the script's own commands are read like any others.
 */
function unwrapScripts(script: string): string {
  if (!/(?:sh|cmd|pwsh|powershell)(?:\.exe)?\s/i.test(script)) return script;
  let out = '';
  let rest = script;
  for (let m = WRAPPER_RE.exec(rest); m; m = WRAPPER_RE.exec(rest)) {
    out += rest.slice(0, m.index);
    rest = rest.slice(m.index + m[0].length);
    const q = rest[0];
    if (q === '"' || q === "'") {
      const end = rest.indexOf(q, 1);
      out += end < 0 ? rest.slice(1) : rest.slice(1, end);
      rest = end < 0 ? '' : rest.slice(end + 1);
    }
  }
  return out + rest;
}
/** A wrapper shell up to its script: its name, its options, and the option after which the script comes. */
const WRAPPER_RE =
  /(?<![\w.-])(?:\S*[\\/])?(?:(?:ba|z|da)?sh|cmd(?:\.exe)?|pwsh(?:\.exe)?|powershell(?:\.exe)?)\s+(?:(?!-\w*c\s|\/[ck]\s|-command\s)[-/]\w+(?:\s+(?![-/"'])[\w.]+)?\s+)*(?:-\w*c|\/[ck]|-command)\s+/i;

/** PowerShell parameters that take a value (other `-Name` words are switches). */
const PS_VALUE_PARAMS = /^-(?:path|literalpath|destination|newname|filter|include|exclude|erroraction)$/i;

/** The folder of `path` with its separator (`src/` of `src/a.ts`), '' for a bare name. */
function folderPart(path: string): string {
  const at = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return at < 0 ? '' : path.slice(0, at + 1);
}

/**
 * The files one copy command touches: `cp [-opts] src… dest`, cmd.exe `copy [/y] src dest`, PowerShell
 * `Copy-Item [-Path] src [-Destination] dest` (alias `cpi`). A copy reads its sources and creates its
 * destination; a destination that is a folder (`dest/`) or a variable (`$DST`) names no file. Empty
 * for any other command.
 */
function copyOps(segment: string): ShellFileOp[] {
  const words = shellWords(segment);
  const name = (words[0] ?? '').toLowerCase();
  if (!/^(?:cp|copy|copy-item|cpi)$/.test(name) || words.some((w) => /^[<>|]/.test(w))) return [];
  let from: string[];
  let to: string | undefined;
  if (name === 'copy-item' || name === 'cpi') {
    const pos: string[] = [];
    let path: string | undefined;
    for (let i = 1; i < words.length; i++) {
      const w = words[i];
      if (/^-(?:path|literalpath)$/i.test(w)) path = words[++i];
      else if (/^-destination$/i.test(w)) to = words[++i];
      else if (PS_VALUE_PARAMS.test(w)) i++;
      else if (!w.startsWith('-')) pos.push(w);
    }
    from = (path ?? pos.shift() ?? '').split(',').filter(Boolean);
    to = to ?? pos.shift();
  } else {
    // Options (`-r`, `--force`, cmd's `/y`) are no files.
    const files = words.slice(1).filter((w) => !w.startsWith('-') && !/^\/[a-z-]{1,2}$/i.test(w));
    if (files.length < 2) return [];
    to = files[files.length - 1];
    from = files.slice(0, -1).flatMap((f) => (name === 'copy' ? f.split('+') : [f]));
  }
  if (!to || !isFileTarget(to) || /[\\/]$/.test(to)) return [];
  return [
    { op: 'created', path: to },
    ...from.filter((f) => isFileTarget(f) && !/[*?]/.test(f)).map((f) => ({ op: 'read' as const, path: f })),
  ];
}

/**
 * Moves, renames and deletions of one simple command, or undefined when it is none: `mv`, `git mv`,
 * `rm`, `rmdir`, `git rm` (not `--cached`, which keeps the file), Windows `ren`/`rename`, `move`,
 * `del`/`erase`/`rd`, PowerShell `Remove-Item`, `Move-Item`, `Rename-Item` (and their aliases `ri`,
 * `mi`, `rni`). A rename's new name lives in the old path's folder. `-WhatIf` changes nothing.
 */
function moveOps(segment: string): ShellFileOp[] | undefined {
  const words = segment.split(/\s+/).filter(Boolean);
  if (words[0] === 'git') {
    const sub = words.findIndex((w, i) => i > 0 && !w.startsWith('-') && !/^-[Cc]$/.test(words[i - 1]));
    if (sub < 0 || !/^(mv|rm)$/.test(words[sub])) return undefined;
    if (words[sub] === 'rm' && words.includes('--cached')) return [];
    words.splice(0, sub);
  }
  const name = (words[0] ?? '').toLowerCase();
  const args = words.slice(1).filter((w) => !/[<>|]/.test(w));
  // Options (`-f`, `--force`, cmd's `/q`) are never files; PowerShell's valued ones are read apart.
  const plain = args.filter((w) => !w.startsWith('-') && !/^\/[a-z-]{1,2}$/i.test(w)).map(unquote);
  const moved = (from: string, to: string): ShellFileOp[] => [{ op: 'moved', path: from, to }];
  switch (name) {
    case 'mv':
    case 'move':
      return plain.length === 2 ? moved(plain[0], plain[1]) : [];
    case 'rm':
    case 'rmdir':
    case 'del':
    case 'erase':
    case 'rd':
      return plain.filter((p) => !/[*?]/.test(p)).map((p) => ({ op: 'deleted' as const, path: p }));
    case 'ren':
    case 'rename':
      // Perl's rename takes an expression first (`rename 's/a/b/' *.txt`): no rename of one file.
      if (plain.length !== 2 || /^s\W/.test(plain[0])) return name === 'ren' ? [] : undefined;
      return moved(plain[0], folderPart(plain[0]) + plain[1]);
    case 'remove-item':
    case 'ri':
    case 'move-item':
    case 'mi':
    case 'rename-item':
    case 'rni': {
      const named = new Map<string, string>();
      const positional: string[] = [];
      for (let i = 0; i < args.length; i++) {
        const w = args[i];
        if (PS_VALUE_PARAMS.test(w) && i + 1 < args.length) named.set(w.slice(1).toLowerCase(), unquote(args[++i]));
        else if (/^-whatif$/i.test(w)) return [];
        else if (!w.startsWith('-')) positional.push(unquote(w));
      }
      const from = named.get('path') ?? named.get('literalpath') ?? positional.shift();
      if (!from) return [];
      if (name === 'remove-item' || name === 'ri')
        return [from, ...positional].flatMap((p) => p.split(',')).map((p) => ({ op: 'deleted' as const, path: p }));
      const rename = name === 'rename-item' || name === 'rni';
      const to = named.get(rename ? 'newname' : 'destination') ?? positional.shift();
      if (!to) return [];
      return moved(from, rename && !/[\\/]/.test(to) ? folderPart(from) + to : to);
    }
    default:
      return undefined;
  }
}

/** Programs that print a file: their file arguments were read. */
// Ends where a word does not go on (`\b` would cut `sed -n '1,80p'` before its closing quote).
const SHOW_FILE = /^(?:cat|head|tail|nl|less|more|bat|type|Get-Content|gc|sed\s+-n\s+(?:'[^']*'|"[^"]*"|\S+))(?![\w-])/;

/** Files a display command reads (`cat a b`, `sed -n '1,80p' f`, `head -50 f | …`): arguments that look like files. */
function shellReads(segment: string): ShellFileOp[] {
  const stage = segment.split('|')[0].trim();
  if (/[<>]/.test(stage)) return [];
  const m = SHOW_FILE.exec(stage);
  if (!m) return [];
  const out: ShellFileOp[] = [];
  // Quoted words stay whole: `cat 'LM Studio configuration.md'` reads one file, not two.
  for (const p of shellWords(stage.slice(m[0].length).trim())) {
    if (!p || p.startsWith('-') || /^\d+$/.test(p) || /[*?$`;&|()]/.test(p)) continue;
    if (/\.[A-Za-z]\w{0,9}$/.test(p) || /[\\/]/.test(p)) out.push({ op: 'read', path: p });
  }
  return out;
}

/** Files a Python or JavaScript script writes: `open(p, 'w')`, `Path(p).write_text`, `fs.writeFileSync(p`. */
function scriptWrites(code: string): ShellFileOp[] {
  const out: ShellFileOp[] = [];
  const res = [
    /\bopen\(\s*(?:r|f)?(['"])([^'"\n]+)\1\s*,\s*(['"])[wax]b?\+?\3/g,
    /\bPath\(\s*(?:r|f)?(['"])([^'"\n]+)\1\s*\)\s*\.write_(?:text|bytes)\(/g,
    /\b(?:fs\.)?(?:writeFileSync|writeFile|appendFileSync)\(\s*(['"`])([^'"`\n]+)\1/g,
  ];
  for (const re of res) for (const m of code.matchAll(re)) out.push({ op: 'edited', path: m[2] });
  return out;
}

function unquote(s: string): string {
  return s.replace(/^['"]|['"]$/g, '');
}

/** `*** Add File: p`, `*** Update File: p` (+ `*** Move to: q`), `*** Delete File: p` of an apply_patch input. */
function patchOps(patch: string): Array<{ op: FileOp; path: string; to?: string; code: string; change?: string }> {
  const ops: Array<{ op: FileOp; path: string; to?: string; code: string; change?: string }> = [];
  const re = /^\*\*\* (Add|Update|Delete) File: (.+)$/gm;
  const heads = [...patch.matchAll(re)];
  heads.forEach((h, i) => {
    const body = patch.slice(h.index + h[0].length, i + 1 < heads.length ? heads[i + 1].index : patch.length);
    const move = /^\*\*\* Move to: (.+)$/m.exec(body);
    const added = body
      .split('\n')
      .filter((l) => l.startsWith('+'))
      .map((l) => l.slice(1))
      .join('\n');
    const removed = body
      .split('\n')
      .filter((l) => l.startsWith('-'))
      .map((l) => l.slice(1))
      .join('\n');
    const op: FileOp = h[1] === 'Add' ? 'created' : h[1] === 'Delete' ? 'deleted' : move ? 'moved' : 'edited';
    ops.push({
      op,
      path: h[2].trim(),
      to: move?.[1].trim(),
      code: added,
      change: op === 'edited' ? changeGist(removed, added) : undefined,
    });
  });
  return ops;
}

/**
 * Actions of one tool call, given its result's text and the success flag the recording carries
 * for it (`recorded`, undefined when none): see `run-outcome.ts` for how the outcome is decided.
 */
function callActions(name: string, rawArgs: string, result: string | undefined, recorded?: boolean): Action[] {
  // The output without a recording's envelope, label and status line: its error line is the tool's own.
  const printed = result === undefined ? undefined : printedOutput(result);
  const failure = (ok: boolean, command?: string) =>
    printed === undefined || ok
      ? undefined
      : isCollapsedRecord(printed)
        ? collapsedError(printed)
        : tellingLine(printed, command);
  const edit = fileOutcome(false, result, recorded).ok;
  const ok = edit;
  // A file tool's failed result is the tool's own message, which may quote the file's text (an
  // edit's old text): its reason is the line saying it failed, never a quoted line of content.
  const error =
    printed === undefined || edit
      ? undefined
      : isCollapsedRecord(printed)
        ? collapsedError(printed)
        : toolFailureLine(printed);
  const args = parseArgs(rawArgs) ?? {};
  const out: Action[] = [];
  if (PLAN_TOOL.test(name)) return [{ kind: 'plan', text: rawArgs, tool: name }];
  // The placeholder the product added for a call with no result says nothing of how it went.
  const missing = printed !== undefined && printed.trim() === MISSING_RESULT_TEXT;
  if (printed !== undefined && (missing || isDenial(printed))) {
    // A refused call did not run: a command is listed as denied, a file tool changed and read nothing.
    // A call with no result is listed as such, neither failed nor succeeded.
    const refused = pick(args, COMMAND_KEYS);
    const answer = missing ? NO_RESULT_ANSWER : 'denied by the user';
    return refused && SHELL_TOOL.test(name)
      ? [{ kind: 'command', command: refused, ok: false, denied: true, answer, tool: name }]
      : [];
  }
  const patchText =
    typeof args.input === 'string'
      ? args.input
      : typeof args.patch === 'string'
        ? args.patch
        : /^\*\*\* Begin Patch/.test(rawArgs)
          ? rawArgs
          : undefined;
  if (patchText && /\*\*\* (Add|Update|Delete) File:/.test(patchText)) {
    for (const p of patchOps(patchText))
      out.push({
        kind: 'file',
        op: p.op,
        path: p.path,
        to: p.to,
        symbols: symbolsIn(p.code, p.path),
        ...(p.change ? { change: p.change } : {}),
        ok,
        tool: name,
        error,
      });
    return out;
  }
  const editorCommand =
    typeof args.command === 'string' && /^(view|create|str_replace|insert|undo_edit|write)$/.test(args.command)
      ? args.command
      : undefined;
  const path = pick(args, PATH_KEYS);
  if (editorCommand && path) {
    const op: FileOp =
      editorCommand === 'view'
        ? 'read'
        : editorCommand === 'create' || editorCommand === 'write'
          ? 'created'
          : 'edited';
    const fine = op === 'read' ? fileOutcome(true, result, recorded).ok : ok;
    return [
      {
        kind: 'file',
        op,
        path,
        symbols: op === 'read' ? [] : symbolsIn(newTextOf(args), path),
        ...(op === 'edited' ? withChange(args) : {}),
        ok: fine,
        tool: name,
        error:
          printed === undefined || fine
            ? undefined
            : isCollapsedRecord(printed)
              ? collapsedError(printed)
              : toolFailureLine(printed),
      },
    ];
  }
  const command =
    pick(args, COMMAND_KEYS) ?? (SHELL_TOOL.test(name) && !rawArgs.trim().startsWith('{') ? rawArgs.trim() : undefined);
  if (command && SHELL_TOOL.test(name) && /\*\*\* (Add|Update|Delete) File:/.test(command)) {
    // `apply_patch <<'PATCH' … PATCH` run through the shell (Codex): the patch's files.
    for (const p of patchOps(command))
      out.push({
        kind: 'file',
        op: p.op,
        path: p.path,
        to: p.to,
        symbols: symbolsIn(p.code, p.path),
        ...(p.change ? { change: p.change } : {}),
        ok,
        tool: 'apply_patch',
        error,
      });
    return out;
  }
  // A command whose call got no result (none recorded) ran with an outcome nobody saw: listed as such.
  if (command && SHELL_TOOL.test(name) && result === undefined && recorded === undefined)
    return [{ kind: 'command', command, ok: false, denied: true, answer: NO_RESULT_ANSWER, tool: name }];
  if (command && SHELL_TOOL.test(name)) {
    const run = commandOutcome(command, result, recorded);
    const env = result === undefined ? [] : environmentFacts(command, result, !run.ok || run.answer !== undefined);
    out.push({
      kind: 'command',
      command,
      ok: run.ok,
      exit: run.exit,
      error: failure(run.ok, command),
      tool: name,
      ...(run.answer ? { answer: run.answer } : {}),
      ...(run.ok ? {} : { named: namedFiles(command, (result ?? '').split('\n', 60).join('\n')) }),
      ...(env.length ? { env } : {}),
    });
    if (run.ok) for (const c of gitCommits(command, result, name)) out.push(c);
    // A command with no result was interrupted (the recording goes on without it): what it would have
    // written, moved or deleted is not known to have happened.
    if (result !== undefined)
      for (const f of shellFileOps(command))
        out.push({ kind: 'file', ...f, symbols: f.symbols ?? [], ok: run.ok, tool: name });
    return out;
  }
  if (path) {
    const op: FileOp | undefined = DELETE_TOOL.test(name)
      ? 'deleted'
      : WRITE_TOOL.test(name)
        ? 'created'
        : EDIT_TOOL.test(name)
          ? 'edited'
          : READ_TOOL.test(name)
            ? 'read'
            : undefined;
    if (op) {
      const fine = op === 'read' ? fileOutcome(true, result, recorded).ok : ok;
      out.push({
        kind: 'file',
        op,
        path,
        symbols: op === 'read' || op === 'deleted' ? [] : symbolsIn(newTextOf(args), path),
        ...(op === 'edited' ? withChange(args) : {}),
        ok: fine,
        tool: name,
        error: op === 'read' ? failure(fine) : error,
      });
    }
  }
  return out;
}

/**
 * Whether one tool call succeeded, by the ledger's rules (`run-outcome.ts`: the recorded flag, then a
 * stated exit status, then the wording only of output that is not content): `ok` false when any of
 * its actions failed; `answer` for a probe that answered "no". Undefined for a call the ledger reads
 * no action from (an unknown tool), whose outcome is then the caller's to judge.
 *
 * @param name Tool name. @param rawArgs Arguments (JSON text). @param result The tool result's text.
 * @param recorded The success flag the recording carries, when it has one.
 */
export function callOutcome(
  name: string,
  rawArgs: string,
  result: string,
  recorded?: boolean,
): { ok: boolean; answer?: string; denied?: true } | undefined {
  // A refused call did not run: its outcome is the refusal, whatever the call would have done.
  if (isDenial(printedOutput(result))) return { ok: false, denied: true, answer: 'denied by the user' };
  let ok = true;
  let answer: string | undefined;
  let any = false;
  for (const a of callActions(name, rawArgs, result, recorded)) {
    if (a.kind === 'plan' || a.kind === 'commit') continue;
    any = true;
    ok &&= a.ok;
    if (a.kind === 'command') answer ??= a.answer;
  }
  if (!any) return undefined;
  return answer === undefined ? { ok } : { ok, answer };
}

/** `{ change }` of an edit's arguments, or nothing when it adds no line (see {@link changeGist}). */
function withChange(args: Record<string, unknown>): { change?: string } {
  const change = changeGist(oldTextOf(args), newTextOf(args));
  return change ? { change } : {};
}

/** A line that states only an exit status ("Exit code 1", "Command failed with exit code 1."): it tells no cause. */
const BARE_STATUS =
  /^(?:exit(?:ed)?(?: with)? (?:code|status)|command failed with exit code|process exited with code)\s*:?\s*-?\d+\.?$/i;

/**
 * A terminal's note that the command never finished: OpenHands' "[The command has no new output after
 * 30 seconds…]" and "[The command timed out after 15.0 seconds…]", a shell's "command timed out".
 */
const HUNG = /^\[?(?:The command (?:has no new output after|timed out after|was interrupted)|command timed out\b)/i;

/**
 * `printed` without the lines that echo `command` back (a terminal shows what was typed, a heredoc's
 * body included): the command is not its own outcome. `printed` as it is when only the echo is left.
 */
function withoutEcho(printed: string, command: string | undefined): string {
  if (!command) return printed;
  const typed = new Set(
    command
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.length >= 3),
  );
  const kept = printed.split('\n').filter((l) => !typed.has(l.trim()));
  return kept.some((l) => l.trim()) ? kept.join('\n') : printed;
}

/**
 * The line of a failed call's output that tells the cause: a terminal's note that the command hung
 * or timed out ({@link HUNG}), else its first error line, else its first line naming an exception
 * class (no stack frame: `stack-trace.ts`), else its first line; a bare exit status gives way to the
 * first error line after it, else the output's last line that is not one (what the program printed
 * last before it stopped). Lines echoing `command` (the shell command run) are never the cause.
 */
/** How the product's record of a collapsed tool result opens (`rewrite/collapse.ts`). */
const COLLAPSED_RECORD = '[tool result collapsed] ';
/** The error line a collapsed record kept from the output it stands for (`→ error, N characters, M lines; <line>`). */
const COLLAPSED_ERROR = new RegExp(
  ` → error, \\d+ characters?, \\d+ lines?; (.+?)(?:; last line: .*)?\\. ${COLLAPSED_POINTER_OPENING}`,
);

/** True when `printed` is the product's placeholder for a collapsed tool result, not the tool's output. */
function isCollapsedRecord(printed: string): boolean {
  return printed.trimStart().startsWith(COLLAPSED_RECORD);
}

/**
 * The error line of the original output a collapsed record (`printed`) kept, else undefined: the
 * record's own words are never quoted as the tool's error.
 */
function collapsedError(printed: string): string | undefined {
  return COLLAPSED_ERROR.exec(printed)?.[1]?.trim().slice(0, 240);
}

function tellingLine(output: string, command?: string): string {
  const hung = output.split('\n').find((l) => HUNG.test(l.trim()));
  if (hung !== undefined) return hung.trim().slice(0, 240);
  const printed = withoutEcho(output, command);
  // A run whose status was masked failed on the fatal line its output opens or ends on: that line says why.
  const fatal = command !== undefined && masksStatus(command) ? fatalLine(printed) : '';
  if (fatal) return fatal;
  const line = errorLines(printed, 1)[0] ?? exceptionLine(printed) ?? firstLine(printed);
  if (!BARE_STATUS.test(line.trim())) return line;
  // Lines keep their indentation: a traceback's frames are told from its exception by it.
  const rest = printed.split('\n').filter((l) => l.trim() && !BARE_STATUS.test(l.trim()));
  if (!rest.length) return line;
  // The last line printed, or for a stack trace's last frame the error line the frames belong to.
  return (
    errorLines(rest.join('\n'), 1)[0] ??
    exceptionLine(rest.join('\n')) ??
    whatFailed(rest, rest.length - 1) ??
    rest[rest.length - 1]
  )
    .trim()
    .slice(0, 240);
}

/** Words a file tool's message uses to say it failed ("No replacement was performed", "String to replace not found"). */
const TOOL_FAILED =
  /\b(?:no replacement|not performed|did not appear|not found|no match|does not exist|no such file|failed|errors?|invalid|cannot|can't|could not|unable)\b/i;

/**
 * The reason a file tool (edit, write, read) failed, from its output: the tool's message comes first
 * and may quote file content over many lines (an edit's old text, where a `raise ValueError(` line is
 * code, not the failure), so the first line using failure words ({@link TOOL_FAILED}) is the
 * reason, else the cause {@link tellingLine} finds. At most 240 characters.
 */
export function toolFailureLine(printed: string): string {
  const line = printed.split(/\r?\n/).find((l) => TOOL_FAILED.test(l));
  return line !== undefined ? line.trim().slice(0, 240) : tellingLine(printed);
}

function firstLine(text: string): string {
  // A frame says where, not what: the first line that is not one; a warning ("npm warn …") is not
  // what failed when a line after it is no warning.
  const lines = text.split('\n').filter((l) => l.trim() && !isStackFrame(l));
  return (lines.find((l) => !isWarningLine(l.trim())) ?? lines[0] ?? '').trim().slice(0, 240);
}

/**
 * The commands an assistant message runs (its shell tool calls and SWE-agent text actions), as the
 * ledger's command actions give them (the same argument keys and shell tools), in order.
 */
export function commandsRun(message: ChatMessage): string[] {
  const out: string[] = [];
  const take = (name: string, rawArgs: string) => {
    if (!SHELL_TOOL.test(name)) return;
    const command =
      pick(parseArgs(rawArgs) ?? {}, COMMAND_KEYS) ?? (!rawArgs.trim().startsWith('{') ? rawArgs.trim() : undefined);
    if (command) out.push(command);
  };
  for (const c of toolCallsOf(message)) take(c.name, c.arguments);
  const text = textWithPlaceholders(message.content);
  if (text.includes('<function=')) for (const f of textFunctionCalls(text)) take(f.name, f.args);
  return out;
}

/** SWE-agent text actions: `<function=name>` with `<parameter=key>value</parameter>` blocks. */
function textFunctionCalls(text: string): Array<{ name: string; args: string }> {
  const out: Array<{ name: string; args: string }> = [];
  for (const m of text.matchAll(/<function=([\w.-]+)>([\s\S]*?)(?:<\/function>|$)/g)) {
    const args: Record<string, string> = {};
    for (const p of m[2].matchAll(/<parameter=([\w.-]+)>([\s\S]*?)<\/parameter>/g))
      args[p[1]] = p[2].replace(/^\n|\n$/g, '');
    out.push({ name: m[1], args: JSON.stringify(args) });
  }
  return out;
}

/**
 * Aider's edits: SEARCH/REPLACE blocks (the path on the line before the fence, the REPLACE half as
 * new code; an empty SEARCH creates the file) and whole-file blocks (`whole` edit format: a line that
 * is only the file's path, then a fence holding the file's new content).
 */
function aiderEdits(text: string): Array<{ path: string; created: boolean; code: string; change?: string }> {
  const out: Array<{ path: string; created: boolean; code: string; change?: string }> = [];
  const re =
    /(?:^|\n)([^\n`]*[\w-]\.[\w]+|[^\n`\s]*\/[^\n`\s]+)[ \t]*\n```[^\n]*\n<<<<<<< SEARCH\n([\s\S]*?)\n?=======\n([\s\S]*?)\n?>>>>>>> REPLACE/g;
  for (const m of text.matchAll(re))
    out.push({ path: m[1].trim(), created: m[2].trim() === '', code: m[3], change: changeGist(m[2], m[3]) });
  for (const m of text.matchAll(WHOLE_FILE_BLOCK)) {
    if (!m[2].includes('<<<<<<< SEARCH')) out.push({ path: m[1], created: false, code: m[2] });
  }
  return out;
}
/** A whole-file block: a line holding only a path with an extension, then a fenced block up to its closing fence (bounded: no backtracking blow-up on long lines). */
const WHOLE_FILE_BLOCK = /^([\w@~./-]{1,250}\.[A-Za-z]\w{0,9})[ \t]*\n```[^\n]*\n([\s\S]*?)^```[ \t]*$/gm;

/**
 * The actions of `items`, in order. A tool call's outcome comes from the tool message answering it;
 * a text action's (SWE-agent) from the tool-output user message after it. Earlier summaries are
 * skipped (the ledger carries their lines itself).
 */
export function actionsOf(items: readonly ContextItem[]): Action[] {
  // The notes and the compactor both ask for the same span: answered once (arrays of items only
  // ever grow at the end, so the length and the last item tell that it is the same list).
  const memo = listMemo.get(items);
  if (memo && memo.length === items.length && memo.last === items[items.length - 1]) return memo.actions;
  // The same span as the last one read, or that span grown at its end (the next compaction over
  // read messages), reads only what is new. Short lists (a re-attached file's call) are cheap to
  // read and would push the long span out.
  let actions: Action[];
  if (items.length < 256) actions = new SpanActions().read(items, 0);
  else {
    let kept: { state: SpanActions; from: number } | undefined;
    let slot = 0;
    for (; slot < lastSpans.length && !kept; slot++) kept = lastSpans[slot].get(items);
    // The slot that matched, else the one used least recently.
    slot = kept ? slot - 1 : 1 - recentSpan;
    const reading = kept?.state ?? new SpanActions();
    actions = reading.read(items, kept?.from ?? 0);
    lastSpans[slot].set(items, reading, kept?.from ?? 0);
    recentSpan = slot;
  }
  listMemo.set(items, { length: items.length, last: items[items.length - 1], actions });
  return actions;
}

const listMemo = new WeakMap<
  readonly ContextItem[],
  { length: number; last: ContextItem | undefined; actions: Action[] }
>();
/**
 * The spans read last: two, since a compaction reads its span and then the messages kept after it
 * (`after`), and one slot alone would lose the long span's reading to the short one every time.
 */
const lastSpans = [new GrowingSpan<SpanActions>(), new GrowingSpan<SpanActions>()];
/** The slot of {@link lastSpans} used last. */
let recentSpan = 0;

/**
 * The running actions of a span that grows at its end. An assistant message's actions depend on the
 * tool messages answering its calls (the last answer of an id, wherever it stands) and on the
 * message after it, so new messages can change the actions of the last message read and of a call
 * whose answer arrives only now; an id answered twice makes the whole span read again.
 */
class SpanActions {
  /** The last tool message answering each id. */
  private results = new Map<string, ChatMessage>();
  private actions: Action[] = [];
  /** `starts[i]`: where item i's actions begin in `actions`. */
  private starts: number[] = [];
  /** Calls read without an answer: id → index of the first message making it. */
  private pending = new Map<string, number>();

  /** The array last returned, while no message was read since. */
  private returned: Action[] | undefined;

  /**
   * The actions of `items`, of which the first `from` were read into this state before: the array
   * returned last when nothing is new (the ledger built from it is then reused), else a new array.
   */
  read(items: readonly ContextItem[], from: number): Action[] {
    if (from > 0 && from === items.length && this.returned) return this.returned;
    let redo = from > 0 ? from - 1 : 0;
    for (let i = from; i < items.length && redo > 0; i++) {
      const m = items[i].message;
      if (m.role !== 'tool') continue;
      const id = (m as { tool_call_id?: string }).tool_call_id ?? '';
      if (this.results.has(id)) redo = 0;
      else redo = Math.min(redo, this.pending.get(id) ?? redo);
    }
    if (redo === 0) {
      this.results = new Map();
      this.pending = new Map();
      from = 0;
    }
    for (let i = from; i < items.length; i++) {
      const m = items[i].message;
      if (m.role === 'tool') this.results.set((m as { tool_call_id?: string }).tool_call_id ?? '', m);
    }
    if (redo < this.starts.length) this.actions.length = this.starts[redo];
    this.starts.length = redo;
    for (let index = redo; index < items.length; index++) {
      const it = items[index];
      this.starts.push(this.actions.length);
      if (it.kind === 'summary' || it.message.role !== 'assistant') continue;
      const calls = toolCallsOf(it.message);
      const deps: Array<ChatMessage | undefined> = calls.map((c) => this.results.get(c.id));
      for (const c of calls) {
        if (this.results.has(c.id)) continue;
        if (!this.pending.has(c.id)) this.pending.set(c.id, index);
      }
      deps.push(items[index + 1]?.message);
      for (const a of messageActions(it.message, calls, deps)) this.actions.push(a);
    }
    return (this.returned = this.actions.slice());
  }
}

/**
 * Actions of one assistant message, cached per message object: messages are never mutated, so the
 * actions change only when what answered them (`deps`: the result of each call, then the next
 * message) is another message. A compaction then reads each call's result once, not once per run.
 */
const actionCache = new MessageMemo<object, { deps: Array<ChatMessage | undefined>; actions: Action[] }>();

function messageActions(
  message: ChatMessage,
  calls: ReadonlyArray<{ id: string; name: string; arguments: string }>,
  deps: Array<ChatMessage | undefined>,
): Action[] {
  const hit = actionCache.get(message);
  if (hit && hit.deps.length === deps.length && hit.deps.every((d, i) => d === deps[i])) return hit.actions;
  const out: Action[] = [];
  calls.forEach((c, k) => {
    const result = deps[k];
    for (const a of callActions(
      c.name,
      c.arguments,
      result ? textWithPlaceholders(result.content) : undefined,
      recordedToolOutcome(result),
    ))
      out.push(a);
  });
  const text = textWithPlaceholders(message.content);
  const next = deps[deps.length - 1];
  if (text) {
    const nextText = next ? textWithPlaceholders(next.content) : '';
    const observation =
      next && next.role === 'user' && isToolOutputText(nextText)
        ? nextText.replace(/^(OBSERVATION:|Observation:)\s*/, '')
        : undefined;
    for (const f of textFunctionCalls(text)) for (const a of callActions(f.name, f.args, observation)) out.push(a);
    if (text.includes('> Commit '))
      for (const m of text.matchAll(AIDER_COMMIT))
        out.push({ kind: 'commit', hash: m[1], message: m[2], tool: 'aider' });
    // An Aider reply lists the edits Aider applied; a block without its notice was never applied.
    const applied = appliedEditPaths(text, listsAppliedEdits(message));
    for (const e of aiderEdits(text))
      if (!applied || applied.has(e.path))
        out.push({
          kind: 'file',
          op: e.created ? 'created' : 'edited',
          path: e.path,
          symbols: symbolsIn(e.code, e.path),
          ...(!e.created && e.change ? { change: e.change } : {}),
          ok: true,
          tool: 'edit block',
        });
  }
  actionCache.set(message, { deps, actions: out });
  return out;
}
