/**
 * Follows one session file as it grows: a {@link FileTail} for the bytes, a {@link LiveSession} for
 * the gauge. {@link SessionWatcher.update} (synchronous) and {@link SessionWatcher.updateAsync} are the
 * unit of work; {@link followFile} drives the asynchronous one from file system events with a polling
 * fallback (events are not delivered on every file system, e.g. network mounts), so an appended line
 * shows within `intervalMs`. The first read of a large file starts at the agent's last compaction
 * (see `resume.ts`), and the asynchronous one reads in pieces with the event loop free between them.
 */
import fs from 'node:fs';
import { FileTail } from './tail';
import { findFollowStart, findFollowStartSync, type FollowStart } from './resume';
import { LiveSession, type LiveSessionOptions, type WatchedGauge } from './live';
import { firstLineOf } from './discovery';
import { detectWatchedFormat, type WatchedFormat } from './formats';

/** The result of one {@link SessionWatcher.update}. */
export interface WatchUpdate {
  /** False when nothing complete was appended since the last update. */
  changed: boolean;
  /** True when the file was replaced or truncated and the view started over. */
  restarted: boolean;
  /** Bytes read by this update. */
  bytesRead: number;
  gauge: WatchedGauge;
  /** Where the read started, on the first update and after a restart. */
  start?: FollowStart;
}

/** Incremental reader + gauge for one Claude Code or Codex session file. */
export class SessionWatcher {
  private readonly tail: FileTail;
  readonly live: LiveSession;
  /** False until the first read has decided where to start. */
  private started = false;
  /** Starts made so far (the first read, then one per replaced or truncated file). */
  private starts = 0;
  /** Bytes read to decide where to start. */
  private locateBytes = 0;

  /**
   * @param format the agent's format; detected from the first line when omitted
   * @param options how tokens are counted (see {@link LiveSessionOptions}: deferred in the extension host)
   * @throws the file system's error (ENOENT, EACCES) for a missing or unreadable file; Error naming the
   *   file when it is not a regular file or the format cannot be told (not a Claude Code or Codex session)
   */
  constructor(
    readonly file: string,
    format?: WatchedFormat,
    options?: LiveSessionOptions,
  ) {
    // A missing or unreadable file is reported as such, not as an unknown format.
    if (!fs.statSync(file).isFile()) throw new Error(`${file} is not a regular file`);
    const f = format ?? detectWatchedFormat(firstLineOf(file));
    if (!f) throw new Error(`${file}: line 1: not a Claude Code or Codex session record`);
    this.tail = new FileTail(file);
    this.live = new LiveSession(file, f, options);
  }

  /**
   * Reads what was appended and returns the gauge, synchronously (the command line; in the extension
   * host use {@link updateAsync}).
   * @throws the file system's error when unreadable
   */
  update(): WatchUpdate {
    let start: FollowStart | undefined;
    const st = fs.statSync(this.file);
    if (!this.started || this.tail.replacedBy(st)) {
      start = findFollowStartSync(this.file, this.live.format, st.size);
      this.begin(start, st.ino);
    }
    const chunk = this.tail.poll();
    if (chunk.restarted) this.live.reset();
    this.live.append(chunk.lines);
    const restarted = chunk.restarted || (start !== undefined && this.restarts > 0);
    return {
      changed: chunk.lines.length > 0 || restarted,
      restarted,
      bytesRead: chunk.bytesRead + (start?.bytesRead ?? 0),
      gauge: this.live.gauge(),
      ...(start ? { start } : {}),
    };
  }

