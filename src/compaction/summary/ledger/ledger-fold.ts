/**
 * The forward reading of a ledger's actions (`ledger.ts`): per file what happened to it and where it
 * lives now, per command its runs, and the distinct paths named (for the path roots). It depends on
 * the actions alone, in order, so a list that grew at its end (the next compaction over a span that
 * grew: `actions.ts` keeps the action objects of messages read before) continues the last reading
 * instead of reading every action again.
 *
 * A kept reading is continued when the new list starts with the same action objects (compared by
 * identity; actions are never mutated); any other list is read from its start. Pure: no I/O.
 */
import type { Action, FileOp } from './actions';

/** One line per command text (whitespace collapsed), at most 300 characters. */
export function commandKey(command: string): string {
  // Every ledger reads every command of its span again: the keys are kept (bounded).
  let key = commandKeys.get(command);
  if (key === undefined) {
    const t = oneLineCommand(command);
    key = t.length > 300 ? `${t.slice(0, 299)}…` : t;
    if (commandKeys.size >= KEPT_COMMAND_KEYS) commandKeys.clear();
    commandKeys.set(command, key);
  }
  return key;
}
const commandKeys = new Map<string, string>();

/** Shown where a multi-line command's line break was: no shell argument looks like it. */
export const LINE_BREAK_MARK = ' ⏎ ';

/**
 * A command on one line as it ran: each line break (outside a backslash continuation, which joins
 * lines into one command) shown as {@link LINE_BREAK_MARK}, so two commands on two lines never read
 * as one command with the second as its arguments; other whitespace collapsed. Characters in, characters out.
 */
export function oneLineCommand(command: string): string {
  return command
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter((l) => l !== '')
    .join(LINE_BREAK_MARK);
}
/** Most command keys kept. */
const KEPT_COMMAND_KEYS = 50_000;

/** What happened to one file, in order (the ops as counts by first appearance). */
export interface FileFold {
  path: string;
  from?: string;
  /** Op → number of times, in order of first appearance. */
  ops: OpCounts;
  lastOp: FileOp | undefined;
  /** True while every op is a read. */
  onlyRead: boolean;
  symbols: string[];
  /** The symbols as a set, made at the second symbol (most files name none or one). */
  symbolSet?: Set<string>;
  /** Index of the last action about the file. */
  last: number;
  /** The newest edit's changed line, when an edit gave one. */
  change?: string;
  /** True once a successful read or change showed the file exists (false again after a delete). */
  exists?: boolean;
}

/** First letter of each op (they differ), for the order of first appearance. */
const INITIAL: Readonly<Record<FileOp, string>> = { read: 'r', created: 'c', edited: 'e', deleted: 'd', moved: 'm' };
const OP_OF: Readonly<Record<string, FileOp>> = { r: 'read', c: 'created', e: 'edited', d: 'deleted', m: 'moved' };

/**
 * How many times each op happened to one file, iterated as `[op, count]` in order of first
 * appearance (as a `Map` would be). Five counters and a short string instead of a `Map` per file:
 * a long span names tens of thousands of files, and a one-file `Map` costs several times more.
 */
export class OpCounts implements Iterable<[FileOp, number]> {
  private order = '';
  private read = 0;
  private created = 0;
  private edited = 0;
  private deleted = 0;
  private moved = 0;

  has(op: FileOp): boolean {
    return this[op] > 0;
  }

  /** Counts one more `op`. */
  add(op: FileOp): void {
    if (this[op] === 0) this.order += INITIAL[op];
    this[op]++;
  }

  copy(): OpCounts {
    const c = new OpCounts();
    c.order = this.order;
    for (const op of ['read', 'created', 'edited', 'deleted', 'moved'] as const) c[op] = this[op];
    return c;
  }

  *[Symbol.iterator](): Iterator<[FileOp, number]> {
    for (const ch of this.order) yield [OP_OF[ch], this[OP_OF[ch]]];
  }
}

/** The runs of one command (by {@link commandKey}). */
export interface RunFold {
  runs: number;
  failed: number;
  lastOk: boolean;
  exit?: number;
  error?: string;
  last: number;
  /** The last run's negative answer when it was a probe ("no match", "not found"), with its exit status. */
  answer?: string;
  answerExit?: number;
}

/** Lists shorter than this are read whole (cheap), so they do not push the long span's reading out. */
const KEEP_FROM = 256;

export class LedgerFold {
  /** Current path → its state, in order of first appearance. */
  readonly files = new Map<string, FileFold>();
  /** Old path → where the file lives now. */
  readonly moved = new Map<string, string>();
  /** Command key → its runs, in order of first run. */
  readonly runs = new Map<string, RunFold>();
  /** Every path and move target of the file actions (failed ones too), in order of first appearance. */
  readonly paths = new Set<string>();
  private actions: readonly Action[] = [];
  /** A relative path (forward slashes) → its key in `files`, until the file is named absolute. */
  private readonly relative = new Map<string, string>();
  /** Each folder-boundary suffix of the absolute paths named → that path; null when two share it. */
  private readonly absoluteBySuffix = new Map<string, string | null>();

