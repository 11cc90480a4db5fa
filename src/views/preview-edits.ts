/**
 * The sidebar's edits of a pending summary preview, kept with the preview they belong to. Apply (from
 * any surface) writes them, the review document shows them, and the sidebar's card is rebuilt from
 * them when its page reloads, so what the boxes show is always what Apply writes.
 */
import type { ContextServiceApi } from '../service/api';
import type { CompactionPreview } from '../service/records';

/**
 * The latest texts of a preview's summaries, with the preview (by identity) they belong to, and the
 * tokens after Apply counted on these texts (undefined until counted: see {@link countPreviewEdits}).
 */
let edits: { preview: CompactionPreview; texts: readonly string[]; tokensAfter?: number } | undefined;

/**
 * Keeps `texts` (one per summary, in order) as the edits of the preview pending in `service`.
 * Returns that preview with the texts in place of its summaries, or undefined (nothing kept) when no
 * preview is pending or the texts do not match its summaries one for one.
 */
export function keepPreviewEdits(
  service: ContextServiceApi | undefined,
  texts: readonly string[],
): CompactionPreview | undefined {
  const preview = service?.getPreview();
  if (!preview || texts.length !== preview.summaries.length) return undefined;
  // The last count stays shown until the new texts are counted (the figure lags the typing by a pause).
  const counted = edits?.preview === preview ? edits.tokensAfter : undefined;
  edits = { preview, texts: [...texts], ...(counted !== undefined ? { tokensAfter: counted } : {}) };
  return withTexts(preview, edits.texts, edits.tokensAfter);
}

/**
 * Counts the tokens after Apply on the kept edits of the preview pending in `service` (exact, as Apply
 * counts them) and keeps the figure with them; returns it, or undefined when no edits of that preview
 * are kept. O(edited text): call it after the typing pauses, not on every keystroke.
 */
export function countPreviewEdits(service: ContextServiceApi | undefined): number | undefined {
  const preview = service?.getPreview();
  if (!service || !edits || !preview || edits.preview !== preview) return undefined;
  const tokensAfter = service.previewTokensAfter(edits.texts);
  if (tokensAfter === undefined) return undefined;
  edits = { ...edits, tokensAfter };
  return tokensAfter;
}

/**
 * The texts of the preview pending in `service` as the sidebar last showed them (one per summary, in
 * order), when they were edited there; undefined when it shows the proposed summaries (no edit, or
 * the edits belong to a preview that has ended).
 */
export function editedPreviewTexts(service: ContextServiceApi | undefined): readonly string[] | undefined {
  const preview = service?.getPreview();
  if (!edits || !preview || edits.preview !== preview) return undefined;
  return edits.texts;
}

/** The preview pending in `service` as the sidebar shows it: its summaries as edited, if they were. */
export function shownPreview(service: ContextServiceApi | undefined): CompactionPreview | undefined {
  const preview = service?.getPreview();
  const texts = editedPreviewTexts(service);
  return preview && texts ? withTexts(preview, texts, edits?.tokensAfter) : preview;
}

function withTexts(preview: CompactionPreview, texts: readonly string[], tokensAfter?: number): CompactionPreview {
  return {
    ...preview,
    summaries: preview.summaries.map((s, k) => ({ ...s, summary: texts[k] })),
    ...(tokensAfter !== undefined ? { tokensAfter } : {}),
  };
}
