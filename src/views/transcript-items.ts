/**
 * Turns the raw transcript into the sidebar's running-transcript lines. Pure: no `vscode` import.
 *
 * The raw entries are the single source of truth; live state that is not in the entries yet
 * (streamed text of the reply being written, tools still running) is passed in beside them.
 */
import type { Entry } from '../compaction/types';
import type { TranscriptItemView } from './protocol';

/** Live state layered over the entries. */
export interface LiveState {
  /** Streamed text by the entry id the finished assistant message will get. */
  streaming: ReadonlyMap<string, string>;
  /** Tool calls started and not finished, by call id. */
  running: ReadonlySet<string>;
  /** Outcome of finished tool calls by call id (the entries do not record ok/error). */
  outcomes: ReadonlyMap<string, boolean>;
}

const PREVIEW_CHARS = 160;

/** Text of a message's content (string or text parts); other parts become placeholders. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => {
      if (typeof part !== 'object' || part === null) return '';
      const typed = part as { type?: string; text?: string; refusal?: string };
      if (typed.type === 'text' && typeof typed.text === 'string') return typed.text;
      if (typed.type === 'refusal' && typeof typed.refusal === 'string') return typed.refusal;
      return `[${typed.type ?? 'part'}]`;
    })
    .join('\n');
}

/** First line of `text`, cut to a preview length. */
export function firstLine(text: string, max = PREVIEW_CHARS): string {
  const line = text.trimStart().split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The sidebar lines for `entries` (system messages skipped) followed by replies still streaming. */
export function transcriptItems(entries: readonly Entry[], live: LiveState): TranscriptItemView[] {
  const items: TranscriptItemView[] = [];
  const toolNames = new Map<string, string>();
  const seen = new Set<string>();
  for (const entry of entries) {
    const message = entry.message;
    seen.add(entry.id);
    switch (message.role) {
      case 'user':
        items.push({ kind: 'user', id: entry.id, text: contentText(message.content) });
        break;
      case 'assistant': {
        const text = contentText(message.content);
        if (text.trim().length > 0) items.push({ kind: 'assistant', id: entry.id, text });
        for (const call of message.tool_calls ?? []) {
          if (call.type !== 'function') continue;
          toolNames.set(call.id, call.function.name);
          items.push({
            kind: 'tool-call',
            id: call.id,
            name: call.function.name,
            argumentsPreview: firstLine(call.function.arguments, 120),
            running: live.running.has(call.id) || undefined,
          });
        }
        break;
      }
      case 'tool': {
        const text = contentText(message.content);
        items.push({
          kind: 'tool-result',
          id: entry.id,
          name: toolNames.get(message.tool_call_id) ?? 'tool',
          ok: live.outcomes.get(message.tool_call_id) ?? !/^error\b/i.test(text.trimStart()),
          preview: firstLine(text),
          size: text.length,
        });
        break;
      }
      default:
        break;
    }
  }
  for (const [entryId, text] of live.streaming) {
    if (!seen.has(entryId)) items.push({ kind: 'assistant', id: entryId, text, streaming: true });
  }
  return items;
}
