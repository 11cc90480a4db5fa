/**
 * What the sidebar's hidden status line (role=status) says after a host message. Pure: the webview
 * writes the result to its live region. Rule (WAI-ARIA live regions): a status line must describe the
 * current state, so a change of session (switch, delete of the shown one, reload) clears it.
 */
import type { CompactionView } from './protocol';
import type { Applied } from './view-store';

/** `clear`: empty the status line first; `texts`: sentences to announce, in order (the last one stays shown). */
export interface Announcement {
  clear: boolean;
  texts: string[];
}

/**
 * The announcement for one applied host message. `cancelRequested` is true when the user pressed
 * Cancel since the last run started, so the run's end is announced as cancelled, not finished;
 * `describe` gives the sentence for a new compaction.
 */
export function announcementFor(
  applied: Applied,
  cancelRequested: boolean,
  describe: (c: CompactionView) => string,
): Announcement {
  const texts: string[] = [];
  const change = applied.stateChange;
  // Only the changes a listener acts on: work starts, work ends, an error, a compaction starts.
  if (change && !applied.sessionChanged) {
    const idle = (s: string) => s === 'idle' || s === 'error';
    if (change.to === 'error')
      texts.push(cancelRequested ? 'The agent was cancelled.' : 'The agent stopped with an error.');
    else if (change.to === 'idle') texts.push(cancelRequested ? 'The agent was cancelled.' : 'The agent finished.');
    else if (change.to === 'compacting') texts.push('Compacting the context.');
    else if (idle(change.from)) texts.push('The agent is working.');
  }
  for (const c of applied.newCompactions) texts.push(describe(c));
  return { clear: applied.sessionChanged === true, texts };
}
