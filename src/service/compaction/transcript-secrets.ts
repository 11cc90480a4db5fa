/**
 * The secret values of a session's whole raw transcript, for `CompactionOptions.knownSecretValues`:
 * an earlier summary holds masks, not values, so a later message that repeats a value without its
 * assignment would reach the next summary unmasked unless the values of the messages it replaced are
 * known. Kept as the transcript grows: each message is scanned once in its life (the service brings
 * the set up to date as it appends, so a compaction only reads what is already known); a transcript
 * replaced by a load or an import is read again from its start, once, at the next use.
 */
import type { Entry } from '../../compaction/types';
import { spanSecretValues } from '../../compaction/secret-values';

/** The running set of a transcript's secret values. */
export class TranscriptSecrets {
  private entries: readonly Entry[] | undefined;
  private count = 0;
  private readonly found = new Set<string>();
  private sorted: readonly string[] | undefined = [];

  /**
   * Reads the entries of `entries` appended since the last call (all of them when it is another
   * array, as after a load or an import, or shorter than the one read).
   */
  sync(entries: readonly Entry[]): void {
    if (entries !== this.entries || entries.length < this.count) {
      this.entries = entries;
      this.count = 0;
      this.found.clear();
      this.sorted = undefined;
    }
    for (; this.count < entries.length; this.count++) {
      // One message at a time: spans this short leave the compactor's kept reading alone.
      for (const value of spanSecretValues([entries[this.count]])) {
        if (!this.found.has(value)) this.sorted = undefined;
        this.found.add(value);
      }
    }
  }

  /** Every secret value of `entries` (see {@link sync}), longest first, as `spanSecretValues` orders them. */
  values(entries: readonly Entry[]): readonly string[] {
    this.sync(entries);
    this.sorted ??= [...this.found].sort((a, b) => b.length - a.length);
    return this.sorted;
  }
}
