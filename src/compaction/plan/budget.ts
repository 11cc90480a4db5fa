/**
 * Turns a model's context window and the configured fractions into token thresholds.
 */
import type { BudgetConfig } from '../types';

/** Thresholds of one budget, in tokens. */
export interface Thresholds {
  /** Tokens the fractions apply to (`contextWindow - reservedOutput`, or the window). */
  base: number;
  /** Prompt tokens the request may use: `contextWindow - reservedOutput`. */
  inputBudget: number;
  /** Reserved output after clamping. */
  reservedOutput: number;
  /** Automatic compaction fires at or above this many prompt tokens. */
  triggerTokens: number;
  /** A compaction aims at or below this many prompt tokens. */
  targetTokens: number;
  /** Problems with the configuration, for the user (empty when fine). */
  warnings: string[];
}

/**
 * Largest share of the window the output reservation may take. A model's maximum output (131k of
 * 200k for some) reserved in full leaves almost no room for input and makes compaction fire on
 * every turn (cases seen in Roo Code and Cline); a quarter of the window keeps both usable.
 */
export const MAX_RESERVED_SHARE = 0.25;

/** Defaults: compact at 80 % of the base, down to 50 %, so one compaction buys many turns. */
export const DEFAULT_COMPACT_AT = 0.8;
export const DEFAULT_COMPACT_TO = 0.5;

/**
 * Computes thresholds. Throws RangeError when the window is not a positive integer or the
 * fractions are outside (0, 1] or `compactTo >= compactAt` (no hysteresis would compact every call).
 */
export function thresholds(budget: BudgetConfig): Thresholds {
  const warnings: string[] = [];
  const { contextWindow, compactAt, compactTo } = budget;
  if (!Number.isFinite(contextWindow) || contextWindow <= 0)
    throw new RangeError(`contextWindow must be a positive number of tokens, got ${contextWindow}`);
  if (!(compactAt > 0 && compactAt <= 1))
    throw new RangeError(`compactAt must be a fraction in (0, 1], got ${compactAt}`);
  if (!(compactTo > 0 && compactTo < compactAt))
    throw new RangeError(`compactTo must be a fraction below compactAt (${compactAt}), got ${compactTo}`);
  let reserved = Math.max(0, Math.floor(budget.reservedOutput || 0));
  const cap = Math.floor(contextWindow * MAX_RESERVED_SHARE);
  if (reserved > cap) {
    warnings.push(
      `reserved output ${reserved} tokens is over ${MAX_RESERVED_SHARE * 100}% of the ${contextWindow}-token window; using ${cap}`,
    );
    reserved = cap;
  }
  const inputBudget = contextWindow - reserved;
  const base = budget.thresholdBase === 'window' ? contextWindow : inputBudget;
  // Never trigger past what the request may hold, whatever the base.
  const triggerTokens = Math.min(Math.floor(base * compactAt), inputBudget);
  const targetTokens = Math.min(Math.floor(base * compactTo), triggerTokens - 1);
  return { base, inputBudget, reservedOutput: reserved, triggerTokens, targetTokens, warnings };
}

/** Known context windows, in tokens, from the providers' model documentation. */
const KNOWN_WINDOWS: Array<[RegExp, number]> = [
  [/gpt-4\.1/, 1_047_576],
  [/gpt-5/, 400_000],
  [/gpt-4o|o1|o3|o4/, 128_000],
  [/gpt-4-turbo|gpt-4-1106|gpt-4-0125/, 128_000],
  [/gpt-4-32k/, 32_768],
  [/gpt-4/, 8_192],
  [/gpt-3\.5/, 16_385],
  [/claude/, 200_000],
  [/gemini/, 1_048_576],
];

/** Fallback window when nothing is known about a model, in tokens. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

/**
 * One resolved window feeds both the gauge and the trigger: user override > provider metadata >
 * built-in table > default.
 */
export function resolveContextWindow(model: string | undefined, override?: number, providerWindow?: number): number {
  if (override && override > 0) return override;
  if (providerWindow && providerWindow > 0) return providerWindow;
  const m = (model ?? '').toLowerCase();
  for (const [re, n] of KNOWN_WINDOWS) if (re.test(m)) return n;
  return DEFAULT_CONTEXT_WINDOW;
}

