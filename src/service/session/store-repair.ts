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
  /** One sentence per repaired step or dropped result, naming the entry, its line and the call ids. */
  warnings: string[];
  /**
   * Tool results left out because they answer no call of the step before them (their assistant line
   * was damaged and skipped, or the call was already answered): sent, they would make every later
   * request invalid (DESIGN.md invariant 1). The transcript file keeps them.
   */
  dropped: Entry[];
}

/**
 * Places earlier repair entries next to their step (they were appended at the end of the file), leaves
 * out tool results that answer no open call of their step (orphans: their assistant line was skipped
 * as damaged, or a second answer to one call), and adds an interrupted result for every tool call still
 * unanswered. O(entries).
 * @param file names the transcript in the warnings
 * @param lineOf 1-based line of each entry in the file, for the warnings
 */
export function repairInterruptedCalls(
  entries: readonly Entry[],
  file: string,
  lineOf?: ReadonlyMap<string, number>,
): InterruptedRepair {
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
  const dropped: Entry[] = [];
  const ids = new Set(entries.map((e) => e.id));
  const orphan = (r: Entry, why: string) => {
    dropped.push(r);
    const line = lineOf?.get(r.id);
    warnings.push(
      `${file}${line ? `:${line}` : ''}: entry ${r.id}: tool result for ${JSON.stringify((r.message as { tool_call_id: string }).tool_call_id)} ${why}; left out`,
    );
  };
  for (let i = 0; i < rest.length; i++) {
    const e = rest[i];
    if (e.message.role === 'tool') {
      orphan(e, 'follows no assistant message with tool calls (that line was damaged or skipped)');
      continue;
    }
    out.push(e);
    const calls = e.message.role === 'assistant' && Array.isArray(e.message.tool_calls) ? e.message.tool_calls : [];
    if (calls.length === 0) continue;
    const callIds = new Set(calls.map((c) => c.id));
    const answered = new Set<string>();
    while (i + 1 < rest.length && rest[i + 1].message.role === 'tool') {
      i++;
      const callId = (rest[i].message as { tool_call_id: string }).tool_call_id;
      if (!callIds.has(callId)) orphan(rest[i], `answers no tool call of entry ${e.id}`);
      else if (answered.has(callId)) orphan(rest[i], `answers a call of entry ${e.id} that already has a result`);
      else {
        out.push(rest[i]);
        answered.add(callId);
      }
    }
    for (const r of repairsOf.get(e.id) ?? []) {
      const callId = (r.message as { tool_call_id: string }).tool_call_id;
      if (!callIds.has(callId) || answered.has(callId)) continue;
      out.push(r);
      all.push(r);
      answered.add(callId);
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
  return { entries: out, added, all, warnings, dropped };
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

/**
 * The context without tool items that answer no open call of the assistant item before their run
 * (derived items, such as a collapsed result, whose step was lost with a damaged line), so a loaded
 * session always yields requests the Chat Completions API accepts (DESIGN.md invariant 1).
 * @returns the kept items in order and the ids of those left out
 */
export function dropUnpairedResults(context: readonly ContextItem[]): { context: ContextItem[]; dropped: string[] } {
  const out: ContextItem[] = [];
  const dropped: string[] = [];
  let open: Set<string> | undefined;
  for (const item of context) {
    const m = item.message;
    if (m.role === 'tool') {
      if (open?.delete(m.tool_call_id)) out.push(item);
      else dropped.push(item.id);
      continue;
    }
    out.push(item);
    open = m.role === 'assistant' && Array.isArray(m.tool_calls) ? new Set(m.tool_calls.map((c) => c.id)) : undefined;
  }
  return { context: dropped.length ? out : [...context], dropped };
}
