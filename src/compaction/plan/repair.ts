/**
 * Makes an imported message sequence valid for the Chat Completions API before it becomes a raw
 * transcript: recorded sessions often hold tool calls that were interrupted or denied (no result)
 * and results whose call was lost. Both are rejected by OpenAI and Azure with a 400.
 */
import type { Entry } from '../types';
import { toolCallIds } from './structure';
import { plainText } from '../content-text';

/** Content of the tool result added for a call that has none. */
export const MISSING_RESULT_TEXT = '[no result was recorded for this tool call; it was interrupted or denied]';

/** Between the call's entry id and the call id in the id of an added result. */
const MISSING_RESULT_MARK = '#no-result:';

/** Result of {@link repairToolPairing}. */
export interface PairingRepair {
  entries: Entry[];
  /** One line per change, naming the entry. */
  warnings: string[];
  /** Tool results added for unanswered calls. */
  addedResults: number;
  /** Tool messages turned into user text because no call of the preceding assistant message matches. */
  orphanResults: number;
}

/**
 * Adds a tool result for each tool call not answered before the next non-tool message, and turns
 * tool messages that answer no open call into user messages. Calls of the final assistant message
 * may still be waiting for their results (an approval pending) and are left open unless
 * `closeTrailing` is set (a recording that ended there: its request must be sendable as it is).
 * Entries are otherwise returned as they are.
 */
export function repairToolPairing(entries: readonly Entry[], options: { closeTrailing?: boolean } = {}): PairingRepair {
  const out: Entry[] = [];
  const warnings: string[] = [];
  let addedResults = 0;
  let orphanResults = 0;
  let open: string[] = [];
  let openEntry: Entry | undefined;
  const closeOpen = () => {
    for (const id of open) {
      out.push({
        id: `${openEntry!.id}${MISSING_RESULT_MARK}${id}`,
        message: { role: 'tool', tool_call_id: id, content: MISSING_RESULT_TEXT },
        meta: { source: openEntry!.meta?.source },
      });
      addedResults++;
    }
    if (open.length)
      warnings.push(
        `entry ${openEntry!.id}: ${open.length} tool call(s) had no result (${open.join(', ')}); added a placeholder result`,
      );
    open = [];
  };
  for (const e of entries) {
    if (e.message.role === 'tool') {
      const id = (e.message as { tool_call_id?: string }).tool_call_id ?? '';
      const k = open.indexOf(id);
      if (k >= 0) {
        open.splice(k, 1);
        out.push(e);
      } else {
        orphanResults++;
        warnings.push(
          `entry ${e.id}: tool result for ${JSON.stringify(id)} answers no open tool call; kept as user text`,
        );
        const text = plainText(e.message.content);
        out.push({ ...e, message: { role: 'user', content: `[tool result ${id} without a matching call]\n${text}` } });
      }
      continue;
    }
    closeOpen();
    out.push(e);
    const ids = toolCallIds(e.message);
    if (ids.length) {
      open = [...ids];
      openEntry = e;
    }
  }
  if (options.closeTrailing) closeOpen();
  return { entries: out, warnings, addedResults, orphanResults };
}
