/**
 * Small pure parts of the compaction coordinator: outcome records, racing a run against cancellation,
 * and the summary preview (its view and the user's edit).
 */
import type { Checkpoint } from '../../compaction/types';
import { summaryHeader } from '../../compaction/rewrite/compactor';
import { describeOutcome, type ServiceCompactionStatus, type CompactOutcome } from './outcome';
import type { CompactionStatus, CompactionResult } from '../../compaction/outcome';
import { describeCoverage } from '../../compaction/summary/coverage';
import { describeCompaction } from '../../compaction/outcome-text';
import type { PreparedCompaction } from '../../compaction/rewrite/commit';
import type { CheckpointRecord, CompactionPreview, PreviewSummary } from '../records';

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

/** True for the checkpoints that write a summary the user can read and edit. */
function isSummary(cp: Checkpoint): boolean {
  return cp.strategy === 'summary' || cp.strategy === 'extractive';
}

/**
 * The preview of `prepared`: every summary it writes, in order, the other rewrites in words, and the
 * tokens after applying it as it stands (`prepared.tokensAfter`, measured on the context it was
 * prepared on, re-attached files included).
 */
export function previewOf(
  prepared: PreparedCompaction,
  focus: string | undefined,
  summarizerName: string,
): CompactionPreview {
  const replaced = prepared.checkpoints.flatMap((cp) => cp.replaced);
  const summaries: PreviewSummary[] = prepared.checkpoints.filter(isSummary).map((cp) => ({
    checkpointId: cp.id,
    summary: cp.summary,
    messages: cp.inserted[0]?.covers.length ?? 0,
    ...(cp.summarizerModel ? { summarizerModel: cp.summarizerModel } : {}),
    ...(cp.coverage ? { coverage: describeCoverage(cp.coverage) } : {}),
  }));
  const steps: string[] = [];
  for (const cp of prepared.checkpoints) {
    if (!isSummary(cp)) steps.push(cp.summary);
    for (const file of cp.attachedFiles ?? [])
      steps.push(`Re-attaches ${file.path} (${file.tokens.toLocaleString('en-US')} tokens, current contents)`);
  }
  return {
    summaries,
    steps,
    replaced,
    replacedIds: replaced.flatMap((i) => i.covers),
    tokensBefore: prepared.tokensBefore,
    tokensAfter: prepared.tokensAfter,
    summarizerModel: summaries[0]?.summarizerModel ?? summarizerName,
    ...(focus ? { focus } : {}),
  };
}

/**
 * A copy of `prepared` whose summaries carry the user's edited texts: `edited[k]` replaces the k-th
 * summary (in {@link previewOf}'s order); undefined, blank or unchanged keeps it.
 */
export function withEditedSummaries(
  prepared: PreparedCompaction,
  edited: readonly (string | undefined)[],
): PreparedCompaction {
  let k = -1;
  const checkpoints = prepared.checkpoints.map((cp) => {
    if (!isSummary(cp)) return cp;
    const text = edited[++k]?.trim();
    if (!text || text === cp.summary) return cp;
    const inserted = cp.inserted.map((item, i) =>
      i === 0 && item.kind === 'summary'
        ? { ...item, message: { role: 'user' as const, content: `${summaryHeader(item.covers.length)}\n\n${text}` } }
        : item,
    );
    return { ...cp, summary: text, inserted };
  });
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
