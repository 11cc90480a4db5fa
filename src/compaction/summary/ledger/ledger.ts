/**
 * The work-state ledger of a summary, built from the actions of the span (`actions.ts`), not from
 * prose: per file what happened to it and where it lives now, the symbols edits defined or changed,
 * per command its outcome, and failures with how they were fixed.
 *
 * A failure is resolved when a later run of the same command succeeds, or when a later edit is
 * followed by a passing verification run (tests, build, type check, lint); a failed edit is resolved
 * by a later successful edit of the same file. Resolved failures take one line each; only the others
 * are listed as open, each with its error line.
 *
 * The ledger of an earlier summary in the span is carried forward: its lines stay unless the new
 * actions speak about the same file or command again.
 *
 * Pure: no I/O.
 */
import type { Action, FileOp } from './actions';
import { fullPath, NO_ROOTS, shortPath, type PathRoots } from './path-root';
import { commandKey, LedgerFold } from './ledger-fold';
import { commandSignature } from './run-outcome';

/** The files section's heading in summaries written before it was named "Files changed" (still read when folded in). */
export const OLD_FILES_HEADING = '## Files (what happened to each; where it lives now)';

/** Section headings of the ledger. */
export const LEDGER = {
  files: '## Files changed (created or edited, what changed; moves; files read)',
  commands: '## Commands and outcomes',
  errors: '## Errors and fixes',
} as const;

/**
 * Commands that verify work (tests, builds, type checks, linters), as the program a command runs:
 * at the start of the command or after `&&`, `;`, `|`, a `cd …` or an `npx`/`uv run`/`poetry run`
 * prefix, never a word inside a path or an argument (`ls eslint.config.mjs` verifies nothing).
 */
