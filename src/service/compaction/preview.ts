/**
 * The summary preview of a manual compaction: every summary Apply will write, in order, and the
 * prepared compaction with the user's edited texts in place of those summaries.
 */
import type { ChatMessage, Checkpoint, ContextItem } from '../../compaction/types';
import { summaryHeader } from '../../compaction/summary/summary-header';
import { handAddedLines } from '../../compaction/summary/hand-lines';
import { describeCoverage } from '../../compaction/summary/coverage';
import { scorecardInContext } from '../../compaction/retention/scorecard';
import type { PreparedCompaction } from '../../compaction/rewrite/commit';
import type { CompactionPreview, PreviewSummary } from '../records';

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
 * The position (0-based, in {@link previewOf}'s order) of the first edited summary that is empty or
 * whitespace only, or undefined when there is none. Apply refuses such a preview rather than write
 * nothing in place of the messages that summary replaces, or silently keep the proposed text the
 * preview no longer shows. Undefined entries (not edited) are not empty.
 */
export function emptyEditedSummary(edited: readonly (string | undefined)[] | undefined): number | undefined {
  const k = edited?.findIndex((text) => text !== undefined && text.trim() === '') ?? -1;
  return k < 0 ? undefined : k;
}

/** The summary message Apply writes for a summary item covering `covers` messages with `text` (trimmed). */
function summaryMessage(covers: number, text: string): { role: 'user'; content: string } {
  return { role: 'user', content: `${summaryHeader(covers)}\n\n${text.trim()}` };
}

/**
 * Tokens after applying `prepared` with `edited` in place of its summaries (as
 * {@link withEditedSummaries} writes them): `prepared.tokensAfter` plus, per edited summary, the count
 * of its message as written less the count of the proposed one (`countMessage`: the meter's exact
 * per-message count, overhead included, which the context's total sums). O(edited text).
 */
export function editedTokensAfter(
  prepared: PreparedCompaction,
  edited: readonly (string | undefined)[],
  countMessage: (message: ChatMessage) => number,
): number {
  let k = -1;
  let after = prepared.tokensAfter;
  for (const cp of prepared.checkpoints) {
    if (!isSummary(cp)) continue;
    const given = edited[++k];
    const item = cp.inserted[0];
    if (given === undefined || given.trim() === cp.summary || item?.kind !== 'summary') continue;
    // The proposed message itself: the meter has its count cached from the preparation.
    after += countMessage(summaryMessage(item.covers.length, given)) - countMessage(item.message);
  }
  return after;
}

/**
 * A copy of `prepared` whose summaries carry the user's edited texts: `edited[k]` replaces the k-th
 * summary (in {@link previewOf}'s order), trimmed, and marks its checkpoint `editedByHand`; undefined
 * or unchanged keeps it as proposed. Throws when an edited text is empty or whitespace only (the
 * caller refuses those first, see {@link emptyEditedSummary}). `items`: the context `prepared` was prepared on (the caller checks
 * it has not changed); an edited summary is scored with the items after its span, as the proposed one was.
 */
export function withEditedSummaries(
  prepared: PreparedCompaction,
  edited: readonly (string | undefined)[],
  items: readonly ContextItem[],
): PreparedCompaction {
  let k = -1;
  const checkpoints = prepared.checkpoints.map((cp) => {
    if (!isSummary(cp)) return cp;
    const given = edited[++k];
    if (given === undefined) return cp;
    const text = given.trim();
    if (!text) throw new Error(`summary ${k + 1} is empty`);
    if (text === cp.summary) return cp;
    // The lines the user added are kept on the summary item, told apart from the generated text: a
    // later summary of this one carries them whole.
    const inserted = cp.inserted.map((item, i) => {
      if (i !== 0 || item.kind !== 'summary') return item;
      const { handLines: _carried, ...plain } = item;
      const handLines = handAddedLines(cp.summary, text, item.handLines);
      return {
        ...plain,
        message: summaryMessage(item.covers.length, text),
        ...(handLines.length ? { handLines } : {}),
      };
    });
    // The scorecard judges the text the user wrote, not the one that was proposed.
    const { retention: _proposed, ...rest } = cp;
    const retention = scorecardInContext({ replaced: cp.replaced, inserted }, items);
    return { ...rest, summary: text, inserted, editedByHand: true, ...(retention ? { retention } : {}) };
  });
  return { ...prepared, checkpoints };
}
