/**
 * Small builders for hand-written conversations in a short notation:
 * S(..) system, U(..) user, A(..) assistant text, Acalls([...]) assistant with tool calls,
 * T(id, text) tool result.
 */
import type { ChatMessage, ContextItem, Entry } from '../../src/compaction/types';
import { itemsFromEntries } from '../../src/compaction/context';

export const S = (content: string): ChatMessage => ({ role: 'system', content });
export const U = (content: string): ChatMessage => ({ role: 'user', content });
export const A = (content: string): ChatMessage => ({ role: 'assistant', content });
export const Acalls = (
  calls: Array<[id: string, name: string, args?: string]>,
  content: string | null = null,
): ChatMessage => ({
  role: 'assistant',
  content,
  tool_calls: calls.map(([id, name, args]) => ({
    id,
    type: 'function' as const,
    function: { name, arguments: args ?? '{}' },
  })),
});
export const T = (id: string, content: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content });

/** `n` characters of varied text (so token counts are realistic, not one repeated token). */
export function chars(n: number, seed = 1): string {
  const words = [
    'alpha',
    'build',
    'config',
    'delta',
    'error',
    'file',
    'gamma',
    'handler',
    'index',
    'json',
    'kernel',
    'lambda',
  ];
  let s = '';
  let k = seed;
  while (s.length < n) {
    k = (k * 1103515245 + 12345) & 0x7fffffff;
    s += words[k % words.length] + (k % 7 === 0 ? '\n' : ' ');
  }
  return s.slice(0, n);
}

/** Entries `e0…` for messages. */
export function entries(messages: ChatMessage[]): Entry[] {
  return messages.map((message, i) => ({ id: `e${i}`, message }));
}

/** Raw items for messages. */
export function items(messages: ChatMessage[]): ContextItem[] {
  return itemsFromEntries(entries(messages));
}

/** A checkpoint's summary item (user role, checkpoint `cp`) holding `text`, as a compaction inserts it. */
export function summaryItem(text: string): ContextItem {
  return { id: 'cp~s', kind: 'summary', message: { role: 'user', content: text }, covers: [], checkpointId: 'cp' };
}

/** Counts how often each tool_call_id appears in tool messages. */
export function resultCounts(messages: readonly ChatMessage[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const msg of messages) if (msg.role === 'tool') m.set(msg.tool_call_id, (m.get(msg.tool_call_id) ?? 0) + 1);
  return m;
}
