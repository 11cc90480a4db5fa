/**
 * Checks of DESIGN.md's invariants on an active context. Used by tests, by `replay` on every
 * context it would send, and as a last guard before a compaction commits.
 */
import type { ChatMessage, ContextItem, Entry } from './types';
import { analyze, toolCallIds } from './structure';

/** One broken invariant, for people: `invariant` is the number in DESIGN.md. */
export interface Violation {
  invariant: 1 | 2 | 3 | 4 | 5 | 6;
  index?: number;
  message: string;
}

/**
 * Invariant 1 on a message array: each tool message answers a tool call of the assistant message
 * right before its run of tool messages, and each tool call is answered exactly once before the
 * next non-tool message. With `allowPendingTail`, the calls of a final assistant message may still
 * be waiting for results (a step in progress).
 */
export function checkToolPairing(messages: readonly ChatMessage[], allowPendingTail = false): Violation[] {
  const out: Violation[] = [];
  const seen = new Set<string>();
  let open: Set<string> | undefined;
  let openAt = -1;
  const close = (at: number) => {
    if (open && open.size > 0) {
      out.push({ invariant: 1, index: openAt, message: `tool calls ${[...open].join(', ')} of message ${openAt} are not answered before message ${at}` });
    }
    open = undefined;
  };
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m.role === 'tool') {
      const id = (m as { tool_call_id?: string }).tool_call_id ?? '';
      if (!open || !open.has(id)) {
        out.push({ invariant: 1, index: i, message: `tool message ${i} (tool_call_id ${JSON.stringify(id)}) does not answer a call of the assistant message before it` });
      } else open.delete(id);
      continue;
    }
    close(i);
    const ids = toolCallIds(m);
    if (ids.length > 0) {
      for (const id of ids) {
        if (seen.has(id)) out.push({ invariant: 1, index: i, message: `tool call id ${id} appears twice` });
        seen.add(id);
      }
      open = new Set(ids);
      openAt = i;
    }
  }
  if (!(allowPendingTail && openAt === lastAssistantIndex(messages))) close(messages.length);
  return out;
}

function lastAssistantIndex(messages: readonly ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role !== 'tool') return messages[i].role === 'assistant' ? i : -1;
  return -1;
}

/** Options of {@link checkContext}. */
export interface CheckOptions {
  keepRecentSteps?: number;
  allowPendingTail?: boolean;
}

/**
 * Checks invariants 1-4 and 6 of `items` against the raw transcript `raw`:
 * 1 pairing; 2 and 4 together as "the covered raw ids, in item order, are exactly the raw ids in
 * order" (a summary stands at its oldest message, nothing is lost or covered twice); 3 anchors
 * (leading system messages, the latest real user message and the newest `keepRecentSteps` steps
 * are the raw messages themselves); 6 no summary enters as a system message.
 */
export function checkContext(items: readonly ContextItem[], raw: readonly Entry[], options: CheckOptions = {}): Violation[] {
  const out = checkToolPairing(items.map((i) => i.message), options.allowPendingTail ?? true);
  const covered: string[] = [];
  for (const it of items) for (const id of it.covers) covered.push(id);
  if (covered.length !== raw.length || covered.some((id, k) => raw[k].id !== id)) {
    const k = covered.findIndex((id, n) => raw[n]?.id !== id);
    out.push({ invariant: 4, message: `covered raw ids differ from the raw transcript (${covered.length} covered, ${raw.length} raw, first difference at ${k < 0 ? covered.length : k})` });
  }
  const rawItems: ContextItem[] = raw.map((e) => ({ id: e.id, kind: 'raw', message: e.message, covers: [e.id] }));
  const rawShape = analyze(rawItems, options.keepRecentSteps ?? 1);
  const byRawId = new Map<string, ContextItem>();
  for (const it of items) for (const id of it.covers) byRawId.set(id, it);
  const mustKeep: number[] = [];
  for (let k = 0; k < rawShape.leadEnd; k++) mustKeep.push(k);
  if (rawShape.lastUserIndex >= 0) mustKeep.push(rawShape.lastUserIndex);
  for (const u of rawShape.units) if (u.reason === 'recent agent step') for (let k = u.start; k < u.end; k++) mustKeep.push(k);
  for (const k of mustKeep) {
    // A clipped anchor is allowed: clipping happens only when the request could not be sent at all.
    const it = byRawId.get(raw[k].id);
    if (!it || it.covers.length !== 1 || (it.kind !== 'raw' && it.kind !== 'clipped') || (it.kind === 'raw' && it.message !== raw[k].message)) {
      out.push({ invariant: 3, index: k, message: `anchor message ${raw[k].id} (${raw[k].message.role}) is not in the context verbatim` });
    }
  }
  items.forEach((it, k) => {
    if (it.kind === 'summary' && (it.message.role === 'system' || it.message.role === 'developer')) {
      out.push({ invariant: 6, index: k, message: `summary ${it.id} is a ${it.message.role} message` });
    }
  });
  const firstReal = items.findIndex((it) => it.message.role !== 'system' && it.message.role !== 'developer');
  const rawFirst = raw.findIndex((e) => e.message.role !== 'system' && e.message.role !== 'developer');
  if (firstReal >= 0 && rawFirst >= 0 && raw[rawFirst].message.role === 'user' && items[firstReal].message.role !== 'user') {
    out.push({ invariant: 2, index: firstReal, message: `first non-system message is ${items[firstReal].message.role}, not user` });
  }
  return out;
}
