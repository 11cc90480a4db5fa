/**
 * The work-state ledger of a summary, built from the actions of the span (`actions.ts`), not from
 * prose: per file what happened to it and where it lives now, the symbols edits defined or changed,
 * per command its outcome, and failures with how they were fixed.
 *
 * A failure is resolved when a later run of the same command (same target: program, subcommand,
 * target and options, values and display options aside; `retention/errors.ts` commandTarget) succeeds, or when a later edit of a file it names is followed by a passing
 * check (the retention scorecard's rules, `retention/errors.ts`); a failed edit is resolved by a
 * later successful edit of the same file. Resolved failures take one line each; only the others
 * are listed as open, each with its error line.
 *
 * Programs the commands found missing (or found, with their version) are listed apart, one line each
 * (`environment.ts`): a short fact that stays true for the session.
 *
 * The ledger of an earlier summary in the span is carried forward: its lines stay unless the new
 * actions speak about the same command again; a file they change again is listed once, with the
 * earlier summary's counts added to the new ones and its symbols kept (a file it named only by folder
 * is named once, by the new line).
 *
 * Pure: no I/O.
 */
import type { Action, FileOp } from './actions';
import { fullPath, NO_ROOTS, shortPath, type PathRoots } from './path-root';
import { commandKey, LedgerFold } from './ledger-fold';
import {
  commandTarget,
  isCheckCommand,
  LaterPaths,
  LaterSuccesses,
  namedFiles,
  type CommandFix,
} from '../../retention/errors';
import { pathKey } from '../../retention/files';
import { messageMemosKept } from '../../message-memo';
import { isInterruptKeys } from '../../retention/outcome';
import { foldIntoFolders, readCarriedFileLine, type CarriedFileLine } from './file-names';
import { environmentLines } from './environment';

/** The files section's heading in summaries written before it was named "Files changed" (still read when folded in). */
export const OLD_FILES_HEADING = '## Files (what happened to each; where it lives now)';

/** Section headings of the ledger. */
export const LEDGER = {
  files: '## Files changed (created or edited, what changed; moves; files read)',
  commands: '## Commands and outcomes',
  errors: '## Errors and fixes',
  commits: '## Commits made (newest last)',
  environment: '## Environment (programs the commands found missing, or found with their version)',
} as const;

/**
 * Commands that verify work (tests, builds, type checks, linters), as the program a command runs:
 * at the start of the command or after `&&`, `;`, `|`, a `cd …` or an `npx`/`uv run`/`poetry run`
 * prefix, never a word inside a path or an argument (`ls eslint.config.mjs` verifies nothing).
 */
