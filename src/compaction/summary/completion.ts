/**
 * Whether an agent's message reports finished work: it states an outcome in the past tense ("Fixed
 * the parser.", "Indexed and chunked.", "Here's what's now in place: …", "Done.") and neither asks a
 * question nor states a next step of its own. A conditional offer ("If you'd rather …, say the word
 * and I'll …", "Let me know if …") leaves the next step to the user, so it is no open step. Pure.
 */
import { sentences } from './prose';

/** A sentence that states finished work. */
const DONE =
  /\b(done|finished|completed?|all set|(now|is|are|all) in place|in place now|(is|are) (now )?(ready|working|passing|green|live|fixed|indexed)|all (tests|checks) pass(ed|ing)?|tests? pass(ed|es)?|here'?s what (changed|i did|was done|(is|'s) now)|summary of (the )?(changes|what)|changes made|(implemented|added|created|fixed|updated|indexed|chunked|wrote|written|refactored|removed|renamed|moved|merged|committed|pushed|landed|resolved|extended|documented|deployed|installed|configured|migrated)\b)/i;
/** A sentence that says work goes on, or that something is still wrong. */
const OPEN =
  /\b(next step|next(?=,)|next I|next up|now I('ll| will)|I('ll| will) (now|next|then)|let me|let's|I'm going to|I am going to|still (need|needs|failing|fails|broken|to do|missing|pending)|remaining (work|steps|items|issues)|not yet|to ?do(?=:)|in progress|blocked on|couldn't|could not|unable to|(is|are) (still )?failing)\b/i;
/** An offer whose next step is the user's: never an open step of the agent's. */
const CONDITIONAL =
  /^(if|when|whenever|once|should you)\b|\b(let me know|say the word|if you('d| would| want| prefer| like))\b/i;

/** A letter of any script; made once (the bundler writes a literal with a Unicode property as a `new RegExp(...)` call). */
const HAS_LETTER = /\p{L}/u;

/** Prose sentences of a message with their markdown emphasis and list marks removed. */
function plain(text: string): string[] {
  return sentences(text)
    .map((s) => s.replace(/^(?:[-*•]|\d+[.)]|#+)\s+/, '').replace(/[*_`]+/g, ''))
    .filter((s) => HAS_LETTER.test(s));
}

/**
 * True when `text` (an agent's message) reports work as finished: one of its first three sentences
 * states an outcome, none asks a question, and none states a step still to take (conditional offers
 * excepted).
 */
export function reportsFinishedWork(text: string): boolean {
  const all = plain(text);
  if (!all.length) return false;
  if (!all.slice(0, 3).some((s) => DONE.test(s) || s.includes('✅'))) return false;
  for (const s of all) {
    if (/[?？]["')\]」』]*$/.test(s)) return false;
    if (OPEN.test(s) && !CONDITIONAL.test(s)) return false;
  }
  return true;
}

/**
 * True when `text` (an agent's message) leaves a step open: a sentence that asks a question or
 * states a step still to take (conditional offers excepted).
 */
export function leavesStepOpen(text: string): boolean {
  return plain(text).some((s) => /[?？]["')\]」』]*$/.test(s) || (OPEN.test(s) && !CONDITIONAL.test(s)));
}

/**
 * True when a typed request asks a question rather than for work: it ends a sentence with `?`, or
 * opens with a question word or "quick question" (after a `Task:` label).
 */
export function asksQuestion(request: string): boolean {
  return (
    /\?(?:\s|$)|？/.test(request) ||
    /^\s*(?:task:\s*)?(?:(?:quick|short|one) question|what|where|which|who|why|how|explain|describe|show me)\b/i.test(
      request,
    )
  );
}
