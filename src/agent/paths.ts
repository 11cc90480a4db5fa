/**
 * Keeps tool paths inside the workspace. A path is accepted only when its real location (symlinks
 * resolved, for the deepest existing ancestor when the file does not exist yet) lies under the root's
 * real location; `..`, absolute paths elsewhere and symlinks pointing out are all refused.
 */
import * as path from 'node:path';

/** Thrown when a tool path leaves the workspace; the message is shown to the model as the result. */
export class PathOutsideWorkspaceError extends Error {
  constructor(readonly requested: string) {
    super(`Path is outside the workspace and was refused: ${requested}`);
    this.name = 'PathOutsideWorkspaceError';
  }
}

/** True when `child` equals `parent` or lies below it (both absolute and normalized). */
export function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * Resolves a tool-supplied path (relative to the root, or absolute) to an absolute path inside `root`.
 *
 * @param root workspace root, already real (symlinks resolved).
 * @param realpath resolves symlinks of an existing path; must throw for a missing one.
 * @throws PathOutsideWorkspaceError when the lexical or the real location is outside the root.
 */
export async function resolveInside(
  root: string,
  requested: string,
  realpath: (p: string) => Promise<string>,
): Promise<string> {
  const trimmed = requested.trim() === '' ? '.' : requested.trim();
  const absolute = path.resolve(root, trimmed);
  if (!isInside(root, absolute)) throw new PathOutsideWorkspaceError(requested);
  // Walk up to the deepest existing ancestor and check where it really is; the missing tail cannot
  // contain symlinks yet.
  let probe = absolute;
  const missing: string[] = [];
  for (;;) {
    try {
      const real = await realpath(probe);
      const full = path.join(real, ...missing.reverse());
      if (!isInside(root, full)) throw new PathOutsideWorkspaceError(requested);
      return full;
    } catch (error) {
      if (error instanceof PathOutsideWorkspaceError) throw error;
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
