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

/**
 * A new checkpoint id: `ck-` and 8 random decimal digits. A summary names its checkpoint in its last
 * line, so the id is counted in the summary's budget: tiktoken's encodings split a run of digits into
 * pieces of up to three, each one token, so every id costs the same tokens and a compaction's result
 * does not depend on which id it drew (hexadecimal ids tokenize into 3 to 6 tokens).
 */
export function newId(): string {
  const n = globalThis.crypto.getRandomValues(new Uint32Array(1))[0] % 100_000_000;
  return `ck-${String(n).padStart(8, '0')}`;
}
