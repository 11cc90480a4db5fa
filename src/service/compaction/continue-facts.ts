/**
 * What the compaction that fits a recording continued in a new task (trigger `continue`) came to, as
 * facts measured on the run, and why, from those facts alone: why it landed above its target, and why
 * a summary the user edited by hand was summarised again. The notification is written from these
 * (`views/notices.ts`), so it names the part that really fills the target: what is never summarised,
 * the newest steps kept verbatim, pinned messages, the edited summaries, or the lines added by hand.
 * Pure: no `vscode` import.
 */
import type { AnchoredTokens } from '../../compaction/outcome';

/** Facts of one Continue in a New Task compaction, all figures in tokens. */
export interface ContinueFacts {
  /** The compaction target (`compactTo` of the input budget). */
  targetTokens: number;
  /** Prompt tokens after the run. */
  tokensAfter: number;
  /**
   * What no compaction may summarise, measured before the run, by what holds it; the summaries edited
   * by hand are not in it (`edited`), unless the user pinned them.
   */
  anchored: AnchoredTokens;
  /** Summaries edited by hand in the context before the run (not pinned): how many, and their tokens as written. */
  edited: { count: number; tokens: number };
  /** True when the run planned with those summaries kept as written (with `anchored` they stayed below the target). */
  editedKept: boolean;
  /** How many of them the run summarised again. */
  resummarised: number;
  /** Summaries edited by hand that were no longer in the context before the run: the recording had summarised them again. */
  summarisedBefore: number;
  /** Tokens of the lines added by hand that the run's new summaries carry whole under their heading. */
  handLines: number;
}

/** What fills the target: the first part that reaches it when they are added up in this order. */
export type ContinueHolder =
  /** System prompt, tool schemas, reply start and latest request alone (`anchored` as given). */
  | { kind: 'never-summarised'; tokens: number; anchored: AnchoredTokens }
  /** The newest steps kept verbatim (`keepRecentSteps`), `tokens`, on top of `fixed` (what came before). */
  | { kind: 'kept-steps'; tokens: number; fixed: number }
  /** Messages the user pinned. */
  | { kind: 'pinned'; tokens: number; fixed: number }
  /** The summaries edited by hand, as written. */
  | { kind: 'edited-summaries'; tokens: number; fixed: number }
  /** The lines added by hand, carried whole into the new summaries. */
  | { kind: 'hand-lines'; tokens: number }
  /** The new summaries themselves (their notes), `tokens` above what is kept. */
  | { kind: 'summaries'; tokens: number };

/** Why summaries edited by hand are not in the new task as written. */
export type EditsReason =
  | ContinueHolder
  /** Kept as written they left the new task over the input budget, so the run's second pass summarised them. */
  | { kind: 'over-budget' }
  /** A later compaction in the recording had summarised them before it was continued. */
  | { kind: 'recording' };

/** System prompt, tool schemas, reply start and latest request: never summarised, in tokens. */
export function neverSummarised(a: AnchoredTokens): number {
  return a.system + a.tools + a.replyStart + a.latestRequest;
}

/**
 * The first part that reaches the target when added up: what is never summarised, then the kept
 * steps, then pinned messages, then (when `withEdited`) the edited summaries as written. Undefined
 * when together they stay below it.
 */
function holderOf(f: ContinueFacts, withEdited: boolean): ContinueHolder | undefined {
  const a = f.anchored;
  let fixed = neverSummarised(a);
  if (fixed >= f.targetTokens) return { kind: 'never-summarised', tokens: fixed, anchored: a };
  const parts: Array<['kept-steps' | 'pinned' | 'edited-summaries', number]> = [
    ['kept-steps', a.recentSteps],
    ['pinned', a.pinned],
    ['edited-summaries', withEdited ? f.edited.tokens : 0],
  ];
  for (const [kind, tokens] of parts) {
    if (tokens > 0 && fixed + tokens >= f.targetTokens) return { kind, tokens, fixed };
    fixed += tokens;
  }
  return undefined;
}

/** Tokens of the parts {@link holderOf} adds up, the edited summaries when `withEdited`. */
function keptTokens(f: ContinueFacts, withEdited: boolean): number {
  return neverSummarised(f.anchored) + f.anchored.recentSteps + f.anchored.pinned + (withEdited ? f.edited.tokens : 0);
}

/**
 * Why the run landed above its target, or undefined when it did not: the first part that fills the
 * target ({@link holderOf}), else the lines added by hand when the result would be within the target
 * without them, else the new summaries' own notes.
 */
export function whyAboveTarget(f: ContinueFacts): ContinueHolder | undefined {
  if (f.tokensAfter <= f.targetTokens) return undefined;
  // The edited summaries still stand as written when the run kept them and did not summarise them.
  const editedStand = f.editedKept && f.resummarised === 0;
  const holder = holderOf(f, editedStand);
  if (holder) return holder;
  if (f.handLines > 0 && f.tokensAfter - f.handLines <= f.targetTokens)
    return { kind: 'hand-lines', tokens: f.handLines };
  return { kind: 'summaries', tokens: Math.max(0, f.tokensAfter - keptTokens(f, editedStand)) };
}

/**
 * Why summaries edited by hand are not in the new task as written, or undefined when every one is:
 * the recording had summarised them already; the run kept them but the new task would not fit the
 * input budget; or the first part that, with them, fills the target ({@link holderOf}), which is
 * the edited summaries themselves only when the rest stays below it.
 */
export function whyEditsSummarised(f: ContinueFacts): EditsReason | undefined {
  if (f.resummarised === 0) return f.summarisedBefore > 0 ? { kind: 'recording' } : undefined;
  if (f.editedKept) return { kind: 'over-budget' };
  return holderOf(f, true) ?? { kind: 'edited-summaries', tokens: f.edited.tokens, fixed: keptTokens(f, false) };
}

/**
 * The facts of a continuation that ran no compaction, where `count` summaries edited by hand were
 * already summarised again by the recording itself (nothing else is known or needed).
 */
export function recordingFacts(count: number): ContinueFacts {
  return {
    targetTokens: 0,
    tokensAfter: 0,
    anchored: { total: 0, tools: 0, replyStart: 0, system: 0, latestRequest: 0, recentSteps: 0, pinned: 0 },
    edited: { count: 0, tokens: 0 },
    editedKept: false,
    resummarised: 0,
    summarisedBefore: count,
    handLines: 0,
  };
}
