/**
 * What a compaction attempt came to: the result the pipeline returns ({@link CompactionResult}) and
 * its status as data, a discriminated union on `kind` that the service
 * passes on unchanged and the sidebar, notifications and command line render
 * ({@link describeCompaction}). New kinds are added as new members; renderers handle every kind
 * (the `never` check in {@link describeCompaction} makes a missing one a type error).
 */
import type { Checkpoint, ContextItem, SummarizerError } from './types';
import type { TokenHolders } from './plan/holders';

/** Why a summarizer call failed, as the user can act on it. Derived from {@link SummarizerError}. */
export type SummarizerFailureKind =
  /** The endpoint could not be reached, or the connection broke. */
  | 'network'
  /** HTTP 401/403: the key was rejected. */
  | 'auth'
  /** HTTP 404: the endpoint does not know the model. */
  | 'model-not-found'
  /** HTTP 429 after the client's retries. */
  | 'rate-limit'
  /** HTTP 5xx after the client's retries. */
  | 'server'
  /** Another HTTP status (400 and the like). */
  | 'rejected'
  /** No answer, or a stream that went silent, within the time allowed. */
  | 'timeout'
  /** The summarizer's own window cannot hold the request. */
  | 'context-length'
  /** A reply that cannot be used: empty, truncated, a tool call, malformed, error-shaped. */
  | 'bad-reply'
  /** The model refused. */
  | 'refusal'
  /** The summary would not be shorter than what it replaces. */
  | 'no-shrink'
  /** The run was cancelled. */
  | 'cancelled';

/**
 * What a failed model call (the agent's or a summarizer's) came to, as the views decide on it (for
 * example: offer Set API Key only for `auth`). `unknown` when the error carries no kind or status.
 */
export interface ModelFailure {
  kind: SummarizerFailureKind | 'unknown';
  /** HTTP status, when the server answered with one. */
  status?: number;
}

/** What holds the tokens that no compaction may summarise, in tokens. */
export interface AnchoredTokens {
  /** Everything below together. */
  total: number;
  /** Tool schemas sent with the request (the meter's `tools` category). */
  tools: number;
  /**
   * Tokens that prime the reply, once per request (the meter's total less its categories): what the
   * command line's `meter` prints as "reply start". Never counted as tool schemas.
   */
  replyStart: number;
  /** Leading system messages. */
  system: number;
  /** The latest user message. */
  latestRequest: number;
  /** The newest agent steps kept verbatim (`keepRecentSteps`), and tool calls still waiting for results. */
  recentSteps: number;
  /** Pinned messages. */
  pinned: number;
}

/**
 * Spans a compaction left as they were because their summaries would free too little while the
 * context cannot get under its threshold anyway (see `minimumSaving` in `compactor.ts`).
 */
export interface SmallSpans {
  /** How many spans were left. */
  spans: number;
  /** Positions of the first and last message they hold, counted from 1 over the raw messages. */
  first: number;
  last: number;
  /** Tokens their summaries would have freed together, at most. */
  tokens: number;
  /** Least tokens one summary had to free to be written, in tokens. */
  minTokens: number;
}

/** One step of an applied compaction: its strategy and the context's tokens before and after it. */
export interface CompactionStep {
  strategy: string;
  tokensBefore: number;
  tokensAfter: number;
  /** True when the step's summary is a text the user edited by hand before applying it (a preview). */
  editedByHand?: boolean;
}

/** The context was compacted. All figures in tokens. */
export interface CompactionApplied {
  kind: 'applied';
  tokensBefore: number;
  tokensAfter: number;
  /** Checkpoints added (one per strategy used: collapse, summary, clip…). */
  checkpoints: number;
  /** The checkpoints' steps, in the order they were applied. */
  steps: CompactionStep[];
  /** Set when the result is above the target because of what may never be summarised. */
  anchored?: AnchoredTokens;
  targetTokens?: number;
  /**
   * Set when the result still does not fit the input budget (`contextWindow - reservedOutput`), even
   * after the degrade tiers: the budget and what holds the tokens.
   */
  overBudget?: { inputBudget: number; holders: TokenHolders };
  /** Spans left as they were: their summaries would free too little for a context that cannot fit. */
  smallSpans?: SmallSpans;
  /** True when the summary was prepared ahead of the trigger and applied from there. */
  preparedAhead?: boolean;
}

