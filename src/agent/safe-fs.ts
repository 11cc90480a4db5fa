/**
 * File access for the agent's tools that checks the workspace boundary on the file actually opened, at
 * the moment of the read or write, not only on the path beforehand. A link swapped in after the path
 * check (or a dangling link missed by it) cannot redirect a write: files are created with no-follow and
 * exclusive flags, folders one level at a time, and the real path of every opened file is verified
 * before a byte is written. Reads refuse anything but regular files (a named pipe would block the read
 * forever, a device never ends) and cap their size.
 */
import { constants, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { isInside, PathOutsideWorkspaceError, toRelative } from './paths';

/** Largest file `readFileInside` reads, in bytes (10 MiB); bigger files are refused with a clear error. */
export const MAX_READ_BYTES = 10 * 1024 * 1024;

// Windows has no O_NOFOLLOW / O_NONBLOCK; there the real-path check after opening still holds.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** Kind of a non-regular file, for messages. */
function kindOf(stat: {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSocket(): boolean;
}): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a named pipe';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * The real path of an open file. On Linux the kernel's own view (`/proc/self/fd`); elsewhere the real
 * path of the name, accepted only when it is the same file (device and inode) as the handle.
 */
async function realPathOfHandle(handle: FileHandle, name: string): Promise<string> {
  if (process.platform === 'linux') {
    try {
      const real = await fs.readlink(`/proc/self/fd/${handle.fd}`);
      if (path.isAbsolute(real)) return real;
    } catch {
      // /proc not mounted: fall through.
    }
  }
  const [real, opened] = await Promise.all([fs.realpath(name), handle.stat()]);
  const named = await fs.stat(real);
  if (named.dev !== opened.dev || named.ino !== opened.ino) throw new Error(`${name} changed while it was opened`);
  return real;
}

/** Creates `dir` and its missing parents one level at a time, checking each real path is inside `root`. */
async function makeFoldersInside(root: string, dir: string, shown: string): Promise<void> {
  try {
    const real = await fs.realpath(dir);
    if (!isInside(root, real)) throw new PathOutsideWorkspaceError(shown);
    return;
  } catch (error) {
    if (error instanceof PathOutsideWorkspaceError) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const parent = path.dirname(dir);
  if (parent === dir || !isInside(root, parent)) throw new PathOutsideWorkspaceError(shown);
  await makeFoldersInside(root, parent, shown);
  try {
    // Not recursive: mkdir does not follow a link at `dir` (it fails with EEXIST instead).
    await fs.mkdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const real = await fs.realpath(dir).catch(() => {
    throw new PathOutsideWorkspaceError(shown);
  });
  if (!isInside(root, real)) throw new PathOutsideWorkspaceError(shown);
}

/**
 * Writes `content` (UTF-8) to `absPath`, creating it and missing folders, only if the opened file's real
 * path lies inside `root`. A new file is created with O_CREAT|O_EXCL|O_NOFOLLOW (a link at the name is
 * never followed); an existing one is opened with O_NOFOLLOW and truncated only after the check.
 *
 * @param root workspace root, real path.
 * @param absPath absolute path, normally already resolved by `resolveInside`.
 * @throws PathOutsideWorkspaceError when the file or a folder on the way is outside `root` (a file created
 *   outside by a race is removed again before anything is written); Error when the name is a link or
 *   not a regular file; the file system's errors otherwise.
 */
export async function writeFileInside(root: string, absPath: string, content: string): Promise<void> {
  const shown = toRelative(root, absPath);
  if (!isInside(root, absPath)) throw new PathOutsideWorkspaceError(shown);
  await makeFoldersInside(root, path.dirname(absPath), shown);
  let handle: FileHandle;
  let created = false;
  try {
    handle = await fs.open(absPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o666);
    created = true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST') throw error;
    try {
      handle = await fs.open(absPath, constants.O_WRONLY | NOFOLLOW | NONBLOCK);
    } catch (inner) {
      if ((inner as NodeJS.ErrnoException).code === 'ELOOP')
        throw new Error(`${shown} is a symbolic link; it was not followed`);
      throw inner;
    }
  }
  try {
    const real = await realPathOfHandle(handle, absPath);
    if (!isInside(root, real)) {
      if (created) await fs.unlink(absPath).catch(() => {});
      throw new PathOutsideWorkspaceError(shown);
    }
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error(`${shown} is ${kindOf(stat)}; only regular files are written`);
    await handle.truncate(0);
    await handle.writeFile(content, 'utf8');
  } finally {
    await handle.close();
  }
}

/**
 * Reads a regular file inside `root` as UTF-8. Opens without blocking (a named pipe with no writer
 * would otherwise hang the caller), refuses non-regular files and files over `maxBytes`, and checks the
 * opened file's real path.
 *
 * @param maxBytes size cap in bytes; default {@link MAX_READ_BYTES}.
 * @throws PathOutsideWorkspaceError, Error for non-regular or too large files, file system errors.
 */
export async function readFileInside(root: string, absPath: string, maxBytes = MAX_READ_BYTES): Promise<string> {
  const shown = toRelative(root, absPath);
  const handle = await fs.open(absPath, constants.O_RDONLY | NONBLOCK);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error(`${shown} is ${kindOf(stat)}; only regular files are read`);
    if (stat.size > maxBytes) throw new Error(`${shown} is ${stat.size} bytes, over the ${maxBytes}-byte read limit`);
    const real = await realPathOfHandle(handle, absPath);
    if (!isInside(root, real)) throw new PathOutsideWorkspaceError(shown);
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes));
    let offset = 0;
    // A file that grows while read is cut at its size when opened.
    while (offset < buffer.length) {
      const { bytesRead } = await handle.read(buffer, offset, buffer.length - offset, offset);
      if (bytesRead === 0) break;
      offset += bytesRead;
    }
    return buffer.subarray(0, offset).toString('utf8');
  } finally {
    await handle.close();
  }
}
