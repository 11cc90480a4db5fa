/**
 * Small pure parts of the compaction coordinator: outcome records, racing a run against cancellation,
 * and the summary preview (its view and the user's edit).
 */
import { summaryHeader } from '../../compaction/rewrite/compactor';
import { describeOutcome, type ServiceCompactionStatus, type CompactOutcome } from './outcome';
import type { CompactionStatus, CompactionResult } from '../../compaction/outcome';
import { describeCompaction } from '../../compaction/outcome-text';
import type { PreparedCompaction } from '../../compaction/rewrite/commit';
import type { CheckpointRecord, CompactionPreview } from '../records';

export function outcomeOf(result: CompactionResult, records: CheckpointRecord[], queued?: boolean): CompactOutcome {
  return {
    applied: result.applied,
    reason: result.reason,
    status: result.status,
    tokensBefore: result.tokensBefore,
    tokensAfter: result.tokensAfter,
    checkpoints: records,
    ...(queued ? { queued } : {}),
  };
}

/** An outcome that changed nothing (`tokens` before and after), its reason rendered from `status`. */
export function notApplied(status: ServiceCompactionStatus, tokens: number, queued?: boolean): CompactOutcome {
  return {
    applied: false,
    reason: describeOutcome(status),
    status,
    tokensBefore: tokens,
    tokensAfter: tokens,
    checkpoints: [],
    ...(queued ? { queued } : {}),
  };
}

/** Rejects as soon as `signal` aborts, without waiting for `work` (a summarizer may ignore the signal). */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** The summary checkpoint of a prepared compaction (collapse/clip checkpoints have none to edit). */
function summaryCheckpointIndex(prepared: PreparedCompaction): number {
  return prepared.checkpoints.findIndex((cp) => cp.strategy === 'summary' || cp.strategy === 'extractive');
}

export function previewOf(
  prepared: PreparedCompaction,
  focus: string | undefined,
  summarizerName: string,
): CompactionPreview {
  const k = summaryCheckpointIndex(prepared);
  const replaced = prepared.checkpoints.flatMap((cp) => cp.replaced);
  return {
    summary: k >= 0 ? prepared.checkpoints[k].summary : prepared.checkpoints.map((cp) => cp.summary).join('\n'),
    replaced,
    replacedIds: replaced.flatMap((i) => i.covers),
    tokensBefore: prepared.tokensBefore,
    tokensAfter: prepared.tokensAfter,
    summarizerModel: (k >= 0 ? prepared.checkpoints[k].summarizerModel : undefined) ?? summarizerName,
    ...(focus ? { focus } : {}),
  };
}

/** A copy of `prepared` whose summary item carries the user's edited text. */
export function withEditedSummary(prepared: PreparedCompaction, text: string): PreparedCompaction {
  const k = summaryCheckpointIndex(prepared);
  if (k < 0 || text.trim() === '') return prepared;
  const cp = prepared.checkpoints[k];
  const inserted = cp.inserted.map((item, i) =>
    i === 0 && item.kind === 'summary'
      ? {
          ...item,
          message: { role: 'user' as const, content: `${summaryHeader(item.covers.length)}\n\n${text.trim()}` },
        }
      : item,
  );
  const checkpoints = [...prepared.checkpoints];
  checkpoints[k] = { ...cp, summary: text.trim(), inserted };
  return { ...prepared, checkpoints };
}

/** Why a run that threw or was aborted ended: its timeout, a cancellation, or an unexpected error. */
export function runFailure(signal: AbortSignal, error: unknown, timeoutMs: number): ServiceCompactionStatus {
  if (signal.aborted && (signal.reason as Error | undefined)?.name === 'TimeoutError')
    return { kind: 'timed-out', timeoutMs };
  if (signal.aborted) return { kind: 'cancelled' };
  return { kind: 'error', message: (error as Error)?.message ?? String(error) };
}

/** The note shown while the meter is over the trigger and automatic compaction cannot help. */
export function stuckNote(status: CompactionStatus): string {
  const advice =
    status.kind === 'nothing-eligible'
      ? '; the system prompt, tool schemas, pinned messages and the newest step leave too little room: unpin messages, start a new task, lower the reserved output, or use a larger window'
      : '';
  return `Over the compaction trigger and automatic compaction cannot help: ${describeCompaction(status)}${advice}.`;
}

/** True when two notes differ only in their figures (token counts change on every model call). */
export function sameKind(a: string | undefined, b: string | undefined): boolean {
  const kind = (text: string | undefined): string | undefined => text?.replace(/\d+/g, '#');
  return kind(a) === kind(b);
}
