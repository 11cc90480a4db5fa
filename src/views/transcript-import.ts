/**
 * Reads a transcript file's text into canonical entries for the session controller.
 */
import type { ChatMessage, Entry } from '../compaction/types';
import type { ImportResult } from './commands';

/**
 * Imports an OpenAI chat message array (`[...]` or `{ "messages": [...] }`). Throws an error that
 * names the file and the offending index.
 */
export function importTranscriptFile(text: string, fileName: string): ImportResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${fileName}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { messages?: unknown })?.messages;
  if (!Array.isArray(list)) throw new Error(`${fileName}: expected an array of chat messages or an object with "messages"`);
  const entries: Entry[] = list.map((message: unknown, index) => {
    const role = (message as { role?: unknown })?.role;
    if (typeof role !== 'string') throw new Error(`${fileName}: message ${index + 1}: missing field "role"`);
    return { id: `m${index + 1}`, message: message as ChatMessage, meta: { source: { file: fileName, line: index + 1 } } };
  });
  return { format: 'openai-chat', entries };
}
