/**
 * Shorter file paths in a summary's ledger: a few folders named once (`$A = /home/u/app`), the
 * paths under them written from that name (`$A/src/x.ts`), as in a shell: the name stands for the
 * folder without its last separator, so `$A/src/x.ts` expands to `/home/u/app/src/x.ts` exactly. Recorded agents give
 * absolute paths, and a ledger of a hundred files repeats the same 40–90-character prefixes a hundred
 * times; written this way the same notes budget holds three to four times as many files.
 *
 * Every path under a named folder is written from it, a file directly in it too (`$A/package.json`
 * beside `$A/src/x.ts`): one summary never writes the same folder two ways. A folder is chosen for
 * the deeper paths it shortens, so a shortened path mostly keeps its parent folder and its name.
 *
 * Pure: no I/O.
 */

/** Named folders, deepest first when shortening. */
export interface PathRoots {
  /** Name (`$A`) and absolute folder ending with its separator (`/home/u/app/`, `c:\\Apps\\app\\`). */
  list: ReadonlyArray<{ name: string; dir: string }>;
}

export const NO_ROOTS: PathRoots = { list: [] };

/** Start of the line that names the folders; chained compactions read it back with {@link parseRootsLine}. */
export const ROOTS_LINE_PREFIX = '- Path roots (a path starting with one is under that folder): ';

/**
 * The line naming `roots`, or undefined when there are none. Each folder is written without its last
 * separator (`$A = /home/u/app`), as a shell variable holds it: `$A/src/x.ts` then reads as the path,
 * where `$A = /home/u/app/` read that way gave `/home/u/app//src/x.ts`.
 */
export function rootsLine(roots: PathRoots): string | undefined {
  return roots.list.length
    ? `${ROOTS_LINE_PREFIX}${roots.list.map((r) => `${r.name} = ${r.dir.slice(0, -1)}`).join(', ')}`
    : undefined;
}

/**
 * The folder a roots line writes as `written`, ending with its separator: a folder written without it
 * ({@link rootsLine}) gets it back (`\\` after a drive letter, else `/`); one written with it (by earlier
 * versions) is taken as it is. Undefined for text that is no absolute folder.
 */
export function rootDir(written: string): string | undefined {
  if (/[\\/]$/.test(written)) return written;
  if (/^[A-Za-z]:\\/.test(written)) return `${written}\\`;
  return /^~?\//.test(written) ? `${written}/` : undefined;
}

/** The roots a line written by {@link rootsLine} names, or undefined. */
export function parseRootsLine(line: string): PathRoots | undefined {
  const t = line.trim();
  if (!t.startsWith(ROOTS_LINE_PREFIX)) return undefined;
  const list: Array<{ name: string; dir: string }> = [];
  for (const m of t.slice(ROOTS_LINE_PREFIX.length).matchAll(/(\$[A-Z]) = ([^\s,]+)(?=,|$)/g)) {
    const dir = rootDir(m[2]);
    if (dir !== undefined) list.push({ name: m[1], dir });
  }
  return list.length ? { list } : undefined;
}

/** Most folders named in one summary. */
const MAX_ROOTS = 4;
/** Fewest characters a folder must save over the paths it shortens to be named (its own line costs about this). */
const MIN_SAVING = 120;
const NAMES = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * The separator of an absolute path: `/` for POSIX (`/…`, `~/…`), `\\` for Windows with a drive letter
 * (`c:\\Apps\\x`), undefined for any other (relative, JSON-escaped `c:\\\\x`, doubled separators).
 */
function separatorOf(path: string): '/' | '\\' | undefined {
  if (/^(?:\/|~\/)/.test(path)) return path.includes('//') ? undefined : '/';
  if (/^[A-Za-z]:\\/.test(path)) return path.includes('\\\\') ? undefined : '\\';
  return undefined;
}

/**
 * Folders of an absolute path (`/a/b/c/d.ts` → `/a/b/`, `c:\\a\\b\\d.ts` → `c:\\a\\`), at least two
 * levels deep, not its own folder. A folder whose name holds a space or a comma is not named (the
 * roots line is read back word by word).
 */
