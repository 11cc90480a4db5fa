/**
 * Keeps Tab inside the page's visible controls: see ./shared/tab-wrap for the rule.
 */
import { tabWrapTarget } from './shared/tab-wrap';

const FOCUSABLE = 'a[href], button, input, select, textarea, summary, [tabindex]';

/** The page's Tab stops in document order: enabled, in the Tab order and shown. */
function tabStops(root: ParentNode): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
    (el) =>
      el.tabIndex >= 0 &&
      !(el as HTMLButtonElement).disabled &&
      el.getClientRects().length > 0 &&
      !el.closest('[hidden], [inert], details:not([open]) > :not(summary)'),
  );
}

/** Wraps Tab from the last stop to the first, and Shift+Tab from the first to the last. */
export function wrapTabStops(root: HTMLElement): void {
  root.ownerDocument.addEventListener('keydown', (event) => {
    if (event.key !== 'Tab' || event.ctrlKey || event.altKey || event.metaKey) return;
    const stops = tabStops(root);
    const active = root.ownerDocument.activeElement;
    const target = tabWrapTarget(
      stops.findIndex((el) => el === active),
      stops.length,
      event.shiftKey,
    );
    if (!target) return;
    event.preventDefault();
    (target === 'first' ? stops[0] : stops[stops.length - 1]).focus();
  });
}