export const VERIFY =
  /(?:^|&&|\|\|?|;|\n|"|\[|\(|\s(?:npx|pnpm exec|uv run|poetry run|bunx|time|sudo)\s)\s*(?:[A-Z_]+=\S*\s+)*(?:(?:npx|bunx|pnpm exec|uv run|poetry run)\s+)?(pytest|jest|vitest|mocha|tox|(?:npm|pnpm|yarn|bun) (?:run )?(?:test|build|lint|typecheck|check|tsc)(?::[\w:.-]+)?|node --test|deno test|cargo (?:test|build|check|clippy)|go (?:test|build|vet)|tsc|eslint|ruff|mypy|make(?: \w+)?|mvn|\.\/mvnw|gradle|\.\/gradlew|dotnet (?:test|build)|phpunit|rspec|python3? -m (?:pytest|unittest)|python3? (?:\S*\/)?(?:manage\.py test|runtests\.py|reproduce\w*\.py|test\w*\.py))(?=$|[\s"',;&|)\]])(?!\s+(?:-{1,2}version|-v)\b)/;

/** How an open failure's line begins: work of the current turn still to do. */
export const OPEN_LINE = '- open: ';
/**
 * How the line of a failure left when an earlier turn ended begins: the person typed a newer request
 * after it, so it is no open work of the latest request, and nothing later fixed it.
 */
export const LEFT_LINE = '- unresolved when that turn ended (a newer request came after it): ';
/**
 * How the line of such a failure begins when the command needed an interactive terminal the agent's
 * tool has not (a sign-in's verification code, a password, a key press): it was the person's to run
 * by hand.
 */
export const INPUT_LINE =
  '- needed an interactive terminal, left for the user to run by hand (a newer request came after it): ';

/** The part of a not-fixed failure's line after its label (`` `cmd` → … `` or `path: tool failed: …`); undefined for another line. */
export function unfixedBody(line: string): string | undefined {
  for (const label of [OPEN_LINE, LEFT_LINE, INPUT_LINE]) if (line.startsWith(label)) return line.slice(label.length);
  return undefined;
}

/** Lines of the three ledger sections, oldest first. */
export interface LedgerLines {
  files: string[];
  commands: string[];
  /** `fixed: …` lines first, then `open: …` lines (newest last); the summary relabels those an earlier turn left ({@link LEFT_LINE}). */
  errors: string[];
  /** The commits the span made (see {@link commitLines}), oldest first. */
  commits: string[];
  /** Programs found missing or found with a version or path, one line each, oldest first (`environment.ts`). */
  environment: string[];
  /** Paths that moved away: old path → where the file lives now. */
  moved: Map<string, string>;
  /** Files edited or created, newest last (current paths, as the tool calls gave them). */
  edited: string[];
}

/** A folder line's note on a name, as the full line's note that folds back into it. */
const FOLDER_NOTE: Readonly<Record<string, string>> = {
  ' (deleted)': ' (deleted; no longer exists)',
  ' (moved)': ' (moved from an earlier path; lives here now)',
};

/** A file as an earlier summary's files section named it (see `readCarriedFileLine`). */
interface CarriedFile extends CarriedFileLine {
  /** The line as written, when it named this file alone and with its operations. */
  line?: string;
}

/**
 * The files of an earlier summary's files section `lines`, by full path (a file two lines name stands
 * once, see {@link mergeCarried}); lines that name no file (not the read-only line nor the marker of
 * files left out, which are read apart) are added to `other` as they are.
 */
function carriedFiles(lines: readonly string[], roots: PathRoots, other: string[]): Map<string, CarriedFile> {
  const carried = new Map<string, CarriedFile>();
  for (const l of lines) {
    if (l.startsWith('- read only:') || l.startsWith('- …')) continue;
    const read = readCarriedFileLine(l);
    if (!read) {
      other.push(l);
      continue;
    }
    for (const f of read) {
      const k = fullPath(roots, f.path);
      const had = carried.get(k);
      if (!had) carried.set(k, { ...f, line: read.length === 1 && f.ops.length ? l : undefined });
      else if (f.ops.length) carried.set(k, mergeCarried(had, f));
    }
  }
  return carried;
}

/** Two carried lines of one file as one: each operation's larger count, the symbols of both. */
function mergeCarried(a: CarriedFile, b: CarriedFile): CarriedFile {
  const ops = new Map(a.ops);
  for (const [op, n] of b.ops) ops.set(op, Math.max(ops.get(op) ?? 0, n));
  return { ...b, ops: [...ops], symbols: [...new Set([...a.symbols, ...b.symbols])], line: undefined };
}

/** The line of a carried file whose counts or symbols were merged. */
function carriedLine(f: CarriedFile): string {
  const sym = f.symbols.length ? `; defines or changes: ${f.symbols.slice(0, 24).join(', ')}` : f.detail;
  return `- ${f.path}${f.where}: ${opsText(f.ops)}${sym}`;
}

/** The counts of an earlier summary's operations plus those of the new actions, in order of first appearance. */
function addedOps(before: ReadonlyArray<[string, number]>, now: Iterable<[FileOp, number]>): Array<[string, number]> {
  const ops = new Map(before);
  for (const [op, n] of now) ops.set(op, (ops.get(op) ?? 0) + n);
  return [...ops];
}

function opsText(counts: Iterable<[string, number]>): string {
  return [...counts].map(([o, n]) => (n > 1 ? `${o} ${n}×` : o)).join(', ');
}

/** Key of a carried line: the path or command it is about. */
function lineKey(line: string): string {
  const cmd = /`([^`]+)`/.exec(line);
  if (cmd) return cmd[1];
  const body = unfixedBody(line) ?? line.replace(/^- (?:fixed: )?/, '');
  const path = /^(\S+?)(?: \(|:)/.exec(body);
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
  // The forward reading of files and commands continues the last one when the actions grew at their end.
  const fold = LedgerFold.of(actions);
  const { files } = fold;
  const moved = new Map(fold.moved);
  const fileLines: string[] = [];
  const readOnly: string[] = [];
  const edited: string[] = [];
  // An earlier summary's file lines, one entry per file (a file two lines name, a full line and a
  // folder line's name, stands once): a file the new actions touch again is written once, its
  // earlier counts added to the new ones and its symbols kept, never a thinner line beside the old.
  const carried = carriedFiles(earlier.get(LEDGER.files) ?? [], roots, fileLines);
  const merged = new Map<string, CarriedFile>();
  for (const [k, f] of carried) {
    const now = files.get(k) ?? files.get(moved.get(k) ?? '');
    if (now && f.ops.length) merged.set(now.path, f);
    else if (!now && !moved.has(k)) {
      if (f.ops.length) fileLines.push(f.line ?? carriedLine(f));
    }
  }
  // Files the earlier summary named only (by folder), not touched again: named by folder again.
  const namedOnly = [...carried].filter(
    ([k, f]) => !f.ops.length && f.verb !== 'read' && !files.has(k) && !moved.has(k),
  );
  for (const line of foldIntoFolders(
    [],
    namedOnly.map(
      ([, f]) => `- ${f.path}${FOLDER_NOTE[f.where] ?? ''}: ${f.verb === 'created' ? 'created' : 'edited'}`,
    ),
  ))
    fileLines.push(line);
  const carriedRead = (earlier.get(LEDGER.files) ?? []).find((l) => l.startsWith('- read only:'));
  if (carriedRead)
    for (const p of carriedRead.slice('- read only:'.length).split(',')) {
      const trimmed = p.trim();
      if (trimmed && !files.has(fullPath(roots, trimmed)) && !carried.has(fullPath(roots, trimmed)))
        readOnly.push(trimmed);
    }
  // Files a folder line named as only read stay files read.
  for (const [k, f] of carried)
    if (f.verb === 'read' && !files.has(k) && !readOnly.includes(f.path)) readOnly.push(f.path);
  const listedRead = new Set(readOnly);
  for (const st of [...files.values()].sort((a, b) => a.last - b.last)) {
    const before = merged.get(st.path);
    if (st.onlyRead && !before) {
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
    const symbols = [...new Set([...(before?.symbols ?? []), ...st.symbols])].filter((s) => s !== own).slice(0, 24);
    const sym = symbols.length
      ? `; defines or changes: ${symbols.join(', ')}`
      : st.change
        ? `; last change: "${st.change}"`
        : (before?.detail ?? '');
    fileLines.push(`- ${rel(st.path)}${where}: ${opsText(before ? addedOps(before.ops, st.ops) : st.ops)}${sym}`);
    if (st.lastOp !== 'deleted' && !st.onlyRead) edited.push(st.path);
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
  // Failures and their fixes, by the rules of the retention scorecard (`retention/errors.ts`,
  // `LaterSuccesses`), so that the summary and its scorecard count the same. Every "the first later
  // action that…" question is answered from indexes of the actions by position, kept for the grown
  // span, so the section costs time in the failures and the new actions.
  const all = later.length ? [...actions, ...later] : actions;
  const next = laterIndexes(all);
  const known = all.length;
  for (const [cmd, r] of [...runs].sort((a, b) => a[1].last - b[1].last)) {
    // Keys that stopped a hung command are no command of their own: neither "ok" nor a failure.
    const status = isInterruptKeys(cmd)
      ? 'keys sent to stop the command that was running'
      : r.answer
        ? `${r.answer}${r.answerExit !== undefined ? ` (exit ${r.answerExit})` : ''}`
        : r.lastOk
          ? `ok${commitsOf(actions, r.last)}`
          : passedLater.has(cmd)
            ? 'succeeded when run again in the steps kept after this summary'
            : (fixedBy(all, next.fixAt(r.last), cmd) ??
              `failed${r.exit !== undefined ? ` (exit ${r.exit})` : ''}${r.error ? `: ${clipLine(r.error)}` : ''}`);
    const history =
      r.runs > 1 ? (isInterruptKeys(cmd) ? ` (sent ${r.runs}×)` : ` (ran ${r.runs}×, ${r.failed} failed)`) : '';
    commandLines.push(`- \`${cmd}\` → ${status}${history}`);
  }

  // A failed command is fixed by a later success that resolves it (the same command, the same one
  // with options added, a workaround naming the same target, signed-in work after a failed sign-in)
  // or by a later edit of a file it names followed by a passing check; a failed change of a file by a
  // later successful change of it. One line per failed target, its latest failure deciding.
  const errors = new Map<string, { line: string; fixed: boolean }>();
  const put = (k: string, line: string, fixed: boolean) => {
    errors.delete(k);
    errors.set(k, { line, fixed });
  };
  // "… older lines not kept" notes of an earlier summary are written again for this one.
  const carriedErrors = (earlier.get(LEDGER.errors) ?? []).filter((l) => !l.startsWith('- …'));
  for (const l of carriedErrors) {
    const about = lineKey(l);
    const isCommand = /`/.test(l);
    const k = isCommand ? commandTarget(about) : `file\u0000${fullPath(roots, about)}`;
    const unfixed = unfixedBody(l);
    if (unfixed === undefined) {
      put(k, l, true);
      continue;
    }
    const edit = next.firstEditOf(namedFiles(l));
    const how =
      (isCommand && next.fixedLater(about)) || (!isCommand && next.editedSomewhere(fullPath(roots, about)))
        ? 'it succeeded later'
        : edit < known && next.checkFrom(edit + 1) < known
          ? 'a file it names was edited, then a check passed'
          : undefined;
    if (how) put(k, `- fixed: ${unfixed.split(' → ')[0]} → resolved in later work (${how})`, true);
    else put(k, l, false);
  }
  actions.forEach((a, i) => {
    if (a.kind === 'plan' || a.kind === 'commit' || a.ok || (a.kind === 'command' && a.denied)) return;
    if (a.kind === 'command') {
      const again = next.sameTargetOk(i);
      const editAt = next.namedEdit(i);
      const checkAt = editAt < known ? next.checkFrom(editAt + 1) : known;
      const what = `\`${commandKey(a.command)}\` failed${a.error ? ` ("${clipLine(a.error)}")` : ''}`;
      if (again < known || checkAt < known) {
        const end = again < known ? again : checkAt;
        const edited = all[editAt];
        // "After editing X" only where the rule paired the failure with that edit (a file it names,
        // then a passing check); a later success of the same command is the fix on its own: edits
        // made in between are not said to have caused it.
        const fixes = again >= known && edited.kind === 'file' ? [rel(edited.to ?? edited.path)] : [];
        const passed = all[end] as Extract<Action, { kind: 'command' }>;
        const fix = again < known ? next.fixAt(i) : undefined;
        put(
          commandTarget(a.command),
          `- fixed: ${what} → ${fixes.length ? `after editing ${fixes.join(', ')}, ` : ''}${fixWords(fix, commandKey(passed.command))}${end >= actions.length ? ' (in the steps kept after this summary)' : ''}`,
          true,
        );
      } else
        put(
          commandTarget(a.command),
          `- open: \`${commandKey(a.command)}\` → ${a.exit !== undefined ? `exit ${a.exit}: ` : ''}${clipLine(a.error ?? 'failed')}`,
          false,
        );
    } else if (a.kind === 'file') {
      if (a.op === 'read') return;
      // A file a failed shell command would have changed (`ren a b && …`): the command's own line
      // says what failed and why (and whether it was fixed); the file alone says nothing.
      if (!a.ok && fromFailedCommand(actions, i)) return;
      const k = `file\u0000${a.path}`;
      const what = `changing ${rel(a.path)} failed${a.error ? ` ("${clipLine(a.error)}")` : ''}`;
      if (next.editPathAfter(i)) put(k, `- fixed: ${what} → a later ${a.tool} of the same file succeeded`, true);
      else put(k, `- open: ${rel(a.path)}: ${a.tool} failed: ${clipLine(a.error ?? 'failed')}`, false);
    }
  });
  const listed = [...errors.values()];
  const errorLines = [...listed.filter((e) => e.fixed), ...listed.filter((e) => !e.fixed)].map((e) => e.line);
  movedCache.set(actions, moved);
  return {
    files: fileLines,
    commands: commandLines,
    errors: errorLines,
    commits: commitLines(actions, earlier.get(LEDGER.commits) ?? []),
    environment: environmentLines(actions, earlier.get(LEDGER.environment) ?? [], later),
    moved,
    edited,
  };
}

