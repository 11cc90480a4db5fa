/**
 * One sentence for the user from a {@link CompactionStatus}: what a compaction did, or why it did
 * not. The sidebar, the notifications and the command line all render from here, so the words
 * follow the data rather than the other way round.
 */
import type {
  AnchoredTokens,
  CompactionApplied,
  CompactionStatus,
  CompactionStep,
  SmallSpans,
  SummarizerFailureKind,
} from './outcome';
import type { CheckpointStrategy } from './types';
import { describeHolders } from './plan/holders';
import { describeHeld } from './plan/held-words';

const n = (x: number): string => x.toLocaleString('en-US');

/** Short label of each summarizer failure, leading the summarizer's own message. */
export const FAILURE_LABELS: Record<SummarizerFailureKind, string> = {
  network: 'the summarizer could not be reached',
  auth: 'the summarizer rejected the API key',
  'model-not-found': 'the summarizer does not know the model',
  'rate-limit': 'the summarizer is rate-limiting requests',
  server: 'the summarizer had a server error',
  rejected: 'the summarizer rejected the request',
  timeout: 'the summarizer did not answer in time',
  'context-length': "the request exceeded the summarizer's context window",
  'bad-reply': 'the summarizer sent a reply that cannot be used',
  refusal: 'the summarizer refused',
  'no-shrink': 'the summary would not shrink the context',
  cancelled: 'compaction cancelled',
};

/** What holds the anchored tokens, largest first, for example "tool schemas 3,400, system prompt 1,200". */
export function describeAnchored(anchored: AnchoredTokens): string {
  const parts: Array<[string, number]> = [
    ['system prompt', anchored.system],
    ['tool schemas', anchored.tools],
    ['latest request', anchored.latestRequest],
    ['newest steps', anchored.recentSteps],
    ['pinned messages', anchored.pinned],
    // The same words as the command line's `meter` prints for these tokens.
    ['reply start', anchored.replyStart],
  ];
  return parts
    .filter(([, tokens]) => tokens > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([what, tokens]) => `${what} ${n(tokens)}`)
    .join(', ');
}

/**
 * Spans left as they were because the context cannot fit anyway, as a clause: "messages 96-97 left
 * as they were: rewriting them would free at most 1,093 tokens, under the 1,200 a checkpoint must
 * free while the context cannot fit" (a summary or collapsed tool results alike).
 */
export function describeSmallSpans(small: SmallSpans): string {
  const one = small.first === small.last;
  const where = one
    ? `message ${small.first} left as it was`
    : `messages ${small.first}-${small.last} left as they were`;
  return `${where}: rewriting ${one ? 'it' : 'them'} would free at most ${n(small.tokens)} tokens, under the ${n(small.minTokens)} a checkpoint must free while the context cannot fit`;
}

/** The sentence for `status`. Token figures are formatted with thousands separators. */
export function describeCompaction(status: CompactionStatus): string {
  switch (status.kind) {
    case 'applied':
      return describeApplied(status);
    case 'not-needed':
      return status.why === 'below-trigger'
        ? `below the trigger: ${n(status.tokens)} of ${n(status.limitTokens)} tokens`
        : `already small enough: ${n(status.tokens)} tokens, target ${n(status.limitTokens)}`;
    case 'nothing-eligible':
      return `nothing to compact: ${describeHeld(status.heldBy)}`;
    case 'would-break-pairing':
      return `compaction not applied: it would break tool pairing (${status.detail})`;
    case 'does-not-fit': {
      if (status.holders) {
        const small = status.smallSpans ? `; ${describeSmallSpans(status.smallSpans)}` : '';
        return `nothing can be shortened enough; does not fit: ${n(status.bestTokens)} tokens against a budget of ${n(status.limitTokens)}; ${describeHolders(status.holders, status.limitTokens)}${small}`;
      }
      const held = status.anchored ? `; it is held by ${describeAnchored(status.anchored)} tokens` : '';
      return `cannot get below ${n(status.limitTokens)} tokens: at best ${n(status.bestTokens)}${held}; a larger window, fewer kept recent steps or fewer pinned messages would help`;
    }
    case 'stale':
      return 'the prepared compaction is stale: the messages it replaces have changed';
    case 'summarizer-failed':
      if (status.failure === 'cancelled') return 'compaction cancelled; the context is unchanged';
      return `compaction failed, the context is unchanged: ${FAILURE_LABELS[status.failure]} (${status.message})`;
    default:
      return unreachable(status);
  }
}

