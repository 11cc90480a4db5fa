/** Counts turns of the event loop while asynchronous work runs: does it yield, and how often. */

/**
 * Runs `work` and counts the `setImmediate` turns that ran meanwhile (a check queued anew each
 * turn). Returns the work's result and the count.
 */
export async function countingTurns<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let counting = true;
  const count = () => {
    turns++;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  try {
    return { result: await work(), turns };
  } finally {
    counting = false;
  }
}
