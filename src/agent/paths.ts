/**
 * Keeps tool paths inside the workspace. A path is accepted only when its real location lies under the
 * root's real location. Symlinks are resolved for every existing component, including links whose
 * target does not exist yet (dangling links, followed by hand through chains), because creating a file
 * through such a link lands at the link's target. `..`, absolute paths elsewhere and links pointing out
 * are all refused. This check runs before approval; the hosts repeat it on the opened file at the
 * moment of the write (`node-host.ts`), so a link swapped in between cannot redirect the write.
 */
import * as path from 'node:path';

/** Thrown when a tool path leaves the workspace; the message is shown to the model as the result. */
export class PathOutsideWorkspaceError extends Error {
  constructor(readonly requested: string) {
    super(`Path is outside the workspace and was refused: ${requested}`);
    this.name = 'PathOutsideWorkspaceError';
  }
}

/** Most symlinks followed by hand while resolving one path (Linux's own limit is 40). */
export const MAX_LINK_HOPS = 40;

/** True when `child` equals `parent` or lies below it (both absolute and normalized). */
export function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * Resolves a tool-supplied path (relative to the root, or absolute) to the absolute real path a write
 * or read would reach, inside `root`.
 *
 * @param root workspace root, already real (symlinks resolved).
 * @param realpath resolves symlinks of an existing path; must throw for a missing one (or a dangling link).
 * @param readlink the target of a symlink, or undefined when `p` is not a link or does not exist. Without
 *   it, dangling links cannot be seen and are treated as missing files (hosts should always pass it).
 * @throws PathOutsideWorkspaceError when the lexical or the real location is outside the root; Error when a
 *   chain of links is longer than {@link MAX_LINK_HOPS}.
 */
export async function resolveInside(
  root: string,
  requested: string,
  realpath: (p: string) => Promise<string>,
  readlink?: (p: string) => Promise<string | undefined>,
): Promise<string> {
  const trimmed = requested.trim() === '' ? '.' : requested.trim();
  const absolute = path.resolve(root, trimmed);
  if (!isInside(root, absolute)) throw new PathOutsideWorkspaceError(requested);
  // Walk up to the deepest existing ancestor and check where it really is. A component that exists as a
  // dangling link is replaced by its target (resolved against its folder's real path) and the walk
  // goes on from there, so the missing tail never hides a link.
  let probe = absolute;
  const missing: string[] = [];
  let hops = 0;
  for (;;) {
    try {
      const real = await realpath(probe);
      const full = path.join(real, ...[...missing].reverse());
      if (!isInside(root, full)) throw new PathOutsideWorkspaceError(requested);
      return full;
    } catch (error) {
      if (error instanceof PathOutsideWorkspaceError) throw error;
      const target = readlink ? await readlink(probe).catch(() => undefined) : undefined;
      if (target !== undefined) {
        if (++hops > MAX_LINK_HOPS) throw new Error(`${requested}: too many levels of symbolic links`);
        // The link exists, so its folder does: resolve the target where the kernel would.
        probe = path.resolve(await realpath(path.dirname(probe)), target);
        continue;
      }
      const parent = path.dirname(probe);
      if (parent === probe) throw new PathOutsideWorkspaceError(requested);
      missing.push(path.basename(probe));
      probe = parent;
    }
  }
}

/** Workspace-relative form of an absolute path, with forward slashes (what tools show the model). */
export function toRelative(root: string, absolute: string): string {
  const relative = path.relative(root, absolute).split(path.sep).join('/');
  return relative === '' ? '.' : relative;
}

/**
 * Replaces the workspace root inside a message (host errors such as `ENOENT: ..., open '/home/u/ws/a'`)
 * with workspace-relative paths, so texts shown to the model do not reveal the host's folders.
 */
export function relativizeMessage(root: string, message: string): string {
  if (root === '' || root === path.sep) return message;
  const withSep = root.endsWith(path.sep) ? root : root + path.sep;
  return message.split(withSep).join('').split(root).join('.');
}

/**
 * Workspace-relative folders (and files) that configure tools which run code: git hooks and config,
 * editor tasks and settings, CI, commit hooks, dev containers. Writes to them always need the user's
 * approval, even under auto-approve, because what they hold runs later without the agent asking.
 * Matched on leading path segments, case-insensitively; a `.git` segment anywhere also counts (nested
 * repositories and submodules have their own hooks).
 */
export const PROTECTED_FOLDERS: readonly string[] = [
  '.git',
  '.vscode',
  '.github/workflows',
  '.github/actions',
  '.husky',
  '.devcontainer',
  '.idea',
  '.gitlab-ci.yml',
  '.circleci',
  '.githooks',
];

/** The protected folder `relative` (a workspace-relative path with `/`) lies in, or undefined. */
export function protectedFolderOf(relative: string): string | undefined {
  const lower = relative.toLowerCase().replace(/^\.\//, '');
  const top = PROTECTED_FOLDERS.find((folder) => lower === folder || lower.startsWith(`${folder}/`));
  if (top) return top;
  return lower.split('/').includes('.git') ? '.git' : undefined;
}
