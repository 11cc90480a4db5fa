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

/** Section headings of the ledger. */
export const LEDGER = {
  files: '## Files (what happened to each; where it lives now)',
  commands: '## Commands and outcomes',
  errors: '## Errors and fixes',
} as const;

/** Commands that verify work (tests, builds, type checks, linters). */
export const VERIFY = /\b(pytest|jest|vitest|mocha|tox|unittest|(npm|pnpm|yarn|bun|npx) (run )?(test|build|lint|typecheck|check|tsc)|cargo (test|build|check|clippy)|go (test|build|vet)|tsc|eslint|ruff|mypy|make( \w+)?|mvn|gradle|dotnet (test|build)|phpunit|rspec|python -m pytest)\b/;

/** Lines of the three ledger sections, oldest first. */
export interface LedgerLines {
  files: string[];
  commands: string[];
  /** `fixed: …` lines first, then `open: …` lines (newest last). */
  errors: string[];
  /** Paths that moved away: old path → where the file lives now. */
  moved: Map<string, string>;
  /** Files edited or created, newest last (current paths). */
  edited: string[];
}

interface FileState {
  path: string;
  from?: string;
  ops: FileOp[];
  symbols: string[];
  last: number;
}

/** One line per command text (whitespace collapsed), at most 300 characters. */
export function commandKey(command: string): string {
  const t = command.replace(/\s+/g, ' ').trim();
  return t.length > 300 ? `${t.slice(0, 299)}…` : t;
}

function opsText(ops: FileOp[]): string {
  const counts = new Map<FileOp, number>();
  for (const o of ops) counts.set(o, (counts.get(o) ?? 0) + 1);
  return [...counts].map(([o, n]) => (n > 1 ? `${o} ${n}×` : o)).join(', ');
}