  /**
   * Reads what was appended and returns the gauge. The reads are asynchronous pieces of at most
   * 1 MiB whose lines are taken in as each arrives, so the event loop runs between pieces; the gauge
   * then imports the current context (bounded by `FOLLOW_LIMIT_BYTES` on a first read) and counts it in
   * slices ({@link LiveSession.gaugeAsync}).
   * @throws the file system's error when unreadable
   */
  async updateAsync(): Promise<WatchUpdate> {
    let start: FollowStart | undefined;
    let bytesRead = 0;
    let lines = 0;
    for (let attempt = 0; ; attempt++) {
      const st = await fs.promises.stat(this.file);
      if (!this.started || this.tail.replacedBy(st)) {
        start = await findFollowStart(this.file, this.live.format, st.size);
        bytesRead += start.bytesRead;
        this.begin(start, st.ino);
      }
      const read = await this.tail.pollAsync((l) => this.live.append(l));
      bytesRead += read.bytesRead;
      lines += read.lines;
      // Replaced between the stat and the read: start again (once more at most, then next time).
      if (!read.replaced || attempt > 0) break;
      this.started = false;
    }
    const restarted = start !== undefined && this.restarts > 0;
    return {
      changed: lines > 0 || restarted,
      restarted,
      bytesRead,
      gauge: await this.live.gaugeAsync(),
      ...(start ? { start } : {}),
    };
  }

  private get restarts(): number {
    return this.starts - 1;
  }

  private begin(start: FollowStart, ino: number): void {
    this.tail.restartAt(start.offset, ino);
    if (start.offset > 0) this.live.resume(start.offset, start.contextLines);
    else this.live.reset();
    this.started = true;
    this.starts++;
    this.locateBytes += start.bytesRead;
  }

  /** Bytes read since the watcher was made. */
  get totalBytesRead(): number {
    return this.tail.totalBytesRead + this.locateBytes;
  }
}

/** A running follow; `dispose()` stops it. */
export interface Follow {
  dispose(): void;
}

/**
 * Calls `onUpdate` after the first read and after each change of `watcher.file`. File events trigger a
 * read at once; a timer polls every `intervalMs` (default 500 ms) in case events are lost. Reads run one
 * at a time through {@link SessionWatcher.updateAsync}; a trigger during a read makes one more read after
 * it. Errors (the file vanished, for example) go to `onError` and the follow goes on.
 */
export function followFile(
  watcher: SessionWatcher,
  onUpdate: (u: WatchUpdate) => void,
  onError: (err: unknown) => void,
  intervalMs = 500,
): Follow {
  let disposed = false;
  let fsWatcher: fs.FSWatcher | undefined;
  let awaitingExact = false;
  let reading = false;
  /** A trigger arrived during a read: undefined for none, else whether it must report even unchanged. */
  let again: boolean | undefined;
  const tick = (first = false) => {
    if (disposed) return;
    if (reading) {
      again = (again ?? false) || first;
      return;
    }
    reading = true;
    watcher
      .updateAsync()
      .then(
        (u) => {
          if (disposed) return;
          if (u.restarted) watch();
          if (first || u.changed) onUpdate(u);
          // Estimated counts (the tokenizer still loading off this thread): update again once exact.
          const exact = awaitingExact ? undefined : watcher.live.exactCounts();
          if (exact) {
            awaitingExact = true;
            void exact.then(() => {
              awaitingExact = false;
              tick(true);
            });
          }
        },
        (err: unknown) => {
          if (!disposed) onError(err);
        },
      )
      .finally(() => {
        reading = false;
        if (again !== undefined) {
          const report = again;
          again = undefined;
          tick(report);
        }
      });
  };
  const watch = () => {
    try {
      fsWatcher?.close();
      fsWatcher = fs.watch(watcher.file, { persistent: false }, () => tick());
      fsWatcher.on('error', () => undefined);
    } catch {
      fsWatcher = undefined;
    }
  };
  watch();
  // A replaced file (rename over it) ends the old watch: re-arm on every poll that found a restart.
  const timer = setInterval(() => {
    tick();
    if (!fsWatcher) watch();
  }, intervalMs);
  tick(true);
  return {
    dispose() {
      disposed = true;
      clearInterval(timer);
      fsWatcher?.close();
    },
  };
}
