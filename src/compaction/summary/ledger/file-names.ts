/**
 * The short forms of the "Files changed" lines, for notes that cannot hold a line per file with what
 * changed: first a file's line loses its detail (symbols, last change) and keeps its operations, then
 * files are named only, grouped by the folder that holds them (`- in src/api/: a.ts, b.ts (deleted)`).
 * A file is left out only when even its name in a folder line does not fit, so at small windows the
 * summary still names every file changed that it can.
 *
 * Readers of a summary (the retention scorecard, the bench) read a folder line back as the full paths
 * it names ({@link expandFolderLines}).
 *
 * Pure: no I/O.
 */

/** Start of a files line that names files only, by folder. */
const FOLDER_PREFIX = '- in ';
/** A folder line: its folder (ending with `/` or `\\`) and its groups of names. */
const FOLDER_LINE = /^- in (\S(?:.*?[\\/])?): (.+)$/;

/**
 * What happened to a file named on a folder line, in the words that group its names there
 * (`- in src/api/: created a.ts, b.ts; edited c.ts; read d.ts`): every name says whether the file
 * is new, was edited, was deleted or was moved into that folder, as its full line did, or that it
 * was only read (a name of the files-read line, folded in before it would go).
 */
export type FolderVerb = 'created' | 'edited' | 'deleted' | 'moved here' | 'read';
const VERBS: readonly FolderVerb[] = ['created', 'edited', 'moved here', 'deleted', 'read'];
/** A group of a folder line: its verb and its names, comma separated. */
const GROUP = /^(created|edited|deleted|moved here|read) (.+)$/;

/** Start of the files section's line of the files only read (see `ledger.ts`). */
export const READ_ONLY_LINE = '- read only:';

/** One name of a folder line with what happened to its file. */
interface FolderName {
  name: string;
  verb: FolderVerb;
}

/** The operations a ledger line lists (`read, edited 2×, created`), see `ledger.ts` opsText. */
const OPS = String.raw`(?:read|created|edited|deleted|moved)(?: \d+×)?`;
/**
 * A full ledger line: `- <path>[ (deleted; no longer exists)| (moved from <old>; lives here now)]: <ops>[; <detail>]`.
 * Groups: path, where note, operations, detail.
 */
const FILE_LINE = new RegExp(
  String.raw`^- (.+?)( \((?:deleted; no longer exists|moved from .+?; lives here now)\))?: (${OPS}(?:, ${OPS})*)(; .*)?$`,
);

/** A ledger line read back: the path, its note (deleted, moved) and whether it carries detail. */
interface FileLine {
  path: string;
  where: string;
  ops: string;
  detail: string;
}

/** One file as an earlier summary's files section named it (see {@link readCarriedFileLine}). */
export interface CarriedFileLine {
  path: string;
  where: string;
  /** Operations with their counts; empty when the summary named the file only (by folder). */
  ops: Array<[string, number]>;
  symbols: string[];
  detail: string;
  /** What a folder line said happened to the file (see `FolderVerb`), when one named it. */
  verb?: FolderVerb;
}

/**
 * A files section's line read back, for carrying it into the next summary: a full line's path (as
 * written), where note, operations with their counts (`edited 2×` → 2) and symbols it names; or, for a
 * folder line, each name it holds (`ops` empty: the line named the file only). Undefined for a line
 * that is neither.
 */
export function readCarriedFileLine(line: string): CarriedFileLine[] | undefined {
  const f = parseFileLine(line);
  if (f) {
    const ops = f.ops.split(', ').map((o): [string, number] => {
      const m = /^(\w+)(?: (\d+)×)?$/.exec(o)!;
      return [m[1], m[2] ? Number(m[2]) : 1];
    });
    const sym = /^; defines or changes: (.*)$/.exec(f.detail);
    return [{ path: f.path, where: f.where, ops, symbols: sym ? sym[1].split(', ') : [], detail: sym ? '' : f.detail }];
  }
  const m = FOLDER_LINE.exec(line);
  if (!m) return undefined;
  const folder = m[1] === './' ? '' : m[1];
  return folderNames(m[2]).map(({ name, verb }) => ({
    path: `${folder}${name}`,
    where: verb === 'deleted' ? ' (deleted)' : verb === 'moved here' ? ' (moved)' : '',
    ops: [],
    symbols: [],
    detail: '',
    verb,
  }));
}

