/** Waits for a condition the code under test reaches asynchronously (a coalesced redraw, a file read). */

/** Polls `check` every `stepMs` until it holds; throws naming `what` after `ms` milliseconds. */
export async function until(check: () => boolean, what: string, ms = 10_000, stepMs = 10): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
}
