/**
 * A message's content as text. Content is a string, an array of parts (`text`, `refusal`,
 * `image_url`, `file`, `input_audio`…) or absent; every reader of it goes through one of the named
 * variants here, which differ only in what a part that is not text becomes:
 *
 * - {@link plainText}: nothing (the words alone: imports, checks against tool output, prompts);
 * - {@link textWithPlaceholders}: a short placeholder such as `[image 800x600]` or `[file report.pdf]`
 *   (summarizer input, collapsed records, the sidebar, handoffs, recall);
 * - {@link textWithOmissions}: a note that the part was left out (a model source that takes text only).
 *
 * Base64 data never appears in any of them. Text and refusal parts count as text in all three.
 */
import { imageSizeFromDataUrl } from './meter/images';

/** How one part that is not text or a refusal is written, or undefined to leave it out. */
type PartText = (part: Record<string, unknown>) => string | undefined;

/** The text and refusal parts of `content` (and `other`'s text for the rest), empty ones dropped, joined by `separator`. */
function joinParts(content: unknown, other: PartText, separator: string): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const out: string[] = [];
  for (const part of content as unknown[]) {
    if (typeof part !== 'object' || part === null) continue;
    const p = part as Record<string, unknown>;
    const text = p.type === 'text' ? p.text : p.type === 'refusal' ? p.refusal : other(p);
    if (typeof text === 'string' && text.length > 0) out.push(text);
  }
  return out.join(separator);
}

/**
 * The words of `content`: text and refusal parts, empty ones dropped, joined by `separator` (`'\n'`;
 * the importers join a recorded message's paragraphs with `'\n\n'`). Other parts leave no trace.
 */
export function plainText(content: unknown, separator = '\n'): string {
  return joinParts(content, () => undefined, separator);
}

/**
 * The text of `content` with every other part as a placeholder, joined by newlines: an image as
 * `[image 800x600]` (its size read from a data URL), `[image]` (a data URL of unknown size) or
 * `[image URL]` (a link, first 200 characters); a file as `[file NAME]`; anything else as `[TYPE]`.
 */
export function textWithPlaceholders(content: unknown): string {
  return joinParts(content, placeholder, '\n');
}

function placeholder(p: Record<string, unknown>): string {
  if (p.type === 'image_url') {
    const url = (p.image_url as { url?: unknown } | undefined)?.url;
    const href = typeof url === 'string' ? url : '';
    const size = imageSizeFromDataUrl(href);
    if (size) return `[image ${size.width}x${size.height}]`;
    return href.startsWith('data:') ? '[image]' : `[image ${href.slice(0, 200)}]`;
  }
  if (p.type === 'file') {
    const name = (p.file as { filename?: unknown } | undefined)?.filename;
    return typeof name === 'string' && name ? `[file ${name}]` : '[file]';
  }
  return `[${String(p.type)}]`;
}

/**
 * The text of `content` for a model source that takes text only, joined by newlines: every other
 * part becomes `[image omitted: not supported by this model source]` (`[TYPE omitted: …]` for the rest).
 */
export function textWithOmissions(content: unknown): string {
  return joinParts(
    content,
    (p) => `[${p.type === 'image_url' ? 'image' : String(p.type)} omitted: not supported by this model source]`,
    '\n',
  );
}
