/**
 * Small pieces of a compaction's summary step (./compactor): the note naming dropped re-attached
 * files and checkpoint ids.
 */
import type { ContextItem } from '../types';

/** One line naming the re-attached file copies a summary drops, or '' when it drops none. */
export function droppedFilesNote(items: readonly ContextItem[]): string {
  const paths = [...new Set(items.map((i) => i.attachedFile).filter((p): p is string => p !== undefined))];
  return paths.length === 0
    ? ''
    : `Files re-attached earlier, their copies now dropped (read them again for current contents): ${paths.join(', ')}`;
}

/** A new checkpoint id: `ck-` and 8 hexadecimal characters. */
export function newId(): string {
  return `ck-${globalThis.crypto.randomUUID().slice(0, 8)}`;
}