/** Key of a carried line: the path or command it is about. */
function lineKey(line: string): string {
  const cmd = /`([^`]+)`/.exec(line);
  if (cmd) return cmd[1];
  const path = /^- (?:fixed: |open: )?(\S+?)(?: \(|:)/.exec(line);
  return path ? path[1] : line;
}

/**
 * Builds the ledger of `actions` (in order), carrying `earlier` lines (by section heading) of the
 * summaries folded in. Pure.
 */
export function buildLedger(actions: readonly Action[], earlier: ReadonlyMap<string, readonly string[]> = new Map()): LedgerLines {
  const files = new Map<string, FileState>();
  const moved = new Map<string, string>();
  actions.forEach((a, i) => {
    if (a.kind !== 'file') return;
    if (!a.ok && a.op !== 'read') return;
    let path = moved.get(a.path) ?? a.path;
    let st = files.get(path);
    if (a.op === 'moved' && a.to) {
      const prev = st ?? { path, ops: [], symbols: [], last: i };
      files.delete(path);
      moved.set(path, a.to);
      for (const [k, v] of moved) if (v === path) moved.set(k, a.to);
      path = a.to;
      st = { ...prev, path, from: prev.from ?? a.path, ops: [...prev.ops, 'moved'], last: i };
      files.set(path, st);
      return;
    }
    if (!st) {
      st = { path, ops: [], symbols: [], last: i };
      files.set(path, st);
    }
    if (a.op === 'read' && st.ops.includes('read')) st.last = Math.max(st.last, i);
    else st.ops.push(a.op);
    for (const s of a.symbols) if (!st.symbols.includes(s)) st.symbols.push(s);
    st.last = i;
  });
  const fileLines: string[] = [];
  const readOnly: string[] = [];
  const edited: string[] = [];
  const carriedFiles = (earlier.get(LEDGER.files) ?? []).filter((l) => !files.has(lineKey(l)) && !moved.has(lineKey(l)) && !l.startsWith('- read only:'));
  fileLines.push(...carriedFiles);
  const carriedRead = (earlier.get(LEDGER.files) ?? []).find((l) => l.startsWith('- read only:'));
  if (carriedRead) readOnly.push(...carriedRead.slice('- read only:'.length).split(',').map((s) => s.trim()).filter((p) => p && !files.has(p)));
  for (const st of [...files.values()].sort((a, b) => a.last - b.last)) {
    if (st.ops.every((o) => o === 'read')) {
      if (!readOnly.includes(st.path)) readOnly.push(st.path);
      continue;
    }
    const where = st.ops.at(-1) === 'deleted' ? ' (deleted; no longer exists)' : st.from ? ` (moved from ${st.from}; lives here now)` : '';
    const sym = st.symbols.length ? `; defines or changes: ${st.symbols.slice(0, 24).join(', ')}` : '';
    fileLines.push(`- ${st.path}${where}: ${opsText(st.ops)}${sym}`);
    if (st.ops.at(-1) !== 'deleted') edited.push(st.path);
  }
  if (readOnly.length) fileLines.unshift(`- read only: ${readOnly.join(', ')}`);

  // Commands: one line per distinct command, newest last, with its runs' outcomes.
  const runs = new Map<string, { oks: boolean[]; exit?: number; error?: string; last: number }>();
  actions.forEach((a, i) => {
    if (a.kind !== 'command') return;
    const key = commandKey(a.command);
    const r = runs.get(key) ?? { oks: [], last: i };
    r.oks.push(a.ok);
    r.last = i;
    if (!a.ok) {
      r.exit = a.exit;
      r.error = a.error;
    }
    runs.set(key, r);
  });
  const commandLines = (earlier.get(LEDGER.commands) ?? []).filter((l) => !runs.has(lineKey(l)));
  for (const [cmd, r] of [...runs].sort((a, b) => a[1].last - b[1].last)) {
    const last = r.oks.at(-1)!;
    const failed = r.oks.filter((o) => !o).length;
    const status = last ? 'ok' : `failed${r.exit !== undefined ? ` (exit ${r.exit})` : ''}${r.error ? `: ${clipLine(r.error)}` : ''}`;
    const history = r.oks.length > 1 ? ` (ran ${r.oks.length}×, ${failed} failed)` : '';
    commandLines.push(`- \`${cmd}\` → ${status}${history}`);
  }

  // Failures and their fixes.
  const fixed: string[] = [];
  const open: string[] = [];
  const carriedErrors = earlier.get(LEDGER.errors) ?? [];
  for (const l of carriedErrors) {
    if (l.startsWith('- open:')) {
      const key = lineKey(l);
      const later = actions.findIndex((a) => (a.kind === 'command' && commandKey(a.command) === key && a.ok) || (a.kind === 'file' && a.path === key && a.ok && a.op !== 'read'));
      const laterVerify = actions.some((a, j) => a.kind === 'command' && a.ok && VERIFY.test(a.command) && actions.slice(0, j).some((b) => b.kind === 'file' && b.ok && b.op !== 'read'));
      if (later >= 0 || laterVerify) fixed.push(`- fixed: ${l.slice('- open: '.length).split(' → ')[0]} → resolved in later work (${later >= 0 ? 'it succeeded later' : 'edits, then a passing check'})`);
      else open.push(l);
    } else fixed.push(l);
  }
  actions.forEach((a, i) => {
    if (a.kind === 'plan' || a.ok) return;
    const rest = actions.slice(i + 1);
    if (a.kind === 'command') {
      const key = commandKey(a.command);
      const again = rest.findIndex((b) => b.kind === 'command' && commandKey(b.command) === key && b.ok);
      const editAt = rest.findIndex((b) => b.kind === 'file' && b.ok && b.op !== 'read');
      const verifyAt = editAt < 0 ? -1 : rest.findIndex((b, j) => j > editAt && b.kind === 'command' && b.ok && VERIFY.test(b.command));
      const what = `\`${key}\` failed${a.error ? ` ("${clipLine(a.error)}")` : ''}`;
      if (again >= 0 || verifyAt >= 0) {
        const end = again >= 0 ? again : verifyAt;
        const fixes = [...new Set(rest.slice(0, end).flatMap((b) => (b.kind === 'file' && b.ok && b.op !== 'read' ? [b.to ?? b.path] : [])))];
        const passed = rest[end] as Extract<Action, { kind: 'command' }>;
        fixed.push(`- fixed: ${what} → ${fixes.length ? `after editing ${fixes.slice(0, 4).join(', ')}, ` : ''}\`${commandKey(passed.command)}\` passed`);
      } else {
        // Repeated failures of one command are one open item (the newest error).
        const prefix = `- open: \`${key}\``;
        const k = open.findIndex((l) => l.startsWith(prefix));
        if (k >= 0) open.splice(k, 1);
        open.push(`${prefix} → ${a.exit !== undefined ? `exit ${a.exit}: ` : ''}${clipLine(a.error ?? 'failed')}`);
      }
    } else if (a.kind === 'file') {
      const again = rest.some((b) => b.kind === 'file' && b.path === a.path && b.ok && b.op !== 'read');
      const what = `${a.op === 'read' ? 'reading' : 'changing'} ${a.path} failed${a.error ? ` ("${clipLine(a.error)}")` : ''}`;
      if (a.op === 'read') return;
      if (again) fixed.push(`- fixed: ${what} → a later ${a.tool} of the same file succeeded`);
      else open.push(`- open: ${a.path}: ${a.tool} failed: ${clipLine(a.error ?? 'failed')}`);
    }
  });
  return { files: fileLines, commands: commandLines, errors: [...fixed, ...open], moved, edited };
}

function clipLine(s: string): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > 200 ? `${t.slice(0, 199)}…` : t;
}
