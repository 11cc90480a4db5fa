/**
 * Small pure helpers of the context service: session ids, record normalisation, import repair.
 */
import { randomUUID } from 'node:crypto';
import type { Entry } from '../compaction/types';
import { MISSING_RESULT_TEXT } from '../compaction/repair';
import { toolCallIds } from '../compaction/structure';

/** Makes a session id: sortable time plus a random suffix, safe as a folder name. */
export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
  return `${stamp}-${randomUUID().slice(0, 6)}`;
}

/** A shallow copy of `value` without the keys whose value is undefined. */
export function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** Adds placeholder results for tool calls of the final assistant message left unanswered by an import. */
export function closeTrailingCalls(entries: Entry[]): Entry[] {
  let last = entries.length - 1;
  while (last >= 0 && entries[last].message.role === 'tool') last--;
  if (last < 0) return entries;
  const open = new Set(toolCallIds(entries[last].message));
  for (let i = last + 1; i < entries.length; i++) open.delete((entries[i].message as { tool_call_id?: string }).tool_call_id ?? '');
  if (open.size === 0) return entries;
  const base = entries[last].id;
  return [...entries, ...[...open].map((id): Entry => ({ id: `${base}#${id}`, message: { role: 'tool', tool_call_id: id, content: MISSING_RESULT_TEXT } }))];
}