/** Nothing to do: below the trigger (automatic) or already at the target. */
export interface CompactionNotNeeded {
  kind: 'not-needed';
  why: 'below-trigger' | 'already-small';
  tokens: number;
  /** The trigger (`below-trigger`) or the target (`already-small`), in tokens. */
  limitTokens: number;
}

/** Everything left is anchored: `heldBy` names the kinds of message that hold it. */
export interface CompactionNothingEligible {
  kind: 'nothing-eligible';
  heldBy: string[];
}

/** The rewrite would leave a tool call without its result or the reverse (invariant 1). */
export interface CompactionWouldBreakPairing {
  kind: 'would-break-pairing';
  /** The first pairing problem found, in words. */
  detail: string;
}

/**
 * An automatic compaction could not get below its trigger (it would run again on the next call):
 * `bestTokens` is the best reachable size, `anchored` what holds the rest.
 */
export interface CompactionDoesNotFit {
  kind: 'does-not-fit';
  bestTokens: number;
  limitTokens: number;
  anchored?: AnchoredTokens;
  /** What holds the tokens, when nothing could be shortened and the context is over the input budget. */
  holders?: TokenHolders;
  /** Spans left as they were: their summaries would free too little for a context that cannot fit. */
  smallSpans?: SmallSpans;
}

/** A prepared compaction whose replaced messages changed before it could apply. */
export interface CompactionStale {
  kind: 'stale';
}

/** The summarizer failed (or the summary would not shrink the context); the context is unchanged. */
export interface CompactionSummarizerFailed {
  kind: 'summarizer-failed';
  failure: SummarizerFailureKind;
  /** The summarizer's own one-line message (never carries the key). */
  message: string;
  /** HTTP status, when the failure was one. */
  status?: number;
}

/** Everything the compaction core can return. */
export type CompactionStatus =
  | CompactionApplied
  | CompactionNotNeeded
  | CompactionNothingEligible
  | CompactionWouldBreakPairing
  | CompactionDoesNotFit
  | CompactionStale
  | CompactionSummarizerFailed;

/** The kind of failure a {@link SummarizerError} stands for (its `kind`, and its HTTP status when it has one). */
export function failureKind(error: Pick<SummarizerError, 'kind' | 'status'>): SummarizerFailureKind {
  switch (error.kind) {
    case 'aborted':
      return 'cancelled';
    case 'timeout':
      return 'timeout';
    case 'overflow':
      return 'context-length';
    case 'refusal':
      return 'refusal';
    case 'no-shrink':
      return 'no-shrink';
    case 'empty':
    case 'truncated':
    case 'tool-call':
    case 'invalid':
      return 'bad-reply';
    case 'http': {
      const status = error.status;
      if (status === undefined) return 'network';
      if (status === 401 || status === 403) return 'auth';
      if (status === 404) return 'model-not-found';
      if (status === 429) return 'rate-limit';
      return status >= 500 ? 'server' : 'rejected';
    }
  }
}

/** The status of a compaction the summarizer failed. */
export function summarizerFailed(error: SummarizerError): CompactionSummarizerFailed {
  return {
    kind: 'summarizer-failed',
    failure: failureKind(error),
    message: error.message,
    ...(error.status !== undefined ? { status: error.status } : {}),
  };
}

/** What holds the tokens of a result over the input budget, when the compaction measured it. */
export function holdersOf(status: CompactionStatus): TokenHolders | undefined {
  if (status.kind === 'applied') return status.overBudget?.holders;
  return status.kind === 'does-not-fit' ? status.holders : undefined;
}

/** True for outcomes nobody needs to be warned about: nothing to do, or cancelled on purpose. */
export function isQuietStatus(status: CompactionStatus): boolean {
  return (
    status.kind === 'not-needed' ||
    status.kind === 'nothing-eligible' ||
    (status.kind === 'summarizer-failed' && status.failure === 'cancelled')
  );
}

/**
 * Outcome of a compaction attempt: what it came to is `status` (render text for the user from it, see
 * `outcome-text.ts`). Unless `status.kind` is `applied`, the context is unchanged and `checkpoints` empty.
 */
export interface CompactionResult {
  status: CompactionStatus;
  tokensBefore: number;
  tokensAfter: number;
  checkpoints: Checkpoint[];
  /** The active context after the run (same array contents as before when not applied). */
  context: ContextItem[];
}
