/**
 * Which quoted file text is still the file's: a line a tool result showed from a file (a read, a
 * `cat`) or an edit wrote into it stops being the file's content once a later edit replaced it, a
 * later write left it out, the file was deleted or moved, or a later read showed the file again (that
 * read is its content then). The summary quotes file text as current only where no later work in the
 * span, nor in the messages kept after it, superseded it.
 *
 * Read from the tool calls: Claude Code `Read`/`Edit`/`Write`, Cline `read_file`/`replace_in_file`/
 * `write_to_file`, OpenHands `str_replace_editor`, Codex `cat` and `apply_patch` through the shell,
 * and the shell commands the files section reads as file changes (`sed -i`, `echo x > f`, `cat > f
 * <<EOF`, `rm`, `mv`: `shellFileChanges`).
 *
 * Pure: no I/O.
 */
import type { ContextItem } from '../types';
import { argvCommand, toolCallsOf } from '../text';
import { textWithPlaceholders } from '../content-text';
import { parseJsonObject } from '../../format/json';
import { recordedToolOutcome } from '../tool-outcomes';
import { fileOutcome } from './ledger/run-outcome';
import {
  DELETE_TOOL,
  EDIT_TOOL,
  newTextOf,
  oldTextOf,
  PATH_KEYS,
  READ_TOOL,
  shellFileChanges,
  WRITE_TOOL,
} from './ledger/actions';

/** What one tool call did to a file's text. */
type FileEvent =
  | { kind: 'read'; path: string }
  | { kind: 'gone'; path: string }
  /** A whole file written: `text` its content, undefined when not known. */
  | { kind: 'write'; path: string; text: string | undefined }
  /** Text replaced: `old` what it replaced (undefined: not known), `text` what it wrote. */
  | { kind: 'edit'; path: string; old: string | undefined; text: string; tool: string };

/** An event with the position of the message that made it (the span's index; the kept messages after it) and its own. */
type Placed = FileEvent & { at: number; n: number };

/** The lines an edit wrote, with the tool and the file; see {@link FileCurrency.newText}. */
export interface WrittenText {
  tool: string;
  path: string;
  /** Lines of the edit's new text, trimmed, those later work superseded left out. */
  lines: string[];
  /** Lines of the text the edit replaced, trimmed. */
  replaced: string[];
}

/** Answers about the file text a span's tool results and edits hold. */
export interface FileCurrency {
  /**
   * True when `line`, a line of the tool result at `index` in the span that showed a file's text,
   * is no longer the file's: later work in the span or after it superseded it (see the module comment).
   */
  superseded(index: number, line: string): boolean;
  /**
   * The edits the assistant message at `index` made, each with the lines of its new text that
   * `wanted` keeps and that are still the file's.
   */
  newText(index: number, wanted: (line: string) => boolean): WrittenText[];
}