/** What each checkpoint strategy did, as the means of a compaction ("… by the extractive summarizer"). */
const STEP_MEANS: Record<CheckpointStrategy, string> = {
  collapse: 'collapsing tool results',
  clip: 'clipping long messages',
  summary: 'the summary model',
  extractive: 'the extractive summarizer',
};

/** Each checkpoint strategy as a step of a breakdown ("extractive summarizer 9,000 → 4,000"). */
const STEP_NAMES: Record<CheckpointStrategy, string> = {
  collapse: 'tool results collapsed',
  clip: 'messages clipped',
  summary: 'summary model',
  extractive: 'extractive summarizer',
};

/**
 * How an applied compaction got there, after its figures: " by the extractive summarizer" (the
 * means, in the order applied), or, only where the summary model and the extractive summarizer each
 * wrote part, a breakdown of every step with its own figures (" (summary model 9,000 → 5,000,
 * extractive summarizer 5,000 → 4,000)"). A breakdown of one writer's steps would repeat the head's
 * figures. Empty without steps.
 */
export function describeSteps(steps: readonly CompactionStep[]): string {
  const strategies = [...new Set(steps.map((s) => s.strategy))];
  if (strategies.length === 0) return '';
  const known = (strategy: string): strategy is CheckpointStrategy => strategy in STEP_MEANS;
  if (strategies.includes('summary') && strategies.includes('extractive'))
    return ` (${steps.map((s) => `${known(s.strategy) ? STEP_NAMES[s.strategy] : s.strategy} ${n(s.tokensBefore)} → ${n(s.tokensAfter)}`).join(', ')})${editedClause(steps)}`;
  const means = strategies.map((strategy) => (known(strategy) ? STEP_MEANS[strategy] : strategy));
  return ` by ${means.length > 1 ? `${means.slice(0, -1).join(', ')} and ${means.at(-1)}` : means[0]}${editedClause(steps)}`;
}

/**
 * ", the summary then edited by hand" when the user rewrote a proposed summary before applying it:
 * the text in the context is theirs, not the summarizer's alone. Empty when no step was edited.
 */
function editedClause(steps: readonly CompactionStep[]): string {
  const edited = steps.filter((s) => s.editedByHand).length;
  if (edited === 0) return '';
  const summaries = steps.filter((s) => s.strategy === 'summary' || s.strategy === 'extractive').length;
  return edited === 1 && summaries <= 1
    ? ', the summary then edited by hand'
    : `, ${edited} of the summaries then edited by hand`;
}

/**
 * An applied compaction: the figures, how they were reached ({@link describeSteps}), and what keeps
 * the result above its input budget (what holds the tokens) or, short of that, above its target (the
 * anchored part).
 */
function describeApplied(status: CompactionApplied): string {
  const head = `compacted ${n(status.tokensBefore)} → ${n(status.tokensAfter)} tokens${describeSteps(status.steps)}`;
  const ahead = status.preparedAhead ? '; summary prepared ahead' : '';
  const over = status.overBudget;
  const small = status.smallSpans ? `; ${describeSmallSpans(status.smallSpans)}` : '';
  if (over)
    return `${head}; does not fit: ${n(status.tokensAfter)} tokens against a budget of ${n(over.inputBudget)}; ${describeHolders(over.holders, over.inputBudget)}${small}${ahead}`;
  const a = status.anchored;
  if (a === undefined || status.targetTokens === undefined || a.total <= status.targetTokens)
    return head + small + ahead;
  return `${head}; what is never summarized holds ${n(a.total)} tokens (${describeAnchored(a)}), over the target of ${n(status.targetTokens)}${small}${ahead}`;
}

function unreachable(status: never): string {
  return `compaction ended: ${(status as { kind?: string }).kind ?? 'unknown outcome'}`;
}
