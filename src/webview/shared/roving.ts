/**
 * Keyboard movement over the sidebar transcript's rows with one Tab stop (a roving tabindex, WAI-ARIA
 * APG "Managing Focus Within Components Using a Roving tabindex"; keys as in the APG grid pattern):
 * Up/Down move to the previous/next row, Home/End to the first/last, Enter, F2 or Right moves into
 * the row's buttons, Right and Left then move between them (Left from the first goes back to the row),
 * Escape back to the row. Pure: shared by the webview and tests.
 */

/** What a key does in the transcript list. */
export type RovingAction =
  | { move: 'previous' | 'next' | 'first' | 'last' }
  | { enter: true }
  | { leave: true }
  | { control: 'previous' | 'next' };

/**
 * The action of `key` (a `KeyboardEvent.key`) pressed on a row (`onRow`) or on a button inside one,
 * or undefined when the key is not the list's (it then keeps its usual meaning: Tab leaves the list,
 * Enter presses a button).
 */
export function rovingAction(key: string, onRow: boolean): RovingAction | undefined {
  switch (key) {
    case 'ArrowUp':
      return { move: 'previous' };
    case 'ArrowDown':
      return { move: 'next' };
    case 'Home':
      return onRow ? { move: 'first' } : undefined;
    case 'End':
      return onRow ? { move: 'last' } : undefined;
    case 'Enter':
    case 'F2':
      return onRow ? { enter: true } : undefined;
    case 'ArrowRight':
      return onRow ? { enter: true } : { control: 'next' };
    case 'ArrowLeft':
      return onRow ? undefined : { control: 'previous' };
    case 'Escape':
      return onRow ? undefined : { leave: true };
    default:
      return undefined;
  }
}

/** The row index `move` leads to from row `current` of `count` rows (clamped at both ends; -1 when there are none). */
export function rovingIndex(move: 'previous' | 'next' | 'first' | 'last', current: number, count: number): number {
  if (count <= 0) return -1;
  switch (move) {
    case 'first':
      return 0;
    case 'last':
      return count - 1;
    case 'previous':
      return Math.max(0, Math.min(current, count) - 1);
    case 'next':
      return Math.min(count - 1, current + 1);
  }
}

/**
 * The control index a Right/Left (`control`) leads to from control `current` of `count` in a row:
 * clamped at the last, and -1 from the first going left (back to the row itself).
 */
export function controlIndex(control: 'previous' | 'next', current: number, count: number): number {
  if (control === 'previous') return current - 1;
  return Math.min(count - 1, current + 1);
}
