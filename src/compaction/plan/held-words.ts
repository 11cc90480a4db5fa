/**
 * The sentence that says why nothing can be compacted, from the words of {@link heldReasons}
 * ("latest user message", "two summaries", …): "all that is left is the latest user message and two
 * summaries" (held summaries are counted: see `LEFT_OUT_REASONS`). The Compact button's reason, its
 * notification and a nothing-eligible outcome share it.
 */

/** Each reason as a noun phrase that reads in a sentence; a reason not listed reads as it is. */
const PHRASES: Readonly<Record<string, string>> = {
  'leading system messages': 'the leading system messages',
  'latest user message': 'the latest user message',
  'tool calls still waiting for results': 'tool calls still waiting for their results',
  'recent agent step': 'the recent agent steps kept verbatim',
  pinned: 'pinned messages',
};

/** "a", "a and b", "a, b and c". */
function listed(parts: readonly string[]): string {
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/**
 * One clause naming what holds everything left: "all that is left is the latest user message and
 * one summary"; "everything left must stay as it is" when `reasons` is empty. No capital, no full
 * stop: callers lead it ("Nothing to compact: …") and end it.
 */
export function describeHeld(reasons: readonly string[]): string {
  if (reasons.length === 0) return 'everything left must stay as it is';
  return `all that is left is ${listed(reasons.map((r) => PHRASES[r] ?? r))}`;
}
