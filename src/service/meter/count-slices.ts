/**
 * Counting a whole session once the tokenizer turns exact, without one long block of the extension
 * host's thread: messages are counted into the meter's per-message cache a slice at a time, one
 * slice per turn of the event loop, so the recount that follows reads cached figures.
 */
import type { TokenMeter } from '../../compaction/meter/meter';
import type { ChatMessage, ToolSchema } from '../../compaction/types';

/** Characters of message text counted per turn (about 12k tokens, a few milliseconds). */
export const CHARS_PER_TURN = 50_000;

/** Characters of a message's text and tool calls, roughly (the slice size only). */
function roughChars(message: ChatMessage): number {
  const m = message as { content?: unknown; tool_calls?: Array<{ function?: { arguments?: string } }> };
  let n = 16;
  if (typeof m.content === 'string') n += m.content.length;
  else if (Array.isArray(m.content))
    for (const part of m.content as Array<{ text?: string }>) n += (part.text?.length ?? 0) + 16;
  for (const call of m.tool_calls ?? []) n += (call.function?.arguments?.length ?? 0) + 16;
  return n;
}

/**
 * Counts the tool schemas of `tools()`, one per turn (the tokenizer keeps the counts of their pieces,
 * so the meter's total over them is cheap afterwards), then every message of `lists()` (read again
 * at each turn: the session may change meanwhile) with `meter`, at most about
 * {@link CHARS_PER_TURN} characters per turn. Stops early when `stopped()` turns true or the meter
 * is not exact (estimates are not cached, so there is nothing to warm).
 */
export async function countInSlices(
  meter: TokenMeter,
  lists: () => ReadonlyArray<readonly { message: ChatMessage }[]>,
  stopped: () => boolean,
  tools: () => readonly ToolSchema[] = () => [],
): Promise<void> {
  const turn = async (): Promise<boolean> => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    return !stopped() && meter.exact;
  };
  // The meter counts a schema as the JSON of its function (see TokenMeter.countTools).
  for (const tool of tools()) {
    if (!(await turn())) return;
    meter.countText(JSON.stringify((tool as { function?: unknown }).function ?? tool));
  }
  const seen = new WeakSet<object>();
  for (let list = 0, at = 0; ;) {
    if (!(await turn())) return;
    const all = lists();
    let chars = 0;
    while (list < all.length && chars < CHARS_PER_TURN) {
      const items = all[list];
      if (at >= items.length) {
        list++;
        at = 0;
        continue;
      }
      const message = items[at++].message;
      if (seen.has(message)) continue;
      seen.add(message);
      meter.countMessage(message);
      chars += roughChars(message);
    }
    if (list >= all.length) return;
  }
}
