/**
 * Runs one call of a task at a time: a call made while one runs does not start a second (a double
 * click on a button that starts long work), it gets the `busy` answer instead.
 */
export class OneAtATime {
  private running = false;

  /** Runs `task` unless one runs already, then returns `busy()` without running it. Errors of `task` are passed on. */
  async run<R>(task: () => Promise<R>, busy: () => R): Promise<R> {
    if (this.running) return busy();
    this.running = true;
    try {
      return await task();
    } finally {
      this.running = false;
    }
  }
}
