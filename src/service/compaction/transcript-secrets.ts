/**
 * The secret values of a session's whole raw transcript, for `CompactionOptions.knownSecretValues`:
 * an earlier summary holds masks, not values, so a later message that repeats a value without its
 * assignment would reach the next summary unmasked unless the values of the messages it replaced are
 * known. Kept as the transcript grows: each message is scanned once in its life (the service brings
 * the set up to date as it appends, so a compaction only reads what is already known). A transcript
 * replaced by a load or an import is read from its start, once, at the next compaction, in slices of
 * the host's time: one pass at 100k messages takes seconds of CPU, which in one piece would stop the
 * extension host (and, read on the first append, the agent's step).
 */
import type { Entry } from '../../compaction/types';
import { messageSecretValues } from '../../compaction/secret-values';
import { TimeSlices } from '../../lifecycle/time-slices';

/** Milliseconds of wall time one slice of a catch-up takes at most (about; see `TimeSlices`). */
const SLICE_MS = 8;

/**
 * Most entries an append reads at once to catch up: a transcript further behind (replaced or never
 * read) is read by the next {@link TranscriptSecrets.values}, in slices.
 */
const APPEND_READS = 64;

/** The running set of a transcript's secret values. */
export class TranscriptSecrets {
  private entries: readonly Entry[] | undefined;
  private count = 0;
  private readonly found = new Set<string>();
  private sorted: readonly string[] | undefined = [];

  /**
   * Reads the entries of `entries` appended since the last reading, when they are few (an append's);
   * a transcript further behind (another array, as after a load or an import, or one shorter than
   * the one read) is left to {@link values}.
   */
  sync(entries: readonly Entry[]): void {
    this.adopt(entries);
    if (entries.length - this.count > APPEND_READS) return;
    while (this.count < entries.length) this.readNext(entries, true);
  }

  /**
   * Every secret value of `entries`, longest first, as `spanSecretValues` orders them (values of one
   * length in the order the transcript first holds them). Entries not read yet are read in slices of
   * about {@link SLICE_MS} ms, each in a turn of the event loop of its own. Rejects with the reason of
   * `signal` when it aborts between two slices.
   */
  async values(entries: readonly Entry[], signal?: AbortSignal): Promise<readonly string[]> {
    this.adopt(entries);
    const slices = new TimeSlices(SLICE_MS);
    while (this.count < entries.length) {
      // A catch-up reads each message once; its values are not kept per message (see messageSecretValues).
      this.readNext(entries, false);
      if (slices.due()) {
        await slices.turn();
        signal?.throwIfAborted();
        // Another transcript (a load or an import in between) took the set over: this one is read on its own.
        if (this.entries !== entries) return valuesAlone(entries, signal);
      }
    }
    this.sorted ??= sortedValues(this.found);
    return this.sorted;
  }

  /** Starts over when `entries` is not the transcript read (or is shorter than what was read of it). */
  private adopt(entries: readonly Entry[]): void {
    if (entries === this.entries && entries.length >= this.count) return;
    this.entries = entries;
    this.count = 0;
    this.found.clear();
    this.sorted = undefined;
  }

  /** Reads the next entry; `keep`: whether its values are kept per message for the compactor. */
  private readNext(entries: readonly Entry[], keep: boolean): void {
    // Values of one length keep the order the message holds them, as in `spanSecretValues`.
    for (const value of messageSecretValues(entries[this.count].message, keep)) {
      if (!this.found.has(value)) this.sorted = undefined;
      this.found.add(value);
    }
    this.count++;
  }
}

/** Longest first; values of one length in the order they were found (the sort is stable). */
function sortedValues(found: ReadonlySet<string>): string[] {
  return [...found].sort((a, b) => b.length - a.length);
}

/** The values of `entries` read apart from any kept set, in slices, as {@link TranscriptSecrets.values} orders them. */
async function valuesAlone(entries: readonly Entry[], signal?: AbortSignal): Promise<readonly string[]> {
  const own = new TranscriptSecrets();
  return own.values(entries, signal);
}
