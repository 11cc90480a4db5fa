/**
 * The sidebar's Compact focus text, kept per session: what the user typed for one session is offered
 * again for that session only (after a switch away and back, or the view being hidden and rebuilt),
 * never for another. Pure: no `vscode` import; the webview imports it and keeps {@link FocusDrafts.saved}
 * in its `setState`.
 */

/** How many sessions' drafts are kept (the most recently typed win); older ones are dropped. */
export const MAX_FOCUS_DRAFTS = 50;

/** Focus drafts by session id. */
export class FocusDrafts {
  /** Insertion order is recency order: the last key was typed in last. */
  private readonly drafts = new Map<string, string>();

  /** @param saved Drafts kept by an earlier instance (the webview's saved state); malformed values are skipped. */
  constructor(saved?: unknown) {
    if (saved && typeof saved === 'object') {
      for (const [id, text] of Object.entries(saved as Record<string, unknown>))
        if (typeof text === 'string' && text) this.drafts.set(id, text);
    }
  }

  /** The draft of session `id` ('' when none, or no session). */
  get(id: string | undefined): string {
    return id === undefined ? '' : (this.drafts.get(id) ?? '');
  }

  /** Keeps `text` as session `id`'s draft; an empty text forgets it. Nothing without a session. */
  set(id: string | undefined, text: string): void {
    if (id === undefined) return;
    this.drafts.delete(id);
    if (text === '') return;
    this.drafts.set(id, text);
    while (this.drafts.size > MAX_FOCUS_DRAFTS) this.drafts.delete(this.drafts.keys().next().value as string);
  }

  /** The drafts as a plain object for the webview's saved state. */
  saved(): Record<string, string> {
    return Object.fromEntries(this.drafts);
  }
}
