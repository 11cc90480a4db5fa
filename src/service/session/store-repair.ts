/**
 * Repairs applied when a session folder is loaded after an interruption (window reload, deactivation,
 * kill, full disk while a tool ran): tool calls left without a result get a result that says the call
 * was interrupted, so the next request is valid (DESIGN.md invariant 1). Pairing is checked per step:
 * an assistant message and the run of tool messages after it (ids may repeat across steps).
 */
import type { ContextItem, Entry } from '../../compaction/types';

/** Content of the result recorded for a tool call that a stop interrupted. */
export const INTERRUPTED_RESULT_TEXT =
  '[interrupted: the session stopped before this tool call returned a result; run it again if it is still needed]';

/** Marker inside the id of a repair entry: `<assistant entry id>#interrupted:<call id>`. */
const MARK = '#interrupted:';

/** Result of {@link repairInterruptedCalls}. */
export interface InterruptedRepair {
  /** All entries in order, repair entries right after the step they answer. */
  entries: Entry[];
  /** Repair entries created now (not yet on disk), in order. */
  added: Entry[];
  /** Every repair entry (earlier ones included), in order. */
  all: Entry[];
  /** One sentence per repaired step, naming the entry and the call ids. */
  warnings: string[];
}

/**
 * Places earlier repair entries next to their step (they were appended at the end of the file) and
 * adds an interrupted result for every tool call still unanswered. O(entries).
 * @param file names the transcript in the warnings
 */
export function repairInterruptedCalls(entries: readonly Entry[], file: string): InterruptedRepair {
  // Earlier repairs, grouped by the assistant entry they belong to.
  const repairsOf = new Map<string, Entry[]>();
  const rest: Entry[] = [];
  for (const e of entries) {
    const at = e.id.indexOf(MARK);
    if (at > 0 && e.message.role === 'tool') {
      const owner = e.id.slice(0, at);
      const list = repairsOf.get(owner) ?? [];
      list.push(e);
      repairsOf.set(owner, list);
    } else rest.push(e);
  }
  const out: Entry[] = [];
  const added: Entry[] = [];
  const all: Entry[] = [];
  const warnings: string[] = [];
  const ids = new Set(entries.map((e) => e.id));
  for (let i = 0; i < rest.length; i++) {
    const e = rest[i];
    out.push(e);
    const calls = e.message.role === 'assistant' && Array.isArray(e.message.tool_calls) ? e.message.tool_calls : [];
    if (calls.length === 0) continue;
    const answered = new Set<string>();
    while (i + 1 < rest.length && rest[i + 1].message.role === 'tool') {
      i++;
      out.push(rest[i]);
      answered.add((rest[i].message as { tool_call_id: string }).tool_call_id);
    }
    for (const r of repairsOf.get(e.id) ?? []) {
      out.push(r);
      all.push(r);
      answered.add((r.message as { tool_call_id: string }).tool_call_id);
    }
    repairsOf.delete(e.id);
    const open = calls.filter((c) => !answered.has(c.id));
    for (const call of open) {
      let id = `${e.id}${MARK}${call.id}`;
      for (let n = 2; ids.has(id); n++) id = `${e.id}${MARK}${call.id}#${n}`;
      ids.add(id);
      const repair: Entry = { id, message: { role: 'tool', tool_call_id: call.id, content: INTERRUPTED_RESULT_TEXT } };
      out.push(repair);
      added.push(repair);
      all.push(repair);
    }
    if (open.length)
      warnings.push(
        `${file}: entry ${e.id}: ${open.length} tool call(s) were interrupted before their result (${open.map((c) => c.id).join(', ')}); recorded as interrupted`,
      );
  }
  // Repairs whose step is gone (its line was damaged): kept at the end would break pairing; dropped.
  for (const [owner, list] of repairsOf)
    warnings.push(
      `${file}: ${list.length} interrupted-result entr${list.length === 1 ? 'y' : 'ies'} of entry ${owner}, which is not in the transcript; ignored`,
    );
  return { entries: out, added, all, warnings };
}

/**
 * Inserts raw items for repair entries missing from a loaded context, right after the run of the step
 * they answer, when that step is in the context as a raw item (a step with unanswered calls is never
 * summarized). Returns the new context; repairs of steps not in it stay out (the service appends the
 * entries not accounted for at the end, after their step).
 */
export function insertRepairs(context: readonly ContextItem[], repairs: readonly Entry[]): ContextItem[] {
  const present = new Set<string>();
  for (const item of context) for (const id of item.covers) present.add(id);
  const missing = repairs.filter((r) => !present.has(r.id));
  if (missing.length === 0) return [...context];
  const byOwner = new Map<string, Entry[]>();
  for (const r of missing) {
    const owner = r.id.slice(0, r.id.indexOf(MARK));
    byOwner.set(owner, [...(byOwner.get(owner) ?? []), r]);
  }
  const out: ContextItem[] = [];
  for (let i = 0; i < context.length; i++) {
    const item = context[i];
    out.push(item);
    const repairs = item.kind === 'raw' ? byOwner.get(item.id) : undefined;
    if (!repairs) continue;
    while (i + 1 < context.length && context[i + 1].message.role === 'tool') out.push(context[++i]);
    for (const r of repairs) out.push({ id: r.id, kind: 'raw', message: r.message, covers: [r.id] });
  }
  return out;
}
