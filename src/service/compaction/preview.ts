/**
 * The summary preview of a manual compaction: what the user is shown, and the prepared compaction
 * with the user's edited text in place of the summary.
 */
import { summaryHeader } from '../../compaction/rewrite/compactor';
import type { PreparedCompaction } from '../../compaction/rewrite/commit';
import type { CompactionPreview } from '../records';

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
