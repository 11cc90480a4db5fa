/**
 * What a compaction request to the context service came to: the core's {@link CompactionStatus},
 * passed on unchanged, or one of the outcomes only the service can have (cancelled, timed out,
 * overtaken by a rewrite, not saved, a preview). Add new kinds here and to {@link describeOutcome}.
 */
import type { CompactionResult, CompactionStatus, ModelFailure } from '../../compaction/outcome';
import { describeCompaction } from '../../compaction/outcome-text';
import { isQuietStatus } from '../../compaction/outcome';
import type { CheckpointRecord, CompactionPreview } from '../records';
import type { ContinueFacts } from './continue-facts';

/** Outcomes that only the service has. */
export type ServiceCompactionStatus =
  /** Cancelled (by the user or by the service) before it applied; the context is unchanged. */
  | { kind: 'cancelled' }
  /** The run took longer than allowed (`compactionTimeoutMs`). */
  | { kind: 'timed-out'; timeoutMs: number }
  /** The run threw something other than a summarizer failure. */
  | { kind: 'error'; message: string }
  /** The conversation was rewritten while the summary was written (`run`), or since the preview was made (`preview`). */
  | { kind: 'rewritten'; during: 'run' | 'preview' }
  /** The session could not be saved, so nothing was applied. */
  | { kind: 'save-failed'; message: string }
  /** `applyPreview` without a pending preview. */
  | { kind: 'no-preview' }
  /**
   * `applyPreview` refused: summary `summary` (1-based) of `of` was edited to nothing (whitespace
   * only), so it would lose the `messages` messages it replaces. The preview stays pending.
   */
  | { kind: 'empty-summary'; summary: number; of: number; messages: number }
  /** A summary was proposed for review (preview mode). */
  | { kind: 'proposed' }
  /** A queued request never reached a safe point: the task ended first. */
  | { kind: 'task-ended' };

/** Every outcome of a service compaction request. */
export type CompactOutcomeStatus = CompactionStatus | ServiceCompactionStatus;

/** The sentence for `status`, for notifications, the sidebar and the log. */
export function describeOutcome(status: CompactOutcomeStatus): string {
  switch (status.kind) {
    case 'cancelled':
      return 'compaction cancelled; the context is unchanged';
    case 'timed-out':
      return `compaction timed out after ${status.timeoutMs} ms; the context is unchanged (try again, or use a faster summarizer)`;
    case 'error':
      return `compaction failed, the context is unchanged: ${status.message}`;
    case 'rewritten':
      return status.during === 'run'
        ? 'the conversation was rewritten during the compaction; nothing applied'
        : 'the preview is stale: the conversation changed since it was made, so nothing was written; compact again';
    case 'save-failed':
      return `compaction not applied: saving the session failed (${status.message}); the context is unchanged`;
    case 'no-preview':
      return 'there is no summary preview to apply';
    case 'empty-summary':
      return `nothing applied: ${emptySummaryReason(status)}`;
    case 'proposed':
      return 'summary proposed for review';
    case 'task-ended':
      return 'the task ended before the compaction could run';
    default:
      return describeCompaction(status);
  }
}

/**
 * Why a preview with an empty summary cannot be applied, and what to do (one sentence, no final
 * stop), for the refusal's notification and the review document.
 */
export function emptySummaryReason(at: { summary: number; of: number; messages: number }): string {
  const which = at.of === 1 ? 'the summary' : `summary ${at.summary} of ${at.of}`;
  const replaced = `${at.messages.toLocaleString('en-US')} ${at.messages === 1 ? 'message' : 'messages'}`;
  return `${which} is empty, and an empty summary would lose the ${replaced} it replaces; write it in the sidebar or Discard the preview`;
}

/** True for outcomes nobody needs to be warned about: nothing to do, a preview, or cancelled on purpose. */
export function isQuietOutcome(status: CompactOutcomeStatus): boolean {
  switch (status.kind) {
    case 'cancelled':
    case 'proposed':
      return true;
    case 'timed-out':
    case 'error':
    case 'rewritten':
    case 'save-failed':
    case 'no-preview':
    case 'empty-summary':
    case 'task-ended':
      return false;
    default:
      return isQuietStatus(status);
  }
}

/** Outcome of a compaction request, whether it ran now or was queued behind a streaming step. */
export interface CompactOutcome {
  /**
   * What the request came to, as data: the core's status passed on unchanged, or the service's own.
   * Checkpoints were added only when `status.kind` is `applied`; text is rendered from it ({@link describeOutcome}).
   */
  status: CompactOutcomeStatus;
  tokensBefore: number;
  tokensAfter: number;
  /** Checkpoints added by this run (empty when not applied). */
  checkpoints: CheckpointRecord[];
  /** Set when `preview` was requested and a summary was proposed. */
  preview?: CompactionPreview;
  /** True when the request waited for a streaming step to end before running. */
  queued?: boolean;
  /** A Continue in a New Task run (trigger `continue`): what it did, to say why from (see `continue-facts.ts`). */
  continued?: ContinueFacts;
}

/** The model failure behind `status` (a summarizer's failed call), or undefined for any other outcome. */
export function failureOfOutcome(status: CompactOutcomeStatus): ModelFailure | undefined {
  if (status.kind !== 'summarizer-failed') return undefined;
  return { kind: status.failure, ...(status.status !== undefined ? { status: status.status } : {}) };
}

/** The outcome of a run the core finished: `result` with the checkpoint records the service added for it. */
export function outcomeOf(result: CompactionResult, records: CheckpointRecord[], queued?: boolean): CompactOutcome {
  return {
    status: result.status,
    tokensBefore: result.tokensBefore,
    tokensAfter: result.tokensAfter,
    checkpoints: records,
    ...(queued ? { queued } : {}),
  };
}

/** An outcome that changed nothing (`tokens` before and after). */
export function notApplied(status: ServiceCompactionStatus, tokens: number, queued?: boolean): CompactOutcome {
  return {
    status,
    tokensBefore: tokens,
    tokensAfter: tokens,
    checkpoints: [],
    ...(queued ? { queued } : {}),
  };
}

/** Why a run that threw or was aborted ended: its timeout, a cancellation, or an unexpected error. */
export function runFailure(signal: AbortSignal, error: unknown, timeoutMs: number): ServiceCompactionStatus {
  if (signal.aborted && (signal.reason as Error | undefined)?.name === 'TimeoutError')
    return { kind: 'timed-out', timeoutMs };
  if (signal.aborted) return { kind: 'cancelled' };
  return { kind: 'error', message: (error as Error)?.message ?? String(error) };
}