/** Default share of the compaction target for typed requests kept verbatim. */
export const DEFAULT_USER_BUDGET = 0.25;
/** Most tokens typed requests may take, whatever the window (the size Codex carries user messages in). */
export const MAX_USER_BUDGET_TOKENS = 20_000;
/** Default share of the compaction target for a summary's notes and ledger. */
export const DEFAULT_SUMMARY_BUDGET = 0.25;
/** Default share of the compaction target for files re-attached after a summary (live sessions). */
export const DEFAULT_ATTACH_BUDGET = 0.1;

/** Token budgets of one compaction's summaries, derived from its target. */
export interface SummaryBudgets {
  /** Typed requests kept verbatim, in tokens. */
  userTokens: number;
  /** Notes and work-state ledger, in tokens. */
  summaryTokens: number;
  /** Files re-attached in live sessions, in tokens. */
  attachTokens: number;
}

/**
 * Budgets as fractions of `targetTokens` (order of priority inside the target: what is never
 * summarised, then typed requests, then notes, then re-attached files). Throws RangeError for a
 * fraction outside (0, 1].
 */
export function summaryBudgets(
  targetTokens: number,
  fractions: { user?: number; summary?: number; attach?: number } = {},
): SummaryBudgets {
  const f = (name: string, v: number | undefined, d: number) => {
    const x = v ?? d;
    if (!(x > 0 && x <= 1)) throw new RangeError(`${name} must be a fraction in (0, 1], got ${v}`);
    return x;
  };
  const user = f('userBudget', fractions.user, DEFAULT_USER_BUDGET);
  const summary = f('summaryBudget', fractions.summary, DEFAULT_SUMMARY_BUDGET);
  const attach = f('attachBudget', fractions.attach, DEFAULT_ATTACH_BUDGET);
  return {
    userTokens: Math.min(MAX_USER_BUDGET_TOKENS, Math.floor(targetTokens * user)),
    summaryTokens: Math.floor(targetTokens * summary),
    attachTokens: Math.floor(targetTokens * attach),
  };
}

/**
 * Tokens of a summary's `room` the notes keep at least when it holds less than the requests' share
 * (`budgets.userTokens`) and the notes' (`notes`) together: their part in proportion to the two.
 */
export function notesFloor(room: number, budgets: SummaryBudgets, notes: number): number {
  const both = notes + budgets.userTokens;
  return both > 0 && room > 0 ? Math.floor((room * notes) / both) : 0;
}

/** How one summary's room is shared, in tokens. */
export interface RoomShares {
  /** Most tokens the verbatim requests section may take. */
  requests: number;
  /** Most tokens the notes and ledger may take (they get less when the requests leave less). */
  notes: number;
  /** Fewest tokens the requests section is given, whatever the room. */
  min: number;
  /** The room holds less than both shares: the notes keep their floor (see {@link notesFloor}). */
  tight: boolean;
}

/**
 * Shares the tokens one summary may use (`room`: its part of the target, less its framing) between
 * its verbatim requests and its notes, in the order of priority inside the target (README, "What a
 * summary keeps"): the requests first, with their share of the target (`budgets.userTokens`, at
 * least `minRequests`) and whatever the room holds beyond the notes' share; the notes get their
 * share (`budgets.summaryTokens`, at most half of the span of `spanTokens` tokens) from what is left,
 * and, when the room holds less than both shares, never less than their part of the room in
 * proportion to the two shares (half of it with the default budgets) unless the requests' minimum
 * `minRequests` needs it: the state of the code (the files changed, the current work) must not give
 * way to the verbatim requests entirely, and the requests section marks what it leaves out. The
 * requests never get more than {@link MAX_USER_BUDGET_TOKENS} unless their own share is larger.
 */
export function splitRoom(room: number, budgets: SummaryBudgets, spanTokens: number, minRequests = 256): RoomShares {
  const notes = Math.min(budgets.summaryTokens, Math.ceil(spanTokens / 2));
  const beyondNotes = Math.min(Math.max(budgets.userTokens, MAX_USER_BUDGET_TOKENS), room - notes);
  // A room short of both shares keeps a floor for the notes: the files changed stay named whatever
  // the requests would take (a room holding both is shared as before: the floor is then below it).
  const floor = Math.min(notes, notesFloor(room, budgets, notes));
  const requests = Math.max(minRequests, Math.min(room - floor, Math.max(budgets.userTokens, beyondNotes)));
  return { requests, notes, min: minRequests, tight: room < notes + budgets.userTokens };
}
