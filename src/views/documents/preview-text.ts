/**
 * The review document of a summary preview: every summary Apply writes, in order, each under a marker
 * line that names it, and the user's edits read back summary by summary. Pure (no `vscode`), so the
 * round trip is unit-tested.
 */
import type { CompactionPreview } from '../../service/records';
import { formatTokensFull } from '../../format/tokens';
import { isContextKeeperSummary, summaryHeader } from '../../compaction/summary/summary-header';
import { emptyEditedSummary } from '../../service/compaction/preview';
import { emptySummaryReason } from '../../service/compaction/outcome';

/** A marker line as {@link previewDocument} writes it: `<!-- summary 2 of 3: … -->`. */
const MARKER = /^<!-- summary (\d+) of (\d+)\b.*-->\s*$/;

/** `12,345`. */
function n(x: number): string {
  return formatTokensFull(x);
}

/**
 * The review document of `preview`: a comment naming the plan and its token figures, then each
 * summary under its marker (what it stands for, who wrote it), after the header line Apply writes
 * first (`summaryHeader`). The text between markers is what Apply writes for that summary (trimmed,
 * as Apply trims it); when a summary is empty, the first comment says Apply refuses it and why.
 */
export function previewDocument(preview: CompactionPreview): string {
  const count = preview.summaries.length;
  const empty = emptyEditedSummary(preview.summaries.map((s) => s.summary));
  const refusal =
    empty === undefined
      ? []
      : [
          `<!-- Apply is refused: ${emptySummaryReason({ summary: empty + 1, of: count, messages: preview.summaries[empty].messages })}. -->`,
        ];
  const lines = [
    `<!-- Proposed compaction: ${count} ${count === 1 ? 'summary' : 'summaries'}, ${n(preview.tokensBefore)} → ${n(preview.tokensAfter)} tokens. This document is read-only: it shows exactly what Apply writes under each marker, the summary's first line included. Edit the summaries in the ContextKeeper sidebar; this view follows the edits. -->`,
    ...refusal,
    ...preview.steps.map((s) => `<!-- also: ${s.replace(/-->/g, '—>')} -->`),
    '',
  ];
  preview.summaries.forEach((s, k) => {
    const by = s.summarizerModel ? `, by ${s.summarizerModel}` : '';
    lines.push(`<!-- summary ${k + 1} of ${count}: ${s.coverage ?? `${n(s.messages)} messages`}${by} -->`, '');
    lines.push(summaryHeader(s.messages), '', s.summary.trim(), '');
  });
  return lines.join('\n');
}

/**
 * The summaries of a review document as the user left them, in order; undefined when its markers
 * are not exactly summaries 1 to `count` in order (a marker deleted or changed), so nothing is
 * guessed.
 */
export function parsePreviewDocument(text: string, count: number): string[] | undefined {
  const parts: string[][] = [];
  for (const line of text.split('\n')) {
    const m = MARKER.exec(line);
    if (m) {
      if (Number(m[1]) !== parts.length + 1 || Number(m[2]) !== count) return undefined;
      parts.push([]);
    } else if (parts.length > 0) parts[parts.length - 1].push(line);
  }
  // The header line is written by Apply, not part of the summary's editable text.
  const summary = (p: string[]) => {
    const text = p.join('\n').trim();
    return isContextKeeperSummary(text) ? text.slice(text.indexOf(']') + 1).trim() : text;
  };
  return parts.length === count ? parts.map(summary) : undefined;
}