/**
 * `buildLedger(actions).moved` (old path → where the file lives now), which depends on the actions
 * alone: kept per actions array, so the back-fill after the notes does not build the ledger again.
 */
export function movedPaths(actions: readonly Action[]): ReadonlyMap<string, string> {
  return movedCache.get(actions) ?? buildLedger(actions).moved;
}
const movedCache = new WeakMap<readonly Action[], Map<string, string>>();

/**
 * "failed, then fixed: …" for a failed command's last run that a later run resolved (`fix`, an index
 * into `all`), else undefined (also when that run is the same command text: "ok" was its outcome).
 */
function fixedBy(all: readonly Action[], fix: CommandFix | undefined, cmd: string): string | undefined {
  const passed = fix === undefined ? undefined : all[fix.at];
  if (passed?.kind !== 'command') return undefined;
  const key = commandKey(passed.command);
  if (key === cmd) return undefined;
  return `failed, then ${fix!.by === 'worked around' || fix!.by === 'signed in' ? 'resolved' : 'fixed'}: ${fixWords(fix, key)}`;
}

/** How a later run (`passed`, its command key) resolved a failed command, as the ledger words it. */
function fixWords(fix: CommandFix | undefined, passed: string): string {
  switch (fix?.by) {
    case 'options added':
      return `fixed by adding ${fix.added.join(' ')}: \`${passed}\` passed`;
    case 'worked around':
      return `worked around by \`${passed}\`, which succeeded`;
    case 'signed in':
      return `signed in later: \`${passed}\` succeeded`;
    case 'input file left out':
      return `the same check passed without ${fix.dropped.join(' ')}: \`${passed}\` passed`;
    default:
      return `\`${passed}\` passed`;
  }
}