export const VERIFY =
  /(?:^|&&|\|\|?|;|\n|"|\[|\(|\s(?:npx|pnpm exec|uv run|poetry run|bunx|time|sudo)\s)\s*(?:[A-Z_]+=\S*\s+)*(pytest|jest|vitest|mocha|tox|(?:npm|pnpm|yarn|bun) (?:run )?(?:test|build|lint|typecheck|check|tsc)(?::[\w:.-]+)?|node --test|deno test|cargo (?:test|build|check|clippy)|go (?:test|build|vet)|tsc|eslint|ruff|mypy|make(?: \w+)?|mvn|\.\/mvnw|gradle|\.\/gradlew|dotnet (?:test|build)|phpunit|rspec|python3? -m (?:pytest|unittest)|python3? (?:\S*\/)?(?:manage\.py test|runtests\.py|reproduce\w*\.py|test\w*\.py))(?=$|[\s"',;&|)\]])(?!\s+(?:-{1,2}version|-v)\b)/;

/** {@link VERIFY} tested on `command`, kept per command text (bounded): every ledger asks again for every run. */
function isVerify(command: string): boolean {
  let v = verifies.get(command);
  if (v === undefined) {
    v = VERIFY.test(command);
    if (verifies.size >= KEPT_VERIFIES) verifies.clear();
    verifies.set(command, v);
  }
  return v;
}
const verifies = new Map<string, boolean>();
/** Most verify answers kept. */
const KEPT_VERIFIES = 50_000;

/** Lines of the three ledger sections, oldest first. */
export interface LedgerLines {
  files: string[];
  commands: string[];
  /** `fixed: …` lines first, then `open: …` lines (newest last). */
  errors: string[];
  /** Paths that moved away: old path → where the file lives now. */
  moved: Map<string, string>;
  /** Files edited or created, newest last (current paths, as the tool calls gave them). */
  edited: string[];
}

function opsText(counts: Iterable<[FileOp, number]>): string {
  return [...counts].map(([o, n]) => (n > 1 ? `${o} ${n}×` : o)).join(', ');
}

/** Key of a carried line: the path or command it is about. */
function lineKey(line: string): string {
  const cmd = /`([^`]+)`/.exec(line);
  if (cmd) return cmd[1];
  const path = /^- (?:fixed: |open: )?(\S+?)(?: \(|:)/.exec(line);
  return path ? path[1] : line;
}

/** The name of a file without its folder and extension (`src/OrderStore.java` → `OrderStore`). */
function baseName(path: string): string {
  const name = path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
  const dot = name.indexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

/**
 * Builds the ledger of `actions` (in order), carrying `earlier` lines (by section heading) of the
 * summaries folded in. With `roots` (named folders, see `path-root.ts`), paths under them are written
 * from their names, and carried lines are read as written against them; a symbol named like its file
 * (`class OrderStore` in `OrderStore.java`) is not repeated after the path. `later` are the actions
 * that stay in the context after the span (the newest steps): they are read only to tell that a
 * failure of the span was fixed afterwards, which is then not listed as open. Pure.
 */
export function buildLedger(
  actions: readonly Action[],
  earlier: ReadonlyMap<string, readonly string[]> = new Map(),
  roots: PathRoots = NO_ROOTS,
  later: readonly Action[] = [],
): LedgerLines {
  const rel = (p: string) => shortPath(roots, p);
  const key = (l: string) => fullPath(roots, lineKey(l));
  // The forward reading of files and commands continues the last one when the actions grew at their end.
  const fold = LedgerFold.of(actions);
  const { files } = fold;
  const moved = new Map(fold.moved);
  const fileLines: string[] = [];
  const readOnly: string[] = [];
  const edited: string[] = [];
  const carriedFiles = (earlier.get(LEDGER.files) ?? []).filter(
    (l) => !files.has(key(l)) && !moved.has(key(l)) && !l.startsWith('- read only:') && !l.startsWith('- …'),
  );
  for (const l of carriedFiles) fileLines.push(l);
  const carriedRead = (earlier.get(LEDGER.files) ?? []).find((l) => l.startsWith('- read only:'));
  if (carriedRead)
    for (const p of carriedRead.slice('- read only:'.length).split(',')) {
      const trimmed = p.trim();
      if (trimmed && !files.has(fullPath(roots, trimmed))) readOnly.push(trimmed);
    }
  const listedRead = new Set(readOnly);
  for (const st of [...files.values()].sort((a, b) => a.last - b.last)) {
    if (st.onlyRead) {
      const p = rel(st.path);
      if (!listedRead.has(p)) {
        listedRead.add(p);
        readOnly.push(p);
      }
      continue;
    }
    const where =
      st.lastOp === 'deleted'
        ? ' (deleted; no longer exists)'
        : st.from
          ? ` (moved from ${rel(st.from)}; lives here now)`
          : '';
    const own = baseName(st.path);
    const symbols = st.symbols.filter((s) => s !== own).slice(0, 24);
    const sym = symbols.length
      ? `; defines or changes: ${symbols.join(', ')}`
      : st.change
        ? `; last change: "${st.change}"`
        : '';
    fileLines.push(`- ${rel(st.path)}${where}: ${opsText(st.ops)}${sym}`);
    if (st.lastOp !== 'deleted') edited.push(st.path);
  }
  if (readOnly.length) fileLines.unshift(`- read only: ${readOnly.join(', ')}`);

  // Commands: one line per distinct command, newest last, with its runs' outcomes.
  const { runs } = fold;
  const commandLines = (earlier.get(LEDGER.commands) ?? []).filter(
    (l) => !runs.has(lineKey(l)) && !l.startsWith('- …'),
  );
  // A command whose last run here failed but which passed when run again in the steps kept after
  // this summary is not failing: its latest outcome decides.
  const passedLater = new Set<string>();
  for (const a of later) if (a.kind === 'command' && a.ok) passedLater.add(commandKey(a.command));
  for (const [cmd, r] of [...runs].sort((a, b) => a[1].last - b[1].last)) {
    const status = r.answer
      ? `${r.answer}${r.answerExit !== undefined ? ` (exit ${r.answerExit})` : ''}`
      : r.lastOk
        ? 'ok'
        : passedLater.has(cmd)
          ? 'succeeded when run again in the steps kept after this summary'
          : `failed${r.exit !== undefined ? ` (exit ${r.exit})` : ''}${r.error ? `: ${clipLine(r.error)}` : ''}`;
    const history = r.runs > 1 ? ` (ran ${r.runs}×, ${r.failed} failed)` : '';
    commandLines.push(`- \`${cmd}\` → ${status}${history}`);
  }

  // Failures and their fixes. Every "the first later action that…" question is answered from
  // indexes built in one pass from the end, so the section costs time linear in the actions.
  const all = later.length ? [...actions, ...later] : actions;
  const next = laterIndexes(all);
  const fixed: string[] = [];
  const open = new OpenLines();
  // "… older lines not kept" notes of an earlier summary are written again for this one.
  const carriedErrors = (earlier.get(LEDGER.errors) ?? []).filter((l) => !l.startsWith('- …'));
  for (const l of carriedErrors) {
    if (l.startsWith('- open:')) {
      const key = lineKey(l);
      const later =
        next.okCommandKeys.has(key) ||
        next.okSignatures.has(commandSignature(key)) ||
        next.okEditPaths.has(fullPath(roots, key));
      if (later || next.verifiedAfterEdit)
        fixed.push(
          `- fixed: ${l.slice('- open: '.length).split(' → ')[0]} → resolved in later work (${later ? 'it succeeded later' : 'edits, then a passing check'})`,
        );
      else open.push(l);
    } else fixed.push(l);
  }
  actions.forEach((a, i) => {
    if (a.kind === 'plan' || a.ok) return;
    if (a.kind === 'command') {
      const key = next.keys[i];
      const again = Math.min(next.sameKeyOk[i], next.sameSignatureOk[i]);
      const editAt = next.edit[i + 1];
      const verifyAt = editAt >= next.keys.length ? next.keys.length : next.verify[editAt + 1];
      const what = `\`${key}\` failed${a.error ? ` ("${clipLine(a.error)}")` : ''}`;
      const known = next.keys.length;
      if (again < known || verifyAt < known) {
        const end = again < known ? again : verifyAt;
        const fixes = next.firstEdits[i + 1].filter((f) => f.at < end).map((f) => rel(f.path));
        const passed = all[end] as Extract<Action, { kind: 'command' }>;
        fixed.push(
          `- fixed: ${what} → ${fixes.length ? `after editing ${fixes.join(', ')}, ` : ''}\`${commandKey(passed.command)}\` passed${end >= actions.length ? ' (in the steps kept after this summary)' : ''}`,
        );
      } else {
        // Repeated failures of one command are one open item (the newest error).
        const prefix = `- open: \`${key}\``;
        open.removeFirstStartingWith(prefix);
        open.push(`${prefix} → ${a.exit !== undefined ? `exit ${a.exit}: ` : ''}${clipLine(a.error ?? 'failed')}`);
      }
    } else if (a.kind === 'file') {
      if (a.op === 'read') return;
      const what = `changing ${rel(a.path)} failed${a.error ? ` ("${clipLine(a.error)}")` : ''}`;
      if (next.editPathAfter[i]) fixed.push(`- fixed: ${what} → a later ${a.tool} of the same file succeeded`);
      else open.push(`- open: ${rel(a.path)}: ${a.tool} failed: ${clipLine(a.error ?? 'failed')}`);
    }
  });
  movedCache.set(actions, moved);
  return { files: fileLines, commands: commandLines, errors: [...fixed, ...open.lines()], moved, edited };
}

