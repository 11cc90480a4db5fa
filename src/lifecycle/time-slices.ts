/**
 * Long work on the extension host's thread cut into slices bounded by time, each in a turn of the
 * event loop of its own, so that timers and I/O (the editor's messages) run between them.
 */

/**
 * Resolves after a whole turn of the event loop: its timers and its I/O poll have run since the
 * call. One `setImmediate` is not enough: called from an I/O callback (a worker's message) or a
 * timer, it runs in the same turn's check phase, right after that callback, so the work before it
 * and after it make one block of the thread. The second one runs in the next turn, after its
 * timers and poll.
 */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
}

/**
 * The clock of work cut into slices of about `sliceMs` milliseconds of wall time (a slice may
 * overrun by the work done between two looks at the clock). A loop looks at {@link due} every few
 * thousand cheap steps and awaits {@link turn} when it says so; an `await` at every step would cost
 * more than the step itself (a microtask and its garbage each).
 */
export class TimeSlices {
  private started = performance.now();

  /** @param sliceMs milliseconds of wall time a slice may take before the work yields */
  constructor(readonly sliceMs: number) {}

  /** True once the current slice has taken its time. */
  due(): boolean {
    return performance.now() - this.started >= this.sliceMs;
  }

  /** Ends the current slice: resolves after a whole turn of the event loop (see {@link nextTurn}), and starts the next one. */
  async turn(): Promise<void> {
    await nextTurn();
    this.started = performance.now();
  }
}