/**
 * The names of a folder line's body (after `- in folder: `) with their verbs, in the line's order.
 * A body written without verbs (`a.ts, old.ts (deleted), b.ts (moved)`, as earlier versions wrote it)
 * reads each name's note as its verb and a name without one as edited.
 */
function folderNames(body: string): FolderName[] {
  const out: FolderName[] = [];
  for (const group of body.split('; ')) {
    const g = GROUP.exec(group);
    if (g) {
      for (const name of g[2].split(', ')) out.push({ name, verb: g[1] as FolderVerb });
      continue;
    }
    for (const n of group.split(', ')) {
      const note = / \((deleted|moved)\)$/.exec(n);
      const name = note ? n.slice(0, note.index) : n;
      out.push({ name, verb: note?.[1] === 'deleted' ? 'deleted' : note ? 'moved here' : 'edited' });
    }
  }
  return out;
}

/** A folder line naming `names` in `folder`, grouped by verb (created, edited, moved here, deleted), each group in the names' order. */
function folderLine(folder: string, names: readonly FolderName[]): string {
  const groups = VERBS.map((v) => [v, names.filter((n) => n.verb === v).map((n) => n.name)] as const).filter(
    ([, ns]) => ns.length > 0,
  );
  return `${FOLDER_PREFIX}${folder}: ${groups.map(([v, ns]) => `${v} ${ns.join(', ')}`).join('; ')}`;
}

/**
 * What a full line's file is, in a folder line's words: deleted or moved when its note says so,
 * created when its operations hold a creation (a new file, or one written whole), else edited.
 */
function verbOf(f: FileLine): FolderVerb {
  if (f.where.startsWith(' (deleted')) return 'deleted';
  if (f.where.startsWith(' (moved')) return 'moved here';
  return /\bcreated\b/.test(f.ops) ? 'created' : 'edited';
}

function parseFileLine(line: string): FileLine | undefined {
  const m = FILE_LINE.exec(line);
  return m ? { path: m[1], where: m[2] ?? '', ops: m[3], detail: m[4] ?? '' } : undefined;
}

/** Whether `line` is a folder line written by {@link foldIntoFolders}. */
export function isFolderLine(line: string): boolean {
  return FOLDER_LINE.test(line);
}

/** The names of a folder line with their verbs, or none. */
function namesOf(line: string): FolderName[] {
  const m = FOLDER_LINE.exec(line);
  return m ? folderNames(m[2]) : [];
}

/** How many changed files `lines` (files section lines) name: one per full line, one per changed name of a folder line. */
export function filesNamed(lines: readonly string[]): number {
  let n = 0;
  for (const l of lines) {
    if (isFolderLine(l)) n += namesOf(l).filter((f) => f.verb !== 'read').length;
    else if (parseFileLine(l)) n++;
  }
  return n;
}

/**
 * Folds the files-read line among `lines` (in place) into the folder lines, each name in its
 * folder's `read` group (a folder line is added for a folder not named yet, after the others):
 * shorter than the line of full paths, and the files read stay named. False when there is no such line.
 */
export function foldReadLine(lines: string[]): boolean {
  const k = lines.findIndex((l) => l.startsWith(READ_ONLY_LINE));
  if (k < 0) return false;
  const paths = lines[k]
    .slice(READ_ONLY_LINE.length)
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  lines.splice(k, 1);
  const byFolder = new Map<string, FolderName[]>();
  const at = new Map<string, number>();
  lines.forEach((l, i) => {
    const m = FOLDER_LINE.exec(l);
    if (m) {
      byFolder.set(m[1], folderNames(m[2]));
      at.set(m[1], i);
    }
  });
  for (const p of paths) {
    const [folder, name] = splitPath(p);
    const names = byFolder.get(folder) ?? [];
    if (!names.some((n) => n.name === name)) names.push({ name, verb: 'read' });
    byFolder.set(folder, names);
  }
  const added: string[] = [];
  for (const [folder, names] of byFolder) {
    const i = at.get(folder);
    if (i === undefined) added.push(folderLine(folder, names));
    else lines[i] = folderLine(folder, names);
  }
  // New folder lines go after the last folder line, or first (the read line's place) when none.
  const last = lines.reduce((n, l, i) => (isFolderLine(l) ? i : n), -1);
  let put = last < 0 ? Math.min(k, lines.length) : last + 1;
  for (const l of added) lines.splice(put++, 0, l);
  return true;
}

