/**
 * A list as one Tab stop (the transcript, the checkpoint history): a roving tabindex over its rows
 * (see src/webview/shared/roving.ts for the keys). Rows are `[data-row]` elements rendered with
 * `tabindex="-1"`, and so are the buttons inside them; this keeps exactly one row at `tabindex="0"`
 * (the one focused last, else the newest: the last row, or the first in a newest-first list)
 * and moves focus on the keys. Attached once to the container the list renders into, so re-renders
 * keep it.
 */
import { controlIndex, rovingAction, rovingIndex } from './shared/roving.js';

const ROW = '[data-row]';
/** What can take focus inside a row, in the order Enter reaches it. */
const CONTROLS = 'button, summary, a[href], input, textarea, select';

/** Roving focus over the rows under `host`. */
export class RovingRows {
  /** Key (`data-row`) of the row that takes Tab, once the reader has been on one. */
  private active: string | undefined;

  /** `newest` says where the newest row is: `last` (the transcript) or `first` (the history). */
  constructor(
    private readonly host: HTMLElement,
    private readonly newest: 'first' | 'last' = 'last',
  ) {
    host.addEventListener('keydown', (event) => this.key(event));
    host.addEventListener('focusin', (event) => this.focused(event));
  }

  /** After a render: exactly one row in the Tab order (new rows come with `tabindex="-1"`). */
  sync(): void {
    const target = this.target();
    for (const row of this.host.querySelectorAll<HTMLElement>(`${ROW}[tabindex="0"]`))
      if (row !== target) row.tabIndex = -1;
    if (target && target.tabIndex !== 0) target.tabIndex = 0;
  }

  private target(): HTMLElement | undefined {
    const chosen =
      this.active === undefined
        ? null
        : this.host.querySelector<HTMLElement>(`${ROW}[data-row="${CSS.escape(this.active)}"]`);
    if (chosen) return chosen;
    const rows = this.host.querySelectorAll<HTMLElement>(ROW);
    return this.newest === 'first' ? rows[0] : rows[rows.length - 1];
  }

  private focused(event: FocusEvent): void {
    const row = (event.target as Element | null)?.closest<HTMLElement>(ROW);
    if (!row || !this.host.contains(row)) return;
    this.active = row.dataset.row;
    this.sync();
  }

  private key(event: KeyboardEvent): void {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const target = event.target as HTMLElement;
    const row = target.closest<HTMLElement>(ROW);
    if (!row || !this.host.contains(row)) return;
    const action = rovingAction(event.key, target === row);
    if (!action) return;
    if ('move' in action) {
      const rows = [...this.host.querySelectorAll<HTMLElement>(ROW)];
      const next = rows[rovingIndex(action.move, rows.indexOf(row), rows.length)];
      if (!next) return;
      event.preventDefault();
      next.focus();
      next.scrollIntoView({ block: 'nearest' });
    } else if ('enter' in action) {
      const control = row.querySelector<HTMLElement>(CONTROLS);
      if (!control) return;
      event.preventDefault();
      control.focus();
    } else if ('control' in action) {
      const controls = [...row.querySelectorAll<HTMLElement>(CONTROLS)].filter((c) => c.offsetParent !== null);
      const at = controls.findIndex((c) => c === target || c.contains(target));
      if (at < 0) return;
      event.preventDefault();
      const next = controlIndex(action.control, at, controls.length);
      (next < 0 ? row : controls[next]).focus();
    } else {
      event.preventDefault();
      row.focus();
    }
  }
}
