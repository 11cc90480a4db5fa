/**
 * The lock of a session folder: at most one process (and one store inside it) writes a session.
 *
 * Taking it is atomic: the holder's record `{pid, host, token, takenAt}` is written whole to a temp file
 * first and then hard-linked to the lock's name, which fails when the name exists (POSIX `link(2)`,
 * NTFS hard links). A reader never sees a half-written lock, and of two processes racing for a free
 * lock exactly one links. On a file system without hard links the lock is created with an exclusive
 * open instead, and a lock that cannot be read yet counts as held while it is fresh.
 *
 * Liveness cannot rest on the process id alone (ids are reused: after a reboot, in containers, on a
 * busy machine), so the holder also touches the lock's modification time every
 * {@link LOCK_HEARTBEAT_MS} ms (a heartbeat). A lock is held when:
 * - it names this process: only while a store of this process holds that very token (a second store
 *   of the same session in this process opens read-only; a token of this pid that no store holds is a
 *   lock of an earlier process that had the same id: stale);
 * - it names another process on this host: while that process id is alive AND the heartbeat is younger
 *   than {@link LOCK_STALE_MS} (a dead id is stale at once; a reused id has no heartbeat);
 * - it names another host (a shared folder): while the heartbeat is fresh.
 *
 * A stale lock is taken over under a second, short-lived guard lock (`<lock>.takeover`, same atomic
 * create), so two windows that find the same stale lock do not both remove it and both create their
 * own: only the one holding the guard removes the stale lock, after reading it again, and then competes
 * for the free name like anyone else. A holder checks its token before each write
 * ({@link SessionLock.stillHeld}), so one whose heartbeat stopped (a host blocked for longer than the
 * stale time) and whose lock was taken over refuses to write instead of writing beside the new holder.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { randomBytes } from 'node:crypto';
import { processAlive } from './atomic-file';

/** How often, in milliseconds, a holder touches its lock. */
export const LOCK_HEARTBEAT_MS = 5_000;
/** Age, in milliseconds, of a heartbeat after which a lock whose process cannot be seen alive is stale. */
export const LOCK_STALE_MS = 30_000;
/** Longest time, in milliseconds, {@link SessionLock.acquire} waits for another window's takeover to finish. */
const TAKEOVER_WAIT_MS = 1_000;

/** The record a lock file holds. */
export interface LockRecord {
  pid: number;
  host: string;
  /** Random, unique per acquisition: tells this holder's lock from any other with the same pid. */
  token: string;
  /** Epoch milliseconds when the lock was taken. */
  takenAt: number;
}

/** What the system is asked, replaceable in tests (a reused pid, another host, an old heartbeat). */
export interface LockSystem {
  /** Epoch milliseconds. */
  now(): number;
  /** Whether a process id is running on this host. */
  alive(pid: number): boolean;
  hostname(): string;
  pid: number;
}

const SYSTEM: LockSystem = {
  now: () => Date.now(),
  alive: processAlive,
  hostname: () => os.hostname(),
  pid: process.pid,
};

/** Lock files held by stores of this process: file -> token. */
const heldHere = new Map<string, string>();

/** Outcome of {@link SessionLock.acquire}: the lock, or why another holder keeps it. */
export type LockOutcome = { lock: SessionLock; heldBy?: undefined } | { lock?: undefined; heldBy: string };

/** A session folder's lock, held by this process. */
export class SessionLock {
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private released = false;

  private constructor(
    /** Path of the lock file. */
    readonly file: string,
    readonly token: string,
  ) {}