/** Commits named with their message (the newest); earlier ones are listed by id. */
const COMMITS_IN_FULL = 5;
/**
 * The commits the command at `actions[at]` made (the `commit` actions that follow it, see
 * `actions.ts`), as the words that follow its "ok": `, commit f8e6fe0`; '' for none. The command's
 * line keeps the id of what it made even where the commits section gives way to the budget.
 */
function commitsOf(actions: readonly Action[], at: number): string {
  const hashes: string[] = [];
  for (let i = at + 1; i < actions.length; i++) {
    const a = actions[i];
    if (a.kind !== 'commit') break;
    hashes.push(a.hash);
  }
  return hashes.length ? `, commit ${hashes.join(', ')}` : '';
}

/** Earlier commits listed by id at most (the newest of them). */
const COMMIT_IDS = 20;

/** A commit id in a carried commits line: 7 to 40 lower-case hex digits, a whole word. */
const CARRIED_HASH = /(?<![\w/.-])[0-9a-f]{7,40}(?![\w/.-])/g;

/**
 * The commits an earlier summary's commits lines name, oldest first, and how many older ones it
 * counted without naming them. Reads the lines {@link commitLines} writes (`- earlier commits: 3
 * before, then a1b2c3d, …`, `- commit e647cd7: message`) and the bare id lists an earlier summary
 * kept them in (`- Commits: a1b2c3d; e647cd7`); every id is taken once, so a list that an older
 * version nested inside itself reads as the flat list it meant.
 */
