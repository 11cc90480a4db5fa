/**
 * Keeps the images a request carries within the provider's per-request limit: the oldest ones past
 * it become placeholders, as one undoable checkpoint (`compaction/strip-images.ts` does the rewrite).
 */
import { stripImages } from '../../compaction/rewrite/strip-images';
import type { CompactionHost } from './compaction-host';

/**
 * Replaces the oldest images past `maxImages` with placeholders and commits that as one checkpoint;
 * does nothing when `maxImages` is undefined or the context is within it. A failed save is logged,
 * never thrown (the context then stays as it was).
 *
 * @param maxImages Most images one request may carry (the `maxImages` option), or undefined for no limit.
 */
export function evictImages(host: CompactionHost, maxImages: number | undefined): void {
  if (maxImages === undefined) return;
  const items = host.items();
  const stripped = stripImages(items, maxImages, host.meter, host.tools(), 'auto');
  if (!stripped) return;
  const { checkpoint, context } = stripped;
  host.log('info', `images over the limit of ${maxImages} per request: ${checkpoint.summary}`);
  // Not reported to the guard: it is not a token compaction and must not block one in this call.
  try {
    const { strategy, tokensBefore, tokensAfter } = checkpoint;
    host.commit({
      status: {
        kind: 'applied',
        tokensBefore,
        tokensAfter,
        checkpoints: 1,
        steps: [{ strategy, tokensBefore, tokensAfter }],
      },
      tokensBefore: checkpoint.tokensBefore,
      tokensAfter: checkpoint.tokensAfter,
      checkpoints: [checkpoint],
      context,
    });
  } catch (error) {
    host.log('error', `image placeholders not applied: saving the session failed (${(error as Error).message})`);
  }
}
