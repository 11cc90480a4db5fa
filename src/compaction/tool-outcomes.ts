/**
 * The success flag a tool result carries, kept with the message object it belongs to (and the marks
 * of a person's reply, of a harness's message in the user role and of a summary an earlier
 * compaction wrote, read back from the recording): importers
 * and the agent record it in `EntryMeta.toolOk` (Claude Code's and Cline's `is_error`, Codex's
 * `success` or exit code, OpenHands' error events, the product's own tool host), and context items
 * are built from entries without their metadata. The summary's ledger reads the flag here, so a
 * tool's outcome comes from what the recording says, not from how its output reads.
 *
 * Pure: no I/O. Messages are never mutated, so the flag of a message object never changes.
 */
import type { ChatMessage, Entry } from './types';

const outcomes = new WeakMap<object, boolean>();
const humanReplies = new WeakSet<object>();
const harnessTexts = new WeakSet<object>();
const editsListed = new WeakSet<object>();
const recordedSummaries = new WeakSet<object>();
const chosenOptions = new WeakSet<object>();

/**
 * Keeps `entry.meta.toolOk`, `entry.meta.humanReply`, `entry.meta.harnessText`,
 * `entry.meta.importedSummary` and `entry.meta.chosenOption` (when recorded) with `entry.message`. Returns the message.
 */
export function keepToolOutcome(entry: Entry): ChatMessage {
  const ok = entry.meta?.toolOk;
  if (!entry.message || typeof entry.message !== 'object') return entry.message;
  if (ok !== undefined) outcomes.set(entry.message, ok);
  if (entry.meta?.humanReply === true) humanReplies.add(entry.message);
  if (entry.meta?.harnessText === true) harnessTexts.add(entry.message);
  if (entry.meta?.editsListed === true) editsListed.add(entry.message);
  if (entry.meta?.importedSummary === true) recordedSummaries.add(entry.message);
  if (entry.meta?.chosenOption === true) chosenOptions.add(entry.message);
  return entry.message;
}

/**
 * True when the recording marks the user message `message` as written by the harness, not typed
 * (`EntryMeta.harnessText`, Claude Code's `isMeta`).
 */
export function isRecordedHarnessText(message: ChatMessage | undefined): boolean {
  return !!message && harnessTexts.has(message);
}

/**
 * True when the recording marks the message `message` as a summary an earlier compaction wrote
 * (`EntryMeta.importedSummary`: the recording agent's own compaction, or ContextKeeper's read back
 * from a file `compact --out` wrote). Such a message stands for earlier messages: nobody typed it.
 */
export function isRecordedSummary(message: ChatMessage | undefined): boolean {
  return !!message && recordedSummaries.has(message);
}

/**
 * Marks `copy`, a shortened copy of `original` (clipped, its images taken out), as a recorded summary
 * when `original` is one ({@link isRecordedSummary}): shortening a summary does not make it a message
 * the user typed, so it must not become the latest-request anchor.
 */
export function keepSummaryMark(original: ChatMessage, copy: ChatMessage): void {
  if (copy && typeof copy === 'object' && recordedSummaries.has(original)) recordedSummaries.add(copy);
}

/**
 * True when the assistant message `message` lists the edits that were applied (`EntryMeta.editsListed`,
 * an Aider reply): only its edit blocks with an `> Applied edit to` notice changed a file.
 */
export function listsAppliedEdits(message: ChatMessage | undefined): boolean {
  return !!message && editsListed.has(message);
}

/** Records that the tool result `message` is the person's reply (as `EntryMeta.humanReply` says). */
export function recordHumanReply(message: ChatMessage): void {
  humanReplies.add(message);
}

/** True when the recording marks the tool result `message` as the person's reply (`EntryMeta.humanReply`). */
export function isHumanReply(message: ChatMessage | undefined): boolean {
  return !!message && humanReplies.has(message);
}

/**
 * True when the recording marks the person's reply `message` as an option the agent's question
 * offered, clicked rather than typed (`EntryMeta.chosenOption`): no typed request.
 */
export function isChosenOption(message: ChatMessage | undefined): boolean {
  return !!message && chosenOptions.has(message);
}

/** Records that the tool result `message` succeeded (`true`) or failed (`false`). */
export function recordToolOutcome(message: ChatMessage, ok: boolean): void {
  outcomes.set(message, ok);
}

/** The recorded success flag of a tool result message, or undefined when nothing recorded one. */
export function recordedToolOutcome(message: ChatMessage | undefined): boolean | undefined {
  return message ? outcomes.get(message) : undefined;
}

/**
 * The marks kept with `message` (its success flag, a person's reply, a harness's text) as one small
 * number, for a copy of the message made elsewhere (a structured clone sent to a worker thread keeps
 * no marks: they live beside the message object, not in it). Bits: 1 a flag is recorded, 2 the flag
 * is success, 4 a person's reply, 8 a harness's text, 16 a reply that lists its applied edits, 32 a
 * summary read back from the recording, 64 an option the person clicked. 0 when none.
 */
export function marksOf(message: ChatMessage): number {
  const ok = outcomes.get(message);
  return (
    (ok === undefined ? 0 : ok ? 3 : 1) |
    (humanReplies.has(message) ? 4 : 0) |
    (harnessTexts.has(message) ? 8 : 0) |
    (editsListed.has(message) ? 16 : 0) |
    (recordedSummaries.has(message) ? 32 : 0) |
    (chosenOptions.has(message) ? 64 : 0)
  );
}

/** Keeps the marks `marks` ({@link marksOf}) with `message`, a copy of the message they were read from. */
export function keepMarks(message: ChatMessage, marks: number): void {
  if (!message || typeof message !== 'object' || marks === 0) return;
  if (marks & 1) outcomes.set(message, (marks & 2) !== 0);
  if (marks & 4) humanReplies.add(message);
  if (marks & 8) harnessTexts.add(message);
  if (marks & 16) editsListed.add(message);
  if (marks & 32) recordedSummaries.add(message);
  if (marks & 64) chosenOptions.add(message);
}