/** Removes the names of files only read from the folder lines among `lines` (in place). Returns how many went. */
export function dropReadNames(lines: string[]): number {
  let removed = 0;
  for (let k = lines.length - 1; k >= 0; k--) {
    const m = FOLDER_LINE.exec(lines[k]);
    if (!m) continue;
    const names = folderNames(m[2]);
    const kept = names.filter((n) => n.verb !== 'read');
    removed += names.length - kept.length;
    if (kept.length === names.length) continue;
    if (kept.length) lines[k] = folderLine(m[1], kept);
    else lines.splice(k, 1);
  }
  return removed;
}

/** Characters of a file line's detail (what changed) in its short form. */
const SHORT_DETAIL_CHARS = 60;

/**
 * The full file line `line` with its detail (what changed, after the operations) cut to about
 * {@link SHORT_DETAIL_CHARS} characters at a word end, marked `…`; `line` itself when its detail is
 * that short already or it is no full file line.
 */
export function shortDetail(line: string): string {
  const f = parseFileLine(line);
  if (!f || f.detail.length <= SHORT_DETAIL_CHARS + 2) return line;
  const detail = f.detail.slice(2, 2 + SHORT_DETAIL_CHARS);
  const end = detail.lastIndexOf(' ');
  return `- ${f.path}${f.where}: ${f.ops}; ${(end > 20 ? detail.slice(0, end) : detail).replace(/[,;:(]+$/, '')}…`;
}

/**
 * `line` without the detail after its operations (the symbols it defines, its last change), or
 * undefined when it has none (or is no full file line).
 */
export function withoutDetail(line: string): string | undefined {
  const f = parseFileLine(line);
  return f && f.detail ? `- ${f.path}${f.where}: ${f.ops}` : undefined;
}

/** Whether `line` is a full file line with detail that {@link withoutDetail} would remove. */
export function hasDetail(line: string): boolean {
  return parseFileLine(line)?.detail ? true : false;
}

/** Whether `line` is a full file line (one file, its operations). */
export function isFileLine(line: string): boolean {
  return parseFileLine(line) !== undefined;
}

/** `path` split at its last separator: the folder (with the separator; `./` for a bare name) and the name. */
function splitPath(path: string): [string, string] {
  const at = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return at < 0 ? ['./', path] : [path.slice(0, at + 1), path.slice(at + 1)];
}

/**
 * Folds the full file lines `lines` into the folder lines `folders` (both in the files section's
 * order, oldest first): each file becomes its name on its folder's line, in the group of what
 * happened to it (`created`, `edited`, `moved here`, `deleted`, see {@link verbOf}), so a name never
 * reads as a file changed without saying how, nor as one that still exists when it does not.
 * A folder already named gets the names at its end; a new folder gets a line after the others.
 * Lines that are no full file lines are kept as they were, after the folder lines. Returns the new lines.
 */
export function foldIntoFolders(folders: readonly string[], lines: readonly string[]): string[] {
  const byFolder = new Map<string, FolderName[]>();
  for (const l of folders) {
    const m = FOLDER_LINE.exec(l);
    if (m) byFolder.set(m[1], folderNames(m[2]));
  }
  const rest: string[] = [];
  for (const l of lines) {
    const f = parseFileLine(l);
    if (!f) {
      rest.push(l);
      continue;
    }
    const [folder, name] = splitPath(f.path);
    const names = byFolder.get(folder) ?? [];
    // A file named again (a carried line and a new one) stands once, with what happened to it last.
    const same = names.findIndex((n) => n.name === name);
    if (same >= 0) names.splice(same, 1);
    names.push({ name, verb: verbOf(f) });
    byFolder.set(folder, names);
  }
  return [...[...byFolder].map(([folder, names]) => folderLine(folder, names)), ...rest];
}

/**
 * Removes `n` names from the folder lines among `lines` (in place), the oldest folder's first and,
 * in a folder, deleted files before moved, edited and created ones (what no longer exists tells the
 * least about the code as it is); a line left without names goes. Returns how many were removed.
 */
