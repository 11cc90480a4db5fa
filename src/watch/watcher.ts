/**
 * Follows one session file as it grows: a {@link FileTail} for the bytes, a {@link LiveSession} for
 * the gauge. {@link SessionWatcher.update} is the unit of work; {@link followFile} drives it from file
 * system events with a polling fallback (events are not delivered on every file system, e.g. network
 * mounts), so an appended line shows within `intervalMs`.
 */
import fs from 'node:fs';
import { FileTail } from './tail';
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
}

/** Incremental reader + gauge for one Claude Code or Codex session file. */
export class SessionWatcher {
  private readonly tail: FileTail;
  readonly live: LiveSession;

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

  /** Reads what was appended and returns the gauge. @throws the file system's error when unreadable */
  update(): WatchUpdate {
    const chunk = this.tail.poll();
    if (chunk.restarted) this.live.reset();
    this.live.append(chunk.lines);
    return {
      changed: chunk.lines.length > 0 || chunk.restarted,
      restarted: chunk.restarted,
      bytesRead: chunk.bytesRead,
      gauge: this.live.gauge(),
    };
  }

  /** Bytes read since the watcher was made. */
  get totalBytesRead(): number {
    return this.tail.totalBytesRead;
  }
}

/** A running follow; `dispose()` stops it. */
export interface Follow {
  dispose(): void;
}

/**
 * Calls `onUpdate` after the first read and after each change of `watcher.file`. File events trigger a
 * read at once; a timer polls every `intervalMs` (default 500 ms) in case events are lost. Errors (the
 * file vanished, for example) go to `onError` and the follow goes on.
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
  const tick = (first = false) => {
    if (disposed) return;
    try {
      const u = watcher.update();
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
    } catch (err) {
      onError(err);
    }
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