/** A program that shows one file whole or in part (`cat f`, `head -50 f`, `sed -n '1,80p' f`, `type f`). */
const SHOW_FILE =
  /^(?:cat|nl|head|tail|type|Get-Content|gc|sed\s+-n\s+(?:'[^']*'|"[^"]*"|\S+))(?:\s+-{1,2}[\w-]+(?:[= ]\d+)?)*\s+("[^"]+"|'[^']+'|[^\s|;&<>]+)\s*$/i;

/** `path` with `\` as `/`, lower case where it is a Windows path, quotes and `./` aside. */
function pathKey(path: string): string {
  const p = path
    .trim()
    .replace(/^["']|["']$/g, '')
    .replace(/\\/g, '/')
    .replace(/^\.\//, '');
  return /^[A-Za-z]:\//.test(p) ? p.toLowerCase() : p;
}

/** Two paths name the same file: equal, or one ends with the other at a folder boundary. */
function samePath(a: string, b: string): boolean {
  return a === b || a.endsWith(`/${b}`) || b.endsWith(`/${a}`);
}

/** A line of file text as compared: trimmed, a line number a viewer put before it (`17→`, `  17\t`) aside. */
function bare(line: string): string {
  return line.replace(/^\s*\d+(?:→|\t|:\s|\s\|\s)/, '').trim();
}

/** The shell command of a call's arguments (Codex passes argv, `["bash", "-lc", "cat f"]`). */
function shellCommand(args: Record<string, unknown>): string | undefined {
  const c = args.command ?? args.cmd;
  if (typeof c === 'string') return c;
  if (Array.isArray(c) && c.every((x) => typeof x === 'string')) {
    const argv = c;
    return argv.length >= 3 && /^(?:ba|z)?sh$/.test(argv[0]) && /^-l?c$/.test(argv[1]) ? argv[2] : argvCommand(argv);
  }
  return undefined;
}

/** The files a patch (`*** Begin Patch`) adds, updates or deletes, with the lines it removes and adds. */
function patchEvents(patch: string, tool: string): FileEvent[] {
  const out: FileEvent[] = [];
  for (const part of patch.split(/^(?=\*\*\* (?:Add|Update|Delete) File: )/m).slice(1)) {
    const head = /^\*\*\* (Add|Update|Delete) File: (.+)$/m.exec(part);
    if (!head) continue;
    const path = head[2].trim();
    const body = part.split('\n').slice(1);
    const lines = (mark: string) =>
      body
        .filter((l) => l.startsWith(mark) && !l.startsWith('***'))
        .map((l) => l.slice(1))
        .join('\n');
    if (head[1] === 'Delete') out.push({ kind: 'gone', path });
    else if (head[1] === 'Add') out.push({ kind: 'write', path, text: lines('+') });
    else {
      out.push({ kind: 'edit', path, old: lines('-'), text: lines('+'), tool });
      const moved = /^\*\*\* Move to: (.+)$/m.exec(part);
      if (moved) out.push({ kind: 'gone', path });
    }
  }
  return out;
}

/** What the call `name(rawArgs)` did to files' text (nothing for a call that failed: `ok` false). */
function callEvents(name: string, rawArgs: string, ok: boolean): FileEvent[] {
  const args = parseJsonObject(rawArgs) ?? {};
  const pick = (keys: readonly string[]) => {
    for (const k of keys) if (typeof args[k] === 'string' && args[k].trim()) return args[k];
    return undefined;
  };
  const command = shellCommand(args);
  const patch = typeof args.input === 'string' ? args.input : typeof args.patch === 'string' ? args.patch : command;
  if (patch !== undefined && /\*\*\* (?:Add|Update|Delete) File:/.test(patch))
    return ok ? patchEvents(patch, 'apply_patch') : [];
  const path = pick(PATH_KEYS);
  const editor = typeof args.command === 'string' ? args.command : undefined;
  if (path !== undefined && editor !== undefined && /^(?:view|create|write|str_replace|insert)$/.test(editor)) {
    if (editor === 'view') return [{ kind: 'read', path }];
    if (!ok) return [];
    if (editor === 'create' || editor === 'write') return [{ kind: 'write', path, text: newTextOf(args) }];
    return [{ kind: 'edit', path, old: editor === 'insert' ? '' : oldTextOf(args), text: newTextOf(args), tool: name }];
  }
  if (command !== undefined) {
    const shown = SHOW_FILE.exec(command.trim());
    if (shown) return [{ kind: 'read', path: shown[1] }];
    // A file the command changed (as the files section reads it): written anew by a redirection or a
    // script, edited in place (`sed -i`), deleted or moved. What it wrote is not known line by line,
    // so every line shown before is superseded; a file only added to (`>>`) keeps its lines.
    if (!ok) return [];
    return shellFileChanges(command).flatMap((f): FileEvent[] =>
      f.op === 'created'
        ? f.append
          ? []
          : [{ kind: 'write', path: f.path, text: undefined }]
        : f.op === 'edited'
          ? [{ kind: 'edit', path: f.path, old: undefined, text: '', tool: name }]
          : f.op === 'deleted' || f.op === 'moved'
            ? [{ kind: 'gone', path: f.path }]
            : [],
    );
  }
  if (path === undefined) return [];
  if (DELETE_TOOL.test(name)) return ok ? [{ kind: 'gone', path }] : [];
  if (WRITE_TOOL.test(name)) return ok ? [{ kind: 'write', path, text: newTextOf(args) || undefined }] : [];
  if (EDIT_TOOL.test(name)) {
    const old = oldTextOf(args);
    return ok ? [{ kind: 'edit', path, old: old === '' ? undefined : old, text: newTextOf(args), tool: name }] : [];
  }
  if (READ_TOOL.test(name)) return [{ kind: 'read', path }];
  return [];
}

/**
 * Reads the file events of `items` and then of `after` (the messages kept after the span; read only
 * for what supersedes the span's text). Linear in the messages.
 */
export function fileCurrency(items: readonly ContextItem[], after: readonly ContextItem[] = []): FileCurrency {
  const events: Placed[] = [];
  /** Tool result index → the read event it answers. */
  const readAt = new Map<number, Placed>();
  /** Assistant message index → its edit events. */
  const editsAt = new Map<number, Placed[]>();
  const all = after.length ? [...items, ...after] : items;
  for (let k = 0; k < all.length; k++) {
    const it = all[k];
    if (it.kind === 'summary' || it.message.role !== 'assistant') continue;
    const calls = toolCallsOf(it.message);
    if (!calls.length) continue;
    // The results answering this message's calls: the run of tool messages right after it.
    const results = new Map<string, number>();
    for (let j = k + 1; j < all.length && all[j].message.role === 'tool'; j++) {
      const id = (all[j].message as { tool_call_id?: string }).tool_call_id ?? '';
      if (!results.has(id)) results.set(id, j);
    }
    for (const c of calls) {
      const at = results.get(c.id);
      const result = at === undefined ? undefined : all[at];
      const ok =
        result === undefined ||
        fileOutcome(false, textWithPlaceholders(result.message.content), recordedToolOutcome(result.message)).ok;
      for (const e of callEvents(c.name, c.arguments, ok)) {
        const placed: Placed = { ...e, path: pathKey(e.path), at: k, n: events.length };
        events.push(placed);
        if (e.kind === 'read' && at !== undefined) readAt.set(at, placed);
        if (e.kind === 'edit') editsAt.set(k, [...(editsAt.get(k) ?? []), placed]);
      }
    }
  }
  /** Whether `line` of the file text event `from` wrote or showed is superseded by a later event. */
  const later = (from: Placed, line: string): boolean => {
    const text = bare(line);
    for (let i = from.n + 1; i < events.length; i++) {
      const e = events[i];
      if (!samePath(e.path, from.path)) continue;
      if (e.kind === 'read' || e.kind === 'gone') return true;
      if (e.kind === 'write' && (e.text === undefined || !e.text.includes(text))) return true;
      if (e.kind === 'edit' && (e.old === undefined || e.old.includes(text))) return true;
    }
    return false;
  };
  return {
    superseded: (index, line) => {
      const read = readAt.get(index);
      return read !== undefined && later(read, line);
    },
    newText: (index, wanted) =>
      (editsAt.get(index) ?? []).map((e) => {
        const edit = e as Extract<Placed, { kind: 'edit' }>;
        const lines = edit.text
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l && wanted(l) && !later(e, l));
        const replaced = (edit.old ?? '')
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean);
        return { tool: edit.tool, path: edit.path, lines, replaced };
      }),
  };
}