export function dropOldestNames(lines: string[], n: number): number {
  let removed = 0;
  while (removed < n) {
    const k = lines.findIndex(isFolderLine);
    if (k < 0) break;
    const m = FOLDER_LINE.exec(lines[k])!;
    const names = folderNames(m[2]);
    for (const verb of [...VERBS].reverse())
      for (let i = 0; i < names.length && removed < n;)
        if (names[i].verb === verb) {
          names.splice(i, 1);
          removed++;
        } else i++;
    if (names.length) lines[k] = folderLine(m[1], names);
    else lines.splice(k, 1);
  }
  return removed;
}

/** The folder both `a` and `b` (folders ending with a separator) lie in, ending with a separator; '' when none. */
function commonFolder(a: string, b: string): string {
  let end = 0;
  for (let i = 0; i < Math.min(a.length, b.length) && a[i] === b[i]; i++)
    if (a[i] === '/' || a[i] === '\\') end = i + 1;
  return a.slice(0, end);
}

/**
 * Merges the folder lines among `lines` (in place) that lie in the deepest folder two of them share
 * into one line of that folder, each name written from it (`- in $A/src/app/: edited a.tsx` and `- in
 * $A/src/lib/: created db.ts` → `- in $A/src/: edited app/a.tsx; created lib/db.ts`), at the place of
 * the first; only when the section gets shorter. Lossless (every name stays, read back as the same
 * full path): the step before any name goes. A shared folder of fewer than three characters (`/`,
 * `C:\\`) or a bare name's `./` merges nothing. Returns whether lines were merged.
 */
export function mergeFolderLines(lines: string[]): boolean {
  const folders = lines.flatMap((l, k) => {
    const m = FOLDER_LINE.exec(l);
    return m && m[1] !== './' ? [{ k, folder: m[1], names: folderNames(m[2]) }] : [];
  });
  let best = '';
  for (let i = 0; i < folders.length; i++)
    for (let j = i + 1; j < folders.length; j++) {
      const c = commonFolder(folders[i].folder, folders[j].folder);
      if (c.length > best.length && c.length >= 3 && !/^[A-Za-z]:[\\/]$/.test(c)) best = c;
    }
  if (!best) return false;
  const group = folders.filter((f) => f.folder.startsWith(best));
  const names = group.flatMap((f) =>
    f.names.map((n) => ({ name: `${f.folder.slice(best.length)}${n.name}`, verb: n.verb })),
  );
  const merged = folderLine(best, names);
  if (merged.length >= group.reduce((n, f) => n + lines[f.k].length + 1, 0)) return false;
  const gone = new Set(group.slice(1).map((f) => f.k));
  lines[group[0].k] = merged;
  for (let k = lines.length - 1; k >= 0; k--) if (gone.has(k)) lines.splice(k, 1);
  return true;
}

/**
 * Whether the next shortening of the files section `lines` leaves a changed file's name out: it
 * names a changed file, every file is named only, by folder, no file only read is named, and no
 * folder lines merge ({@link mergeFolderLines}).
 */
export function dropsNameNext(lines: readonly string[]): boolean {
  if (filesNamed(lines) === 0 || lines.some((l) => isFileLine(l) || l.startsWith(READ_ONLY_LINE))) return false;
  if (lines.some((l) => namesOf(l).some((n) => n.verb === 'read'))) return false;
  return !mergeFolderLines([...lines]);
}

/**
 * `text` with each folder line written out as the full paths it names, one per line, each with what
 * happened to it (`- in src/api/: created a.ts; deleted b.ts` → `- src/api/a.ts (created)`,
 * `- src/api/b.ts (deleted)`): how a reader that looks paths up verbatim reads a summary's short
 * files section.
 */
export function expandFolderLines(text: string): string {
  if (!text.includes(FOLDER_PREFIX)) return text;
  return text
    .split('\n')
    .map((l) => {
      const m = FOLDER_LINE.exec(l);
      if (!m) return l;
      const folder = m[1] === './' ? '' : m[1];
      return folderNames(m[2])
        .map((n) => `- ${folder}${n.name} (${n.verb})`)
        .join('\n');
    })
    .join('\n');
}

/** Start of the marker line that says how many files a files section no longer names. */
export const FILES_LEFT_OUT = (n: number) => `- … ${n} older file${n === 1 ? '' : 's'} changed not named here`;
