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
/** A folder line: its folder (ending with `/` or `\`) and its names, comma separated. */
const FOLDER_LINE = /^- in (\S(?:.*?[\\/])?): (.+)$/;

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

/**
 * A files section's line read back, for carrying it into the next summary: a full line's path (as
 * written), where note, operations with their counts (`edited 2×` → 2) and symbols it names; or, for a
 * folder line, each name it holds (`ops` empty: the line named the file only). Undefined for a line
 * that is neither.
 */
export function readCarriedFileLine(
  line: string,
): Array<{ path: string; where: string; ops: Array<[string, number]>; symbols: string[]; detail: string }> | undefined {
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
  return m[2].split(', ').map((n) => {
    const note = / \((deleted|moved)\)$/.exec(n);
    return {
      path: `${folder}${note ? n.slice(0, note.index) : n}`,
      where: note ? ` (${note[1]})` : '',
      ops: [],
      symbols: [],
      detail: '',
    };
  });
}

function parseFileLine(line: string): FileLine | undefined {
  const m = FILE_LINE.exec(line);
  return m ? { path: m[1], where: m[2] ?? '', ops: m[3], detail: m[4] ?? '' } : undefined;
}

/** Whether `line` is a folder line written by {@link foldIntoFolders}. */
export function isFolderLine(line: string): boolean {
  return FOLDER_LINE.test(line);
}

/** The names of a folder line (with their `(deleted)`/`(moved)` notes), or none. */
function namesOf(line: string): string[] {
  const m = FOLDER_LINE.exec(line);
  return m ? m[2].split(', ') : [];
}

/** How many files `lines` (files section lines) name: one per full line, one per name of a folder line. */
export function filesNamed(lines: readonly string[]): number {
  let n = 0;
  for (const l of lines) {
    if (isFolderLine(l)) n += namesOf(l).length;
    else if (parseFileLine(l)) n++;
  }
  return n;
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
 * order, oldest first): each file becomes its name on its folder's line, marked `(deleted)` or
 * `(moved)` when the line said so (a name never reads as a file that still exists when it does not).
 * A folder already named gets the names at its end; a new folder gets a line after the others.
 * Lines that are no full file lines are kept as they were, after the folder lines. Returns the new lines.
 */
export function foldIntoFolders(folders: readonly string[], lines: readonly string[]): string[] {
  const byFolder = new Map<string, string[]>();
  for (const l of folders) {
    const m = FOLDER_LINE.exec(l);
    if (m) byFolder.set(m[1], m[2].split(', '));
  }
  const rest: string[] = [];
  for (const l of lines) {
    const f = parseFileLine(l);
    if (!f) {
      rest.push(l);
      continue;
    }
    const [folder, name] = splitPath(f.path);
    const note = f.where.startsWith(' (deleted') ? ' (deleted)' : f.where.startsWith(' (moved') ? ' (moved)' : '';
    const names = byFolder.get(folder) ?? [];
    const named = `${name}${note}`;
    // A file named again (a carried line and a new one) stands once, with its newest note.
    const same = names.findIndex((n) => n === name || n.startsWith(`${name} (`));
    if (same >= 0) names.splice(same, 1);
    names.push(named);
    byFolder.set(folder, names);
  }
  return [...[...byFolder].map(([folder, names]) => `${FOLDER_PREFIX}${folder}: ${names.join(', ')}`), ...rest];
}

/**
 * Removes the oldest `n` names from the folder lines among `lines` (in place; a line left without
 * names goes). Returns how many names were removed.
 */
export function dropOldestNames(lines: string[], n: number): number {
  let removed = 0;
  while (removed < n) {
    const k = lines.findIndex(isFolderLine);
    if (k < 0) break;
    const m = FOLDER_LINE.exec(lines[k])!;
    const names = m[2].split(', ');
    const take = Math.min(names.length, n - removed);
    names.splice(0, take);
    removed += take;
    if (names.length) lines[k] = `${FOLDER_PREFIX}${m[1]}: ${names.join(', ')}`;
    else lines.splice(k, 1);
  }
  return removed;
}

/**
 * `text` with each folder line written out as the full paths it names, one per line
 * (`- in src/api/: a.ts, b.ts (deleted)` → `- src/api/a.ts`, `- src/api/b.ts (deleted)`): how a
 * reader that looks paths up verbatim reads a summary's short files section.
 */
export function expandFolderLines(text: string): string {
  if (!text.includes(FOLDER_PREFIX)) return text;
  return text
    .split('\n')
    .map((l) => {
      const m = FOLDER_LINE.exec(l);
      if (!m) return l;
      const folder = m[1] === './' ? '' : m[1];
      return m[2]
        .split(', ')
        .map((n) => `- ${folder}${n}`)
        .join('\n');
    })
    .join('\n');
}

/** Start of the marker line that says how many files a files section no longer names. */
export const FILES_LEFT_OUT = (n: number) => `- … ${n} older file${n === 1 ? '' : 's'} changed not named here`;
