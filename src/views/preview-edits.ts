/**
 * The sidebar's edits of a pending summary preview, kept with the preview they belong to. Apply (from
 * any surface) writes them, the review document shows them, and the sidebar's card is rebuilt from
 * them when its page reloads, so what the boxes show is always what Apply writes.
 */
import type { ContextServiceApi } from '../service/api';
import type { CompactionPreview } from '../service/records';

/** The latest texts of a preview's summaries, with the preview (by identity) they belong to. */
let edits: { preview: CompactionPreview; texts: readonly string[] } | undefined;

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
  edits = { preview, texts: [...texts] };
  return withTexts(preview, edits.texts);
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
  return preview && texts ? withTexts(preview, texts) : preview;
}

function withTexts(preview: CompactionPreview, texts: readonly string[]): CompactionPreview {
  return { ...preview, summaries: preview.summaries.map((s, k) => ({ ...s, summary: texts[k] })) };
}