export function carriedCommits(lines: readonly string[]): {
  before: number;
  commits: Array<{ hash: string; message: string }>;
} {
  let before = 0;
  const commits: Array<{ hash: string; message: string }> = [];
  const seen = new Set<string>();
  for (const line of lines) {
    const full = /^- commit ([0-9a-f]{7,40}): (.*)$/.exec(line);
    if (full) {
      if (!seen.has(full[1])) commits.push({ hash: full[1], message: full[2] });
      seen.add(full[1]);
      continue;
    }
    const count = /^- earlier commits: (\d+) before, then /.exec(line);
    if (count) before += Number(count[1]);
    const ids = count ? line.slice(count[0].length) : line.replace(/^- [^:]*:/, '');
    for (const m of ids.matchAll(CARRIED_HASH))
      if (/[a-f]/.test(m[0]) && /\d/.test(m[0]) && !seen.has(m[0])) {
        seen.add(m[0]);
        commits.push({ hash: m[0], message: '' });
      }
  }
  return { before, commits };
}

/**
 * Lines naming the commits of `actions`, oldest first, after those `earlier` lines (an earlier
 * summary's commits section, see {@link carriedCommits}) named: one with the ids of the earlier ones
 * (the newest {@link COMMIT_IDS} of them, and how many came before), then the newest
 * {@link COMMITS_IN_FULL}, each with its message where one is known (`- commit e647cd7: feat: add …`);
 * none when neither made a commit. A commit is listed once, however often it is named.
 */
