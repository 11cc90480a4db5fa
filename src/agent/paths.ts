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
      // eslint-disable-next-line no-restricted-syntax -- bounded: one segment per missing directory of a path
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

/**
 * Folders that make a tool run code wherever they sit in the tree (a nested package or crate has its
 * own), matched on any path segment, case-insensitively:
 * - `.cargo`: `config.toml` sets `rustc-wrapper`, `runner` and aliases that every `cargo build` runs;
 * - `.mvn`: `jvm.config`, `maven.config` and the wrapper that `./mvnw` downloads and runs;
 * - `.lefthook`: lefthook's script folder, run by its git hooks.
 */
export const PROTECTED_FOLDERS_ANYWHERE: readonly string[] = ['.git', '.cargo', '.mvn', '.lefthook'];

/**
 * Names of files that make a tool run code without anyone naming that code: a commit (hook managers),
 * entering the folder (direnv, mise), any command of a package manager, a build. Matched on the file
 * name anywhere in the tree, case-insensitively. Each rule and where it comes from:
 * - `.pre-commit-config.yaml` / `.pre-commit-config.yml`: pre-commit runs each hook's `entry` at commit;
 * - `lefthook.yml` and its variants (`.lefthook.yml`, `lefthook-local.yml`, `.yaml`, `.toml`, `.json`):
 *   lefthook runs their `run:` commands from git hooks;
 * - `.envrc`: direnv evaluates it as shell on entering the folder; `mise.toml` / `.mise.toml`: mise runs
 *   its `[hooks]` on entering the folder and its tasks by name;
 * - `.yarnrc.yml` (`yarnPath`: every `yarn` command runs that file), `.yarnrc` (Yarn 1 `yarn-path`),
 *   `.npmrc` (`node-options`, `script-shell`, `git`), `.pnpmfile.cjs` / `.pnpmfile.mjs` (pnpm runs
 *   its hooks on every install);
 * - `gradle-wrapper.properties` (`distributionUrl`: `./gradlew` downloads and runs that distribution);
 * - `*.code-workspace`: a VS Code workspace file holds tasks and settings as `.vscode/` does.
 *
 * Not covered, on purpose: `package.json` (its scripts run only when someone runs `npm run`/`npm
 * install`, which is the same trust as running any project command, and the agent edits it routinely:
 * asking there would make auto-approve useless), `Makefile` and other build files (code the user runs by
 * name). `run_command` under auto-approve runs any shell command, so it can write all of the above
 * (`.git/hooks/` included); only the file tools are held back here.
 */
export const PROTECTED_FILE_NAMES: readonly RegExp[] = [
  /^\.pre-commit-config\.ya?ml$/,
  /^\.?lefthook(-local)?\.(ya?ml|toml|json|jsonc)$/,
  /^\.envrc$/,
  /^\.?mise(\.local)?\.toml$/,
  /^\.yarnrc(\.yml)?$/,
  /^\.npmrc$/,
  /^\.pnpmfile\.(c|m)?js$/,
  /^gradle-wrapper\.properties$/,
  /\.code-workspace$/,
];

/**
 * The protected folder or file `relative` (a workspace-relative path with `/`) is or lies in, or
 * undefined when a write there needs no more than the usual approval. The rules: {@link PROTECTED_FOLDERS}
 * (leading segments), {@link PROTECTED_FOLDERS_ANYWHERE} (any segment), {@link PROTECTED_FILE_NAMES}
 * (the last segment). Case-insensitive (macOS and Windows folders are).
 */
export function protectedFolderOf(relative: string): string | undefined {
  const lower = relative.toLowerCase().replace(/\\/g, '/').replace(/^\.\//, '');
  const top = PROTECTED_FOLDERS.find((folder) => lower === folder || lower.startsWith(`${folder}/`));
  if (top) return top;
  const segments = lower.split('/');
  const folder = PROTECTED_FOLDERS_ANYWHERE.find((name) => segments.includes(name));
  if (folder) return folder;
  const name = segments[segments.length - 1];
  return PROTECTED_FILE_NAMES.some((rule) => rule.test(name)) ? name : undefined;
}