function ancestors(path: string): string[] {
  const sep = separatorOf(path);
  if (sep === undefined) return [];
  const out: string[] = [];
  for (let at = path.indexOf(sep, 1); at > 0; at = path.indexOf(sep, at + 1)) {
    const dir = path.slice(0, at + 1);
    if (/[\s,]/.test(dir)) break;
    if (dir.split(sep).filter(Boolean).length >= 2) out.push(dir);
  }
  // A file directly in a folder is not shortened by it (it keeps its parent folder).
  return out.slice(0, -1);
}

/**
 * Chooses up to four folders to name, greedily by characters saved over `paths` (each path is
 * written from the deepest chosen folder that holds it). `keep` are folders already named by an earlier summary:
 * they keep their names and come first. Only absolute paths are shortened: POSIX (`/…`, `~/…`) and
 * Windows with a drive letter (`c:\\…`, written `$A\\src\\x.ts`).
 *
 * @param paths File paths as the tool calls gave them.
 * @returns The named folders (possibly none).
 */
export function chooseRoots(paths: Iterable<string>, keep: PathRoots = NO_ROOTS): PathRoots {
  const list = [...keep.list];
  const all = [...new Set(paths)];
  // Folders are nested freely: a deeper one saves what it shortens beyond the folder already named.
  const costs = all.map((p) => shortPath({ list }, p).length);
  while (list.length < MAX_ROOTS) {
    const gains = new Map<string, number>();
    all.forEach((p, i) => {
      for (const d of ancestors(p)) {
        const gain = costs[i] - (3 + p.length - d.length);
        if (gain > 0) gains.set(d, (gains.get(d) ?? 0) + gain);
      }
    });
    let best: string | undefined;
    let bestSaving = MIN_SAVING;
    for (const [d, g] of gains) {
      const saving = g - d.length - 8;
      if (saving > bestSaving || (saving === bestSaving && best !== undefined && d.length < best.length)) {
        best = d;
        bestSaving = saving;
      }
    }
    const name = NAMES.split('')
      .map((c) => `$${c}`)
      .find((x) => !list.some((r) => r.name === x));
    if (!best || !name) break;
    list.push({ name, dir: best });
    all.forEach((p, i) => (costs[i] = shortPath({ list }, p).length));
  }
  return { list };
}

/** True when `dir` shortens `path` (the path lies in it, directly or deeper). */
function covers(dir: string, path: string): boolean {
  return path.length > dir.length && path.startsWith(dir);
}

/** `path` written from the deepest named folder that shortens it, else unchanged. */
export function shortPath(roots: PathRoots, path: string): string {
  let best: { name: string; dir: string } | undefined;
  for (const r of roots.list) if (covers(r.dir, path) && (!best || r.dir.length > best.dir.length)) best = r;
  return best ? `${best.name}${best.dir.charAt(best.dir.length - 1)}${path.slice(best.dir.length)}` : path;
}

/** `path` with a leading folder name (`$A/`, `$A\\`) replaced by the folder, else unchanged. */
export function fullPath(roots: PathRoots, path: string): string {
  const m = /^(\$[A-Z])[\\/]/.exec(path);
  const r = m && roots.list.find((x) => x.name === m[1]);
  return r ? `${r.dir}${path.slice(3)}` : path;
}

/** Every `$A/`-style (or `$A\\`) folder name of `roots` in `text` replaced by its folder (for lines carried between summaries with other roots). */
export function expandRoots(roots: PathRoots, text: string): string {
  if (!roots.list.length) return text;
  return text.replace(
    /(?<![\w$])(\$[A-Z])[\\/]/g,
    (m, name: string) => roots.list.find((r) => r.name === name)?.dir ?? m,
  );
}

/** The folders named in `text` (a summary), by its roots line, or none. */
export function rootsIn(text: string): PathRoots {
  const at = text.indexOf(ROOTS_LINE_PREFIX);
  if (at < 0) return NO_ROOTS;
  const end = text.indexOf('\n', at);
  return parseRootsLine(text.slice(at, end < 0 ? undefined : end)) ?? NO_ROOTS;
}

/** `text` with the paths written from its named folders written out in full (for verbatim searches). */
export function withFullPaths(text: string): string {
  return expandRoots(rootsIn(text), text);
}