function commitLines(actions: readonly Action[], earlier: readonly string[]): string[] {
  const carried = carriedCommits(earlier);
  const commits = carried.commits.slice();
  const seen = new Set(commits.map((c) => c.hash));
  for (const a of actions)
    if (a.kind === 'commit' && !seen.has(a.hash)) {
      seen.add(a.hash);
      commits.push(a);
    }
  const before = commits.slice(0, -COMMITS_IN_FULL);
  const ids = before.slice(-COMMIT_IDS).map((c) => c.hash);
  const more = carried.before + before.length - ids.length;
  return [
    ...(ids.length ? [`- earlier commits: ${more ? `${more} before, then ` : ''}${ids.join(', ')}`] : []),
    ...commits
      .slice(-COMMITS_IN_FULL)
      .map((c) => (c.message ? `- commit ${c.hash}: ${clipMessage(c.message)}` : `- commit ${c.hash}`)),
  ];
}

/** A commit message cut at a word to 60 characters, with "…". */
function clipMessage(s: string): string {
  const t = s.replace(/\s+/g, ' ').trim();
  if (t.length <= 60) return t;
  const cut = t.lastIndexOf(' ', 59);
  return `${t.slice(0, cut > 30 ? cut : 59)}…`;
}

function clipLine(s: string): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > 200 ? `${t.slice(0, 199)}…` : t;
}

/**
 * Whether the file action at `i` was read from the shell command just before it (the actions of one
 * call: the command, then the files it names; see `actions.ts`): same tool, and that command failed.
 */
function fromFailedCommand(actions: readonly Action[], i: number): boolean {
  const a = actions[i];
  for (let k = i - 1; k >= 0; k--) {
    const b = actions[k];
    if (b.kind === 'command') return b.tool === a.tool && !b.ok;
    if (b.kind !== 'file' || b.tool !== a.tool) return false;
  }
  return false;
}

/** A successful file change (not a read). */
function isEdit(a: Action): a is Extract<Action, { kind: 'file' }> {
  return a.kind === 'file' && a.ok && a.op !== 'read';
}

/**
 * What the errors section asks of the actions after an action, answered from an {@link ActionIndex}
 * of `actions` by position (the length of `actions` when there is none).
 */
