/**
 * The success flag a tool result carries, kept with the message object it belongs to: importers
 * and the agent record it in `EntryMeta.toolOk` (Claude Code's and Cline's `is_error`, Codex's
 * `success` or exit code, OpenHands' error events, the product's own tool host), and context items
 * are built from entries without their metadata. The summary's ledger reads the flag here, so a
 * tool's outcome comes from what the recording says, not from how its output reads.
 *
 * Pure: no I/O. Messages are never mutated, so the flag of a message object never changes.
 */
import type { ChatMessage, Entry } from './types';

const outcomes = new WeakMap<object, boolean>();

/** Keeps `entry.meta.toolOk` (when recorded) with `entry.message`. Returns the message. */
export function keepToolOutcome(entry: Entry): ChatMessage {
  const ok = entry.meta?.toolOk;
  if (ok !== undefined && entry.message && typeof entry.message === 'object') outcomes.set(entry.message, ok);
  return entry.message;
}

/** Records that the tool result `message` succeeded (`true`) or failed (`false`). */
export function recordToolOutcome(message: ChatMessage, ok: boolean): void {
  outcomes.set(message, ok);
}

/** The recorded success flag of a tool result message, or undefined when nothing recorded one. */
export function recordedToolOutcome(message: ChatMessage | undefined): boolean | undefined {
  return message ? outcomes.get(message) : undefined;
}
