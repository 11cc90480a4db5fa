/**
 * Tab at the page's ends: past the last Tab stop the browser would move focus out of the page to the
 * webview's own frame (stops nothing shows, focus looks lost) before it came back to the first; the
 * page wraps there itself, so every Tab stop is a visible control. Pure, so the rule is unit-tested.
 */

/**
 * Where Tab from the stop at `index` (of `count` visible stops, in document order; -1 when focus is
 * on none of them) goes instead of the browser's next stop: `first` after the last, `last` before
 * the first with Shift, else undefined (the browser's own order stands).
 */
export function tabWrapTarget(index: number, count: number, shift: boolean): 'first' | 'last' | undefined {
  if (count === 0 || index < 0) return undefined;
  if (!shift && index === count - 1) return 'first';
  if (shift && index === 0) return 'last';
  return undefined;
}
