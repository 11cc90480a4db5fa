/**
 * Loads a webview view's page again when the page reports a lost resource (see
 * src/webview/resource-watch.ts): once the browser host's service worker has settled, a fresh page gets
 * its stylesheet and fonts. Bounded: at most `limit` loads per shown view, `delayMs` after the report.
 */
import type * as vscode from 'vscode';

export class PageReloads implements vscode.Disposable {
  private count = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * @param name the view's name in the log ("Context view")
   * @param reload sets the view's HTML again (a new page)
   * @param limit loads per shown view
   * @param delayMs wait after a report, in milliseconds
   */
  constructor(
    private readonly name: string,
    private readonly log: vscode.LogOutputChannel,
    private readonly reload: () => void,
    private readonly limit = 3,
    private readonly delayMs = 1_000,
  ) {}

  /** The view was resolved or shown again: its page is new, and so is its allowance. */
  reset(): void {
    this.count = 0;
    this.cancel();
  }

  /** The page lost `what` (as the page put it): loads it again unless the allowance is spent. */
  lost(what: string): void {
    if (this.timer !== undefined) return;
    if (this.count >= this.limit) {
      this.log.warn(`${this.name}: the page lost ${what} again; it was loaded ${this.limit} times and stays as it is.`);
      return;
    }
    this.count++;
    this.log.warn(
      `${this.name}: the page lost ${what} (a request the browser host did not serve); loading it again (${this.count} of ${this.limit}).`,
    );
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.reload();
    }, this.delayMs);
  }

  private cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  dispose(): void {
    this.cancel();
  }
}
