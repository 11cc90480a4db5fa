/**
 * When the sidebar renders: input first, then short renders, at most one pass per animation frame.
 *
 * Host messages are only queued when they arrive (a `message` task costs next to nothing, so a click
 * is never queued behind a backlog of them); once per frame the queue is applied and the regions it
 * touched are re-rendered, each region a separate lit-html render. Before each region the scheduler
 * asks Chromium whether an input event is waiting (`navigator.scheduling.isInputPending`, where the
 * browser has it) and stops when one is, or when the frame's time budget is spent: the rest is
 * rendered in the next frame, after the input was handled.
 *
 * Timing figures (read by the end-to-end suite, see `TimingStats`) are kept here and as performance
 * measures: `ck-render` (one pass, in milliseconds) and `ck-update` (oldest queued message → its
 * change on screen).
 */

interface InputScheduling {
  isInputPending?(options?: { includeContinuous?: boolean }): boolean;
}

const scheduling = (navigator as Navigator & { scheduling?: InputScheduling }).scheduling;

/** True when the browser reports a discrete input event (click, key) waiting for the main thread. */
export function inputPending(): boolean {
  try {
    return scheduling?.isInputPending?.({ includeContinuous: false }) ?? false;
  } catch {
    return false;
  }
}

/**
 * Figures the end-to-end suite reads (through `#ck-stats`): message and pass counts, pass times,
 * and for each click how many passes *started* after the click was made and before its first
 * handler ran (0: the click was handled before the next update was applied).
 */
export interface TimingStats {
  snapshots: number;
  deltas: number;
  renders: number;
  /** Passes put off because input was waiting or the frame budget was spent. */
  deferred: number;
  /** Whether the browser answers `isInputPending`. */
  inputPendingApi: boolean;
  renderMs: number[];
  updateMs: number[];
  clicks: Array<{ delayMs: number; rendersBetween: number }>;
}

const KEEP = 500;

function keep<T>(list: T[], value: T, max = KEEP): void {
  list.push(value);
  if (list.length > max) list.shift();
}

/** Schedules region renders of one page; `R` names the regions, in the order they are drawn. */
export class UpdateScheduler<R extends string> {
  readonly stats: TimingStats = {
    snapshots: 0,
    deltas: 0,
    renders: 0,
    deferred: 0,
    inputPendingApi: typeof scheduling?.isInputPending === 'function',
    renderMs: [],
    updateMs: [],
    clicks: [],
  };
  private readonly dirty = new Set<R>();
  private frame = 0;
  private running = false;
  /** performance.now() of the oldest change not on screen yet. */
  private since: number | undefined;
  /** Absolute start times (timeOrigin-based, ms) of recent passes, for the click figures. */
  private readonly starts: number[] = [];

  /**
   * @param order regions in drawing order
   * @param prepare runs first in each pass (applies queued messages; may mark regions)
   * @param draw renders one region
   * @param publish called after each pass with the figures
   * @param budgetMs time after which the rest of a pass waits for the next frame
   */
  constructor(
    private readonly order: readonly R[],
    private readonly prepare: () => void,
    private readonly draw: (region: R) => void,
    private readonly publish: (stats: TimingStats) => void,
    private readonly budgetMs = 8,
  ) {}

  /** Marks regions for the next pass (none: just run `prepare`, e.g. for queued messages). */
  mark(...regions: R[]): void {
    for (const region of regions) this.dirty.add(region);
    this.since ??= performance.now();
    if (!this.running) this.frame ||= requestAnimationFrame(() => this.run());
  }

  /** Records a click (call from a capture-phase listener, before any other handler). */
  noteClick(event: Event): void {
    const made = performance.timeOrigin + event.timeStamp;
    const now = performance.timeOrigin + performance.now();
    keep(
      this.stats.clicks,
      { delayMs: Math.round(now - made), rendersBetween: this.starts.filter((t) => t > made).length },
      50,
    );
    this.publish(this.stats);
  }

  private run(): void {
    this.frame = 0;
    // Input first: while a click or key waits, this frame renders nothing.
    if (inputPending()) return this.defer();
    const started = performance.now();
    this.running = true;
    try {
      this.prepare();
      let drew = false;
      for (const region of this.order) {
        if (!this.dirty.has(region)) continue;
        if (drew && (performance.now() - started > this.budgetMs || inputPending())) break;
        this.dirty.delete(region);
        this.draw(region);
        drew = true;
      }
      if (drew) this.record(started);
    } finally {
      this.running = false;
    }
    if (this.dirty.size > 0) this.defer();
    else this.since = undefined;
  }

  private defer(): void {
    this.stats.deferred++;
    this.frame ||= requestAnimationFrame(() => this.run());
  }

  private record(started: number): void {
    const ended = performance.now();
    keep(this.starts, performance.timeOrigin + started, 50);
    this.stats.renders++;
    keep(this.stats.renderMs, Math.round((ended - started) * 100) / 100);
    performance.measure('ck-render', { start: started, end: ended });
    // An update is on screen once no region is left for a later frame.
    if (this.since !== undefined && this.dirty.size === 0) {
      keep(this.stats.updateMs, Math.round((ended - this.since) * 100) / 100);
      performance.measure('ck-update', { start: this.since, end: ended });
    }
    if (this.stats.renders % 5000 === 0) performance.clearMeasures();
    this.publish(this.stats);
  }
}