/**
 * `buildLedger(actions).moved` (old path → where the file lives now), which depends on the actions
 * alone: kept per actions array, so the back-fill after the notes does not build the ledger again.
 */
export function movedPaths(actions: readonly Action[]): ReadonlyMap<string, string> {
  return movedCache.get(actions) ?? buildLedger(actions).moved;
}
const movedCache = new WeakMap<readonly Action[], Map<string, string>>();

function clipLine(s: string): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > 200 ? `${t.slice(0, 199)}…` : t;
}

/** A successful file change (not a read). */
function isEdit(a: Action): a is Extract<Action, { kind: 'file' }> {
  return a.kind === 'file' && a.ok && a.op !== 'read';
}

/**
 * For each action index `i`, the first later actions the errors section asks about (the length of
 * `actions` when there is none): built in one pass from the end.
 */
function laterIndexes(actions: readonly Action[]) {
  const n = actions.length;
  const keys: string[] = new Array<string>(n);
  /** First index ≥ i of a successful file change. */
  const edit = new Int32Array(n + 2).fill(n);
  /** First index ≥ i of a passing verification command. */
  const verify = new Int32Array(n + 2).fill(n);
  /** For a command at i: first index > i of a passing run of the same command. */
  const sameKeyOk = new Int32Array(n).fill(n);
  /** For a command at i: first index > i of a passing run of the same program and subcommand (`commandSignature`). */
  const sameSignatureOk = new Int32Array(n).fill(n);
  const okSigAt = new Map<string, number>();
  const okSignatures = new Set<string>();
  /** For a file action at i: whether a later successful change of the same path exists. */
  const editPathAfter = new Uint8Array(n);
  /** The first four distinct paths changed at or after i, with the index where each first appears. */
  const firstEdits: Array<Array<{ path: string; at: number }>> = new Array<Array<{ path: string; at: number }>>(n + 2);
  firstEdits[n] = firstEdits[n + 1] = [];
  const okAt = new Map<string, number>();
  const editedLater = new Set<string>();
  const okCommandKeys = new Set<string>();
  const okEditPaths = new Set<string>();
  for (let i = n - 1; i >= 0; i--) {
    const a = actions[i];
    edit[i] = edit[i + 1];
    verify[i] = verify[i + 1];
    firstEdits[i] = firstEdits[i + 1];
    if (a.kind === 'command') {
      const key = commandKey(a.command);
      keys[i] = key;
      sameKeyOk[i] = okAt.get(key) ?? n;
      const sig = commandSignature(a.command);
      sameSignatureOk[i] = okSigAt.get(sig) ?? n;
      if (a.ok) {
        okAt.set(key, i);
        okSigAt.set(sig, i);
        okSignatures.add(sig);
        okCommandKeys.add(key);
        if (isVerify(a.command)) verify[i] = i;
      }
    } else if (a.kind === 'file') {
      editPathAfter[i] = editedLater.has(a.path) ? 1 : 0;
      if (isEdit(a)) {
        edit[i] = i;
        editedLater.add(a.path);
        okEditPaths.add(a.path);
        const path = a.to ?? a.path;
        firstEdits[i] = [{ path, at: i }, ...firstEdits[i + 1].filter((f) => f.path !== path)].slice(0, 4);
      }
    }
  }
  // A passing verification after any successful change resolves carried open errors.
  let verifiedAfterEdit = false;
  for (let j = 0, sawEdit = false; j < n && !verifiedAfterEdit; j++) {
    const a = actions[j];
    if (a.kind === 'command' && a.ok && isVerify(a.command) && sawEdit) verifiedAfterEdit = true;
    if (isEdit(a)) sawEdit = true;
  }
  return {
    keys,
    edit,
    verify,
    sameKeyOk,
    sameSignatureOk,
    editPathAfter,
    firstEdits,
    okCommandKeys,
    okSignatures,
    okEditPaths,
    verifiedAfterEdit,
  };
}