function laterIndexes(actions: readonly Action[]) {
  const n = actions.length;
  const index = ActionIndex.of(actions);
  const { successes, edits, checks, editedAt } = index;
  const fixes = new Map<number, CommandFix | undefined>();
  /** For a failed command at i (not refused): how the first later run resolving it did so. */
  const fixAt = (i: number): CommandFix | undefined => {
    const a = actions[i];
    if (a.kind !== 'command' || a.ok || a.denied) return undefined;
    if (!fixes.has(i)) fixes.set(i, successes.fix(a.command, i, n));
    return fixes.get(i);
  };
  return {
    fixAt,
    /** For a failed command at i: first index > i of a passing run that resolves it. */
    sameTargetOk: (i: number) => fixAt(i)?.at ?? n,
    /** For a failed command at i: first index > i of a successful change of a file it names. */
    namedEdit: (i: number) => {
      const a = actions[i];
      return a.kind === 'command' && a.named?.length ? (edits.first('', a.named, i, n) ?? n) : n;
    },
    /** First index ≥ i of a passing check (`isCheckCommand`). */
    checkFrom: (i: number) => nextAt(checks, i - 1, n) ?? n,
    /** For a file action at i: whether a later successful change of the same path exists. */
    editPathAfter: (i: number) => {
      const a = actions[i];
      return a.kind === 'file' && nextAt(editedAt.get(a.path), i, n) !== undefined;
    },
    /** Whether some success of the actions resolves a failed command (a carried line's). */
    fixedLater: (command: string) => successes.fixes(command, -1, n),
    /** Whether some action changed `path` successfully. */
    editedSomewhere: (path: string) => nextAt(editedAt.get(path), -1, n) !== undefined,
    /** Index of the first successful change of one of `paths` (path keys); `n` when none. */
    firstEditOf: (paths: readonly string[]) => (paths.length ? (edits.first('', paths, -1, n) ?? n) : n),
  };
}

/** The first of `ats` (ascending positions) after `after` and before `before`; undefined when none. */
function nextAt(ats: readonly number[] | undefined, after: number, before: number): number | undefined {
  if (ats === undefined) return undefined;
  let lo = 0;
  let hi = ats.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ats[mid] <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo < ats.length && ats[lo] < before ? ats[lo] : undefined;
}

/**
 * The successful runs ({@link LaterSuccesses}), successful file changes (by path key, {@link
 * LaterPaths}, and by path) and passing checks of a list of actions, by position. The actions of a
 * grown span are the same objects as last time (see `actionsOf`), so the index of the list read last
 * is kept: cut where a new list differs from it, then extended by the actions after, so a grown span
 * (and the same span with the actions kept after it) indexes its new actions only.
 */
class ActionIndex {
  /** The actions indexed, in order. */
  private readonly actions: Action[] = [];
  readonly successes = new LaterSuccesses();
  readonly edits = new LaterPaths();
  /** Positions of the passing checks, ascending. */
  readonly checks: number[] = [];
  /** Per path: positions of its successful changes ({@link isEdit}), ascending. */
  readonly editedAt = new Map<string, number[]>();

  /** The index of `actions`: the kept one cut and extended when memos are kept and the list is long. */
  static of(actions: readonly Action[]): ActionIndex {
    if (!messageMemosKept()) keptIndex = undefined;
    if (actions.length < KEEP_INDEX_FROM || !messageMemosKept()) return new ActionIndex().update(actions);
    keptIndex = (keptIndex ?? new ActionIndex()).update(actions);
    return keptIndex;
  }

  private update(actions: readonly Action[]): this {
    const own = this.actions;
    const upTo = Math.min(own.length, actions.length);
    let same = 0;
    while (same < upTo && own[same] === actions[same]) same++;
    if (same < own.length) {
      for (let i = own.length - 1; i >= same; i--) {
        const a = own[i];
        if (isEdit(a)) this.editedAt.get(a.path)!.pop();
      }
      own.length = same;
      this.successes.cut(same);
      this.edits.cut(same);
      while ((this.checks.at(-1) ?? -1) >= same) this.checks.pop();
    }
    for (let i = same; i < actions.length; i++) {
      const a = actions[i];
      own.push(a);
      if (a.kind === 'command' && a.ok) {
        this.successes.add(a.command, i);
        if (isCheckCommand(a.command)) this.checks.push(i);
      } else if (isEdit(a)) {
        let at = this.editedAt.get(a.path);
        if (!at) this.editedAt.set(a.path, (at = []));
        at.push(i);
        this.edits.add('', pathKey(a.to ?? a.path), i);
      }
    }
    return this;
  }
}

/** Lists with fewer actions are indexed apart (cheap), so they do not push a long span's index out. */
const KEEP_INDEX_FROM = 256;
/** The index {@link ActionIndex.of} kept for the next, grown span. */
let keptIndex: ActionIndex | undefined;