  /**
   * The reading of `actions`: the kept one continued when it read a prefix of them, else a new one.
   * The returned fold is changed by the next call: read what is needed from it first.
   */
  static of(actions: readonly Action[]): LedgerFold {
    if (actions.length < KEEP_FROM) return new LedgerFold().read(actions);
    const k = kept;
    let from = k ? k.actions.length : 0;
    if (!k || from > actions.length) from = -1;
    else
      for (let i = 0; i < from; i++)
        if (k.actions[i] !== actions[i]) {
          from = -1;
          break;
        }
    kept = from < 0 ? new LedgerFold().read(actions) : k!.read(actions, from);
    return kept;
  }

  private read(actions: readonly Action[], from = 0): LedgerFold {
    for (let i = from; i < actions.length; i++) {
      const a = actions[i];
      if (a.kind === 'file') this.file(a, i);
      else if (a.kind === 'command') this.command(a, i);
    }
    this.actions = actions;
    return this;
  }

  private file(a: Extract<Action, { kind: 'file' }>, i: number): void {
    this.paths.add(a.path);
    if (a.to) this.paths.add(a.to);
    if (!a.ok && a.op !== 'read') return;
    const { files, moved } = this;
    const named = this.sameFile(a.path);
    let path = moved.get(named) ?? named;
    let st = files.get(path);
    if (a.op === 'moved' && a.to) {
      const prev = st ?? newFile(path, i);
      files.delete(path);
      const to = this.sameFile(a.to);
      moved.set(path, to);
      for (const [k, v] of moved) if (v === path) moved.set(k, to);
      path = to;
      st = { ...prev, path, from: prev.from ?? named, ops: prev.ops.copy(), last: i };
      addOp(st, 'moved');
      files.set(path, st);
      return;
    }
    if (!st) {
      st = newFile(path, i);
      files.set(path, st);
    }
    // A whole-file write (Cline's write_to_file, Claude Code's Write) over a file known to exist
    // rewrites it: "created" would tell the agent an existing file is new.
    const op = a.op === 'created' && st.exists ? 'edited' : a.op;
    if (op !== 'read' || !st.ops.has('read')) addOp(st, op);
    if (a.ok) st.exists = op !== 'deleted';
    for (const s of a.symbols) addSymbol(st, s);
    if (a.change) st.change = a.change;
    st.last = i;
  }

  /**
   * The key of the file `p` names: agents name one file both relative to their working folder
   * (`src/app/page.tsx`) and absolute (`c:\\Apps\\web\\src\\app\\page.tsx`), and a relative path
   * is taken as the absolute one it ends (at a folder boundary, either separator) when only one
   * absolute path named so far does. A file first named relative is filed under the absolute path
   * once that is named. Other paths are their own key.
   */
  private sameFile(p: string): string {
    if (this.files.has(p) || this.moved.has(p)) return p;
    const slashed = p.replace(/\\/g, '/').replace(/^\.\//, '');
    if (/^(?:\/|~\/|[A-Za-z]:[\\/])/.test(p)) {
      let relative: string | undefined;
      for (let at = slashed.indexOf('/', 1); at >= 0; at = slashed.indexOf('/', at + 1)) {
        const suffix = slashed.slice(at + 1);
        if (!suffix) continue;
        const other = this.absoluteBySuffix.get(suffix);
        this.absoluteBySuffix.set(suffix, other === undefined || other === p ? p : null);
        relative ??= this.relative.get(suffix);
      }
      if (relative !== undefined) this.fileUnder(relative, p);
      return p;
    }
    if (slashed.startsWith('../')) return p;
    const absolute = this.absoluteBySuffix.get(slashed);
    if (absolute) return absolute;
    this.relative.set(slashed, p);
    return p;
  }

  /** Files what was read under the relative path `from` under the absolute path `to` instead. */
  private fileUnder(from: string, to: string): void {
    this.relative.delete(from.replace(/\\/g, '/').replace(/^\.\//, ''));
    const st = this.files.get(from);
    if (st && !this.files.has(to)) {
      this.files.delete(from);
      this.files.set(to, { ...st, path: to });
    }
    for (const [k, v] of this.moved) if (v === from) this.moved.set(k, to);
  }

  private command(a: Extract<Action, { kind: 'command' }>, i: number): void {
    const key = commandKey(a.command);
    let r = this.runs.get(key);
    if (!r) {
      r = { runs: 0, failed: 0, lastOk: true, last: i };
      this.runs.set(key, r);
    }
    r.runs++;
    r.lastOk = a.ok;
    r.last = i;
    r.answer = a.answer;
    r.answerExit = a.answer ? a.exit : undefined;
    if (!a.ok && !a.denied) {
      r.failed++;
      r.exit = a.exit;
      r.error = a.error;
    }
  }
}
let kept: LedgerFold | undefined;

function newFile(path: string, last: number): FileFold {
  return { path, ops: new OpCounts(), lastOp: undefined, onlyRead: true, symbols: [], symbolSet: undefined, last };
}

function addSymbol(st: FileFold, s: string): void {
  const { symbols } = st;
  if (symbols.length === 0) {
    symbols.push(s);
    return;
  }
  const set = (st.symbolSet ??= new Set(symbols));
  if (set.has(s)) return;
  set.add(s);
  symbols.push(s);
}

function addOp(st: FileFold, op: FileOp): void {
  st.ops.add(op);
  st.lastOp = op;
  if (op !== 'read') st.onlyRead = false;
}