/**
 * The open errors, in order, with "remove the first line starting with this prefix" in constant time
 * for the prefixes the ledger uses (\`- open: \`key\`\` with no backtick inside the key): lines are
 * indexed by their text up to the backtick that closes the key.
 */
class OpenLines {
  private readonly all: Array<{ line: string; live: boolean }> = [];
  private readonly byKey = new Map<string, { at: number[]; head: number }>();

  push(line: string): void {
    const index = this.all.length;
    this.all.push({ line, live: true });
    const key = OpenLines.keyOf(line);
    if (key === undefined) return;
    const bucket = this.byKey.get(key);
    if (bucket) bucket.at.push(index);
    else this.byKey.set(key, { at: [index], head: 0 });
  }

  removeFirstStartingWith(prefix: string): void {
    const key = OpenLines.keyOf(prefix);
    if (key !== prefix) {
      // A key with a backtick inside: search in order, as a list would.
      const hit = this.all.find((r) => r.live && r.line.startsWith(prefix));
      if (hit) hit.live = false;
      return;
    }
    const bucket = this.byKey.get(key);
    while (bucket && bucket.head < bucket.at.length) {
      const r = this.all[bucket.at[bucket.head++]];
      if (r.live) {
        r.live = false;
        return;
      }
    }
  }

  lines(): string[] {
    return this.all.filter((r) => r.live).map((r) => r.line);
  }

  /** `- open: \`key\`` for a line that starts so (up to the first backtick after the opening one). */
  private static keyOf(line: string): string | undefined {
    const head = '- open: `';
    if (!line.startsWith(head)) return undefined;
    const close = line.indexOf('`', head.length);
    return close < 0 ? undefined : line.slice(0, close + 1);
  }
}