  /**
   * Takes the lock at `file`, or says who holds it. Synchronous (opening a session is). Waits at most
   * about a second, and only when another window is taking over the same stale lock at this moment.
   * @returns `{lock}` when taken, `{heldBy}` (a sentence: "the session is open in another window
   *   (process 123)") when a live holder keeps it.
   * @throws the file system's Error for anything but an existing lock (permissions, a full disk).
   */
  static acquire(file: string, system: LockSystem = SYSTEM): LockOutcome {
    const token = randomBytes(12).toString('hex');
    const record: LockRecord = { pid: system.pid, host: system.hostname(), token, takenAt: system.now() };
    const text = `${JSON.stringify(record)}\n`;
    const deadline = system.now() + TAKEOVER_WAIT_MS;
    for (;;) {
      if (createExclusive(file, text, token)) {
        const lock = new SessionLock(file, token);
        heldHere.set(file, token);
        lock.startHeartbeat();
        return { lock };
      }
      const seen = readLock(file);
      if (!seen) {
        // Released between our create and our read: try again (bounded, in case it keeps flickering).
        if (system.now() > deadline) return { heldBy: 'the session folder lock could not be taken' };
        continue;
      }
      const heldBy = liveHolder(file, seen, system);
      if (heldBy) return { heldBy };
      // Stale: take it over under the guard, so no one removes a lock another window just took.
      const guard = `${file}.takeover`;
      if (createExclusive(guard, text, token)) {
        try {
          const again = readLock(file);
          if (again && again.raw === seen.raw && !liveHolder(file, again, system)) fs.rmSync(file, { force: true });
        } finally {
          fs.rmSync(guard, { force: true });
        }
        continue;
      }
      // Another window is taking the same stale lock over: wait for it (a guard left by a crash is removed).
      const guardSeen = readLock(guard);
      if (guardSeen && system.now() - guardSeen.mtimeMs > LOCK_STALE_MS) fs.rmSync(guard, { force: true });
      if (system.now() > deadline) return { heldBy: 'another window is taking the session over' };
      sleepSync(20);
    }
  }

  /**
   * Whether this holder still owns the lock file (its token is in it). False after {@link release} or
   * when another process took a lock over whose heartbeat had stopped. One small read.
   */
  stillHeld(): boolean {
    if (this.released) return false;
    const seen = readLock(this.file);
    return seen?.record?.token === this.token;
  }

  /** Stops the heartbeat and removes the lock file if it is still this holder's. Idempotent. */
  release(): void {
    if (this.released) return;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    const owned = this.stillHeld();
    this.released = true;
    if (heldHere.get(this.file) === this.token) heldHere.delete(this.file);
    if (owned) fs.rmSync(this.file, { force: true });
  }

  private startHeartbeat(): void {
    this.heartbeat = setInterval(() => {
      if (!this.stillHeld()) {
        if (this.heartbeat) clearInterval(this.heartbeat);
        this.heartbeat = undefined;
        return;
      }
      try {
        const now = new Date();
        fs.utimesSync(this.file, now, now);
      } catch {
        // A missed beat only ages the lock; the next one retries.
      }
    }, LOCK_HEARTBEAT_MS);
    this.heartbeat.unref?.();
  }
}

/** The lock file as read: its text, its record when well formed, its modification time. */
interface SeenLock {
  raw: string;
  record: LockRecord | undefined;
  mtimeMs: number;
}

function readLock(file: string): SeenLock | undefined {
  try {
    const raw = fs.readFileSync(file, 'utf8');
    const mtimeMs = fs.statSync(file).mtimeMs;
    let record: LockRecord | undefined;
    try {
      const value = JSON.parse(raw) as Partial<LockRecord>;
      if (typeof value.pid === 'number' && typeof value.host === 'string' && typeof value.token === 'string')
        record = value as LockRecord;
    } catch {
      // Being written (the exclusive-open fallback) or damaged: judged by its age.
    }
    return { raw, record, mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Why `seen` is held by someone alive (a sentence), or undefined when it is stale. */
function liveHolder(file: string, seen: SeenLock, system: LockSystem): string | undefined {
  const fresh = system.now() - seen.mtimeMs < LOCK_STALE_MS;
  const holder = seen.record;
  if (!holder) return fresh ? 'another window is opening the session' : undefined;
  if (holder.host !== system.hostname())
    return fresh ? `the session is open on ${holder.host} (process ${holder.pid})` : undefined;
  if (holder.pid === system.pid)
    return heldHere.get(file) === holder.token ? 'the session is already open in this window' : undefined;
  return system.alive(holder.pid) && fresh
    ? `the session is open in another window (process ${holder.pid})`
    : undefined;
}

/**
 * Creates `file` holding `text` only if no file has that name, atomically and whole: a temp file is
 * written and hard-linked into place. Returns false when the name exists.
 */
function createExclusive(file: string, text: string, token: string): boolean {
  const temp = `${file}.${token}.tmp`;
  fs.writeFileSync(temp, text, { flag: 'wx' });
  try {
    fs.linkSync(temp, file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EOPNOTSUPP') throw error;
    // No hard links here: an exclusive create, and readers take an unreadable fresh lock as held.
    try {
      fs.writeFileSync(file, text, { flag: 'wx' });
      return true;
    } catch (fallback) {
      if ((fallback as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw fallback;
    }
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
