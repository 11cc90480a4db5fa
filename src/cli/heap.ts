/**
 * The heap policy of the command-line process. Pure policy: no I/O.
 */
import v8 from 'node:v8';

/** Commands that hold a whole recording in memory while they compact it. */
const WHOLE_RECORDING = new Set(['compact', 'replay']);

/**
 * Asks V8 to keep the heap close to what is live when `command` holds a whole recording in memory
 * (`compact`, `replay`). V8 lets the old generation grow to about twice the live heap before a full
 * collection; for a short-lived process over hundreds of megabytes of messages that slack is most
 * of its peak. Measured on a recording of 300k messages of real text (22M tokens, 110 MB), `compact`
 * peaked at 643 MB of resident memory with V8's default and 524 MB with `--optimize-for-size`, for
 * about 1.5x the CPU time (19 → 29 s, the same report).
 *
 * Node documents that flags set after start-up may behave unpredictably; this one is read by V8's
 * heap-growing controller at each collection and by its compilers, and changes no result.
 * Called once, before the command reads its file; nothing for other commands.
 */
export function heapPolicyFor(command: string | undefined): void {
  if (command !== undefined && WHOLE_RECORDING.has(command)) v8.setFlagsFromString('--optimize-for-size');
}
