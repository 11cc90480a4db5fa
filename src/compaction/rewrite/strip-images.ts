/**
 * Image eviction: replaces the image parts of older messages with text placeholders, one message for
 * one, recorded as a checkpoint. Providers limit images per request (OpenAI and Anthropic refuse
 * requests past a count, or with an oversized image among many) independently of tokens, and the whole
 * history is re-sent every call, so one bad image blocks every later request, compaction included.
 */
import type { Checkpoint, ChatMessage, ContextItem, ToolSchema } from '../types';
import type { TokenMeter } from '../meter/meter';
import { imageSizeFromDataUrl } from '../meter/images';
import { applyCheckpoint } from '../context';
import { keepSummaryMark } from '../tool-outcomes';

/** Number of `image_url` parts in a message. */
export function imageCount(message: ChatMessage): number {
  const content = (message as { content?: unknown }).content;
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const p of content as Array<{ type?: string }>) if (p.type === 'image_url') n++;
  return n;
}

/** Number of images a request with `items` would carry. */
export function contextImageCount(items: readonly ContextItem[]): number {
  let n = 0;
  for (const it of items) n += imageCount(it.message);
  return n;
}

function withoutImages(message: ChatMessage): ChatMessage {
  const content = (message as unknown as { content: Array<Record<string, unknown>> }).content.map((p) => {
    if (p.type !== 'image_url') return p;
    const url = (p.image_url as { url?: string } | undefined)?.url ?? '';
    const size = imageSizeFromDataUrl(url);
    return {
      type: 'text',
      text: `[image${size ? ` ${size.width}x${size.height}` : ''} removed from the context; kept in ContextKeeper's checkpoint history]`,
    };
  });
  return { ...message, content } as unknown as ChatMessage;
}

/**
 * Replaces images of the oldest messages until at most `maxImages` remain (0 strips all). Pinned
 * items and leading system messages keep theirs. Returns undefined when nothing needs to change.
 * The checkpoint is one-for-one (`collapse`), so it can be undone like any other.
 */
export function stripImages(
  items: readonly ContextItem[],
  maxImages: number,
  meter: TokenMeter,
  tools?: readonly ToolSchema[],
  trigger: Checkpoint['trigger'] = 'auto',
  now = new Date(),
): { checkpoint: Checkpoint; context: ContextItem[] } | undefined {
  let excess = contextImageCount(items) - Math.max(0, maxImages);
  if (excess <= 0) return undefined;
  const id = `ck-${globalThis.crypto.randomUUID().slice(0, 8)}`;
  const replaced: ContextItem[] = [];
  const inserted: ContextItem[] = [];
  for (const it of items) {
    if (excess <= 0) break;
    const n = imageCount(it.message);
    if (n === 0 || it.pinned || it.message.role === 'system') continue;
    replaced.push(it);
    const message = withoutImages(it.message);
    keepSummaryMark(it.message, message);
    inserted.push({
      id: `${it.id}~i`,
      kind: 'collapsed',
      message,
      covers: [...it.covers],
      checkpointId: id,
    });
    excess -= n;
  }
  if (replaced.length === 0) return undefined;
  const checkpoint: Checkpoint = {
    id,
    time: now.toISOString(),
    trigger,
    strategy: 'collapse',
    replacedIds: replaced.flatMap((r) => r.covers),
    replaced,
    inserted,
    summary: `Replaced the images of ${replaced.length} older message${replaced.length === 1 ? '' : 's'} with placeholders (at most ${maxImages} images per request).`,
    tokensBefore: meter.measure(items, tools).total,
    tokensAfter: 0,
  };
  const context = applyCheckpoint(items, checkpoint);
  checkpoint.tokensAfter = meter.measure(context, tools).total;
  return { checkpoint, context };
}
