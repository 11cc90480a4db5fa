/**
 * How many messages an import gives, counted as the session stores them: the recorded messages plus
 * the placeholder results added for tool calls the recording never answered (the same repair the
 * context service applies, `importedEntries`). The checkpoint rows count the same stored messages,
 * so the import notice and a later "N replaced" agree.
 */
import type { Entry } from '../compaction/types';
import { repairToolPairing } from '../compaction/plan/repair';
import type { CheckpointRecord } from '../service/records';

/** Counts of one import, in messages. */
export interface ImportCount {
  /** Messages the session stores (what checkpoints count). */
  stored: number;
  /** Messages read from the recording. */
  recorded: number;
  /** Placeholder tool results added for calls with no recorded result. */
  placeholders: number;
}

/** Counts the messages `entries` (an importer's output) become once stored. */
export function importCount(entries: readonly Entry[]): ImportCount {
  const repaired = repairToolPairing(entries, { closeTrailing: true });
  return { stored: repaired.entries.length, recorded: entries.length, placeholders: repaired.addedResults };
}

/**
 * "674 messages (666 recorded + 8 placeholder results)", or "12 messages" when nothing was added
 * (short: it goes in a toast; the log says what the placeholders are).
 */
export function describeImportCount(c: ImportCount): string {
  const messages = `${c.stored} message${c.stored === 1 ? '' : 's'}`;
  if (!c.placeholders) return messages;
  return `${messages} (${c.recorded} recorded + ${c.placeholders} placeholder result${c.placeholders === 1 ? '' : 's'})`;
}

/** Longest import notice, in characters: about the width of one line of a VS Code toast. */
export const IMPORT_NOTICE_MAX_CHARS = 70;

/**
 * The import's notification: the stored message count first (what a cut toast still shows), then the
 * format and the number of warnings. `details` is true when there is more to read (placeholder results
 * added, warnings): the log holds it, offered by a "Show Details" button. Never longer than
 * {@link IMPORT_NOTICE_MAX_CHARS} for fewer than a million messages and a thousand warnings
 * (format names are a dozen characters at most).
 */
export function importNotice(c: ImportCount, format: string, warnings: number): { text: string; details: boolean } {
  const messages = `${c.stored} message${c.stored === 1 ? '' : 's'}`;
  const warned = warnings ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : '';
  return {
    text: `ContextKeeper: ${messages} imported (${format})${warned}.`,
    details: c.placeholders > 0 || warnings > 0,
  };
}

/**
 * The prompt tokens of an imported recording as imported, once ContextKeeper's own compaction has
 * changed its context: the `tokensBefore` of the first ContextKeeper checkpoint (the recording's own
 * compactions, trigger `import`, are part of it as imported; nothing is added to a recording, so
 * that checkpoint started from the imported context). Undefined while no ContextKeeper checkpoint is
 * in force (all restored, or none): the count is then the recording's own. O(checkpoints).
 */
export function countAsImported(
  checkpoints: readonly Pick<CheckpointRecord, 'trigger' | 'restored' | 'tokensBefore'>[],
): number | undefined {
  const own = checkpoints.filter((c) => c.trigger !== 'import');
  return own.some((c) => !c.restored) ? own[0].tokensBefore : undefined;
}
