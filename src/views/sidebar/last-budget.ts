/**
 * The gauge's last figure for each session, kept in workspace state, so that after a window reload
 * the status bar shows where the session stood while it is opened again (seconds on a busy
 * extension host) instead of only "loading". Written only when the figure, its exactness or the
 * budget changes (appends, usage reports, compactions), not on every redraw while a reply streams.
 */
import type { ListStore } from '../session-list';
import type { BudgetView } from '../../webview/shared/protocol';

/** One remembered figure (tokens), with the ISO time it was shown. */
export interface LastBudget {
  sessionId: string;
  used: number;
  inputBudget: number;
  exact: boolean;
  time: string;
}

const KEY = 'contextKeeper.lastBudget';
/** Sessions remembered; the oldest go first (a figure for a deleted session is only ever stale). */
const MAX_SESSIONS = 20;

/** True when `value` has the shape of a {@link LastBudget} (workspace state may hold anything). */
function isLastBudget(value: unknown): value is LastBudget {
  const v = value as Partial<LastBudget> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.sessionId === 'string' &&
    Number.isFinite(v.used) &&
    Number.isFinite(v.inputBudget) &&
    typeof v.exact === 'boolean' &&
    typeof v.time === 'string'
  );
}

/** Reads and writes the remembered figures in `store` (VS Code's workspace state, or a Map in tests). */
export class LastBudgetMemory {
  constructor(
    private readonly store: ListStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The figure last shown for `sessionId`, if one was remembered. */
  get(sessionId: string | undefined): LastBudget | undefined {
    if (sessionId === undefined) return undefined;
    return this.all().find((b) => b.sessionId === sessionId);
  }

  /** Remembers `budget` as shown for `sessionId`; a write only when it changed (see the module comment). */
  remember(sessionId: string, budget: BudgetView): void {
    const known = this.get(sessionId);
    if (known && known.inputBudget === budget.inputBudget && known.exact === budget.exact && known.used === budget.used)
      return;
    const next: LastBudget = {
      sessionId,
      used: budget.used,
      inputBudget: budget.inputBudget,
      exact: budget.exact,
      time: this.now().toISOString(),
    };
    const others = this.all().filter((b) => b.sessionId !== sessionId);
    void Promise.resolve(this.store.update(KEY, [next, ...others].slice(0, MAX_SESSIONS))).catch(() => undefined);
  }

  private all(): LastBudget[] {
    const value = this.store.get<unknown>(KEY);
    return Array.isArray(value) ? value.filter(isLastBudget) : [];
  }
}
