/**
 * Atomic replacement of a small file (the session state, the saved calibration): the new text goes
 * to a temp file in the same folder, is fsynced, and only then renamed over the old file, and the
 * folder is fsynced so the rename itself is durable. A crash or a failed write at any point leaves
 * either the old file or the new one whole, never a torn one: the rename is the only step that
 * touches the real name.
 *
 * Two forms: {@link writeFileAtomic} (synchronous, for opening a folder and for the last save on
 * close) and {@link writeFileAtomicAsync}, which does the write and both fsyncs off the calling
 * thread (libuv's pool) and only the rename on it, so that a caller can decide, in the same
 * synchronous step as the rename, whether the text is still the one to put in place.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

let tempCounter = 0;
/** Temp files this process is writing now (absolute paths): never stale, whoever asks. */
const inFlight = new Set<string>();

/** A temp name beside `file`, unique within this process and across processes (pid); registered as in flight. */
function tempNameFor(file: string): string {
  const temp = `${file}.${process.pid}.${Date.now()}.${++tempCounter}.tmp`;
  inFlight.add(temp);
  return temp;
}

/** The parts of a temp name made by {@link tempNameFor}: `<file>.<pid>.<ms>.<n>.tmp`. */
const TEMP_NAME = /^(.+)\.(\d+)\.(\d+)\.(\d+)\.tmp$/;

/** True when process `pid` runs on this machine (a process we may not signal runs too). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temp files an interrupted atomic write left in `folder` (a crash between writing the
 * temp file and its rename): only names this module makes for one of `files` (`<file>.<pid>.<ms>.<n>.tmp`),
 * and only stale ones: never one this process is writing now, never one of another live process
 * (its write may be in flight). Call it where no other process writes the folder (its lock held).
 * Best effort: a file that cannot be removed is left. Returns the names removed.
 * @param isAlive Whether a process id is running (tests stand in for the system).
 */
export function removeStaleTempFiles(
  folder: string,
  files: readonly string[],
  isAlive: (pid: number) => boolean = processAlive,
): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(folder);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const match = TEMP_NAME.exec(name);
    if (!match || !files.includes(match[1])) continue;
    const full = path.join(folder, name);
    if (inFlight.has(full)) continue;
    const pid = Number(match[2]);
    if (pid !== process.pid && isAlive(pid)) continue;
    try {
      fs.rmSync(full, { force: true });
      removed.push(name);
    } catch {
      // Left for the next open.
    }
  }
  return removed;
}

/** Options of an atomic replacement. */
export interface AtomicWriteOptions {
  /** Keeps the file being replaced under this name (a fallback for damage); best effort. */
  keepPreviousAs?: string;
}

/**
 * Puts the old file aside as `previous` (a hard link, a copy where links are not supported), then
 * renames `temp` over `file`. Synchronous: a few metadata operations, no data written on this thread
 * except by the copy fallback.
 */
function replace(temp: string, file: string, previous: string | undefined): void {
  if (previous && fs.existsSync(file)) {
    try {
      fs.rmSync(previous, { force: true });
      fs.linkSync(file, previous);
    } catch {
      try {
        fs.copyFileSync(file, previous);
      } catch {
        // The previous version is a fallback only; the new file is what matters.
      }
    }
  }
  fs.renameSync(temp, file);
}

/**
 * Writes `text` to `file` atomically: temp file in the same folder, fsync, rename, fsync folder.
 * Throws the I/O error (the temp file is removed; `file` is untouched).
 */
export function writeFileAtomic(file: string, text: string, options: AtomicWriteOptions = {}): void {
  const temp = tempNameFor(file);
  try {
    const fd = fs.openSync(temp, 'w');
    try {
      fs.writeFileSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    replace(temp, file, options.keepPreviousAs);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  } finally {
    inFlight.delete(temp);
  }
  fsyncFolder(path.dirname(file));
}

/** Characters of the text encoded and written at a time by {@link writeFileAtomicAsync}. */
export const WRITE_PIECE_CHARS = 1 << 20;

/** A piece of a file's text: characters, or the UTF-8 bytes of its characters (written as they are). */
export type TextPiece = string | Uint8Array;

/**
 * As {@link writeFileAtomic}, with the write and the fsyncs off this thread. `stillWanted` is called
 * on this thread right before the rename: when it returns false (a newer text was put in place
 * meanwhile, or the file's owner closed it), the temp file is removed and `file` is left as it is.
 * Resolves whether `file` was replaced; rejects with the I/O error (the temp file is removed; `file`
 * is untouched). `text` is the file's text, whole or in pieces (written in order, one after another;
 * a piece of bytes is written as it is).
 */
export async function writeFileAtomicAsync(
  file: string,
  text: string | readonly TextPiece[],
  stillWanted: () => boolean = () => true,
  options: AtomicWriteOptions = {},
): Promise<boolean> {
  const temp = tempNameFor(file);
  try {
    const handle = await fs.promises.open(temp, 'w');
    try {
      // In pieces, each encoded in a turn of its own: a large state is never encoded in one block.
      for (const piece of writePieces(typeof text === 'string' ? [text] : text)) {
        const bytes = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
        for (let done = 0; done < bytes.length;)
          done += (await handle.write(bytes, done, bytes.length - done)).bytesWritten;
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (!stillWanted()) {
      await fs.promises.rm(temp, { force: true });
      return false;
    }
    // Decided and done in one synchronous step: nothing can put a newer file in place in between.
    replace(temp, file, options.keepPreviousAs);
  } catch (error) {
    await fs.promises.rm(temp, { force: true }).catch(() => undefined);
    throw error;
  } finally {
    inFlight.delete(temp);
  }
  await fsyncFolderAsync(path.dirname(file));
  return true;
}

/**
 * The concatenation of `texts` in pieces of about {@link WRITE_PIECE_CHARS}: small texts are joined,
 * large ones cut (never between the halves of a surrogate pair: each piece is encoded on its own);
 * bytes pass as they are, in their place.
 */
function* writePieces(texts: readonly TextPiece[]): Generator<TextPiece> {
  let batch: string[] = [];
  let chars = 0;
  for (const text of texts) {
    if (typeof text !== 'string') {
      if (batch.length) yield batch.join('');
      batch = [];
      chars = 0;
      yield text;
      continue;
    }
    if (chars + text.length <= WRITE_PIECE_CHARS) {
      batch.push(text);
      chars += text.length;
      continue;
    }
    if (batch.length) yield batch.join('');
    batch = [];
    chars = 0;
    let at = 0;
    while (text.length - at > WRITE_PIECE_CHARS) {
      let end = at + WRITE_PIECE_CHARS;
      const last = text.charCodeAt(end - 1);
      if (last >= 0xd800 && last <= 0xdbff) end--;
      yield text.slice(at, end);
      at = end;
    }
    if (at < text.length) {
      batch.push(at ? text.slice(at) : text);
      chars = text.length - at;
    }
  }
  if (batch.length) yield batch.join('');
}

/** Makes a rename durable; not supported on every platform (Windows), hence best effort. */
export function fsyncFolder(folder: string): void {
  try {
    const fd = fs.openSync(folder, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Ignored: the data file itself was fsynced.
  }
}

async function fsyncFolderAsync(folder: string): Promise<void> {
  try {
    const handle = await fs.promises.open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // As in fsyncFolder.
  }
}
