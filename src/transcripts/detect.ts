/**
 * Format detection from content. The file name is only a tie-breaker for content that fits several
 * formats (an empty array, say), never a reason to read a file as a format its content contradicts.
 */
import type { TranscriptFormat } from './types';
import { EXPORT_FORMAT } from './formats/context-keeper';

const CLAUDE_TYPES = new Set([
  'user',
  'assistant',
  'system',
  'attachment',
  'queue-operation',
  'last-prompt',
  'ai-title',
  'permission-mode',
  'file-history-snapshot',
  'mode',
  'summary',
  'progress',
  'custom-title',
]);
const CODEX_TYPES = new Set(['session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted', 'world_state']);
const ANTHROPIC_BLOCKS = new Set(['tool_use', 'tool_result', 'image', 'thinking', 'redacted_thinking', 'document']);

type Rec = Record<string, unknown>;

/**
 * Detects the format of a transcript from its content (text, or bytes decoded leniently as UTF-8).
 * @param fileName only breaks ties between formats the content fits equally (an empty array)
 * @returns the format, or undefined when the content matches none
 */
export function detectFormat(content: string | Uint8Array, fileName = ''): TranscriptFormat | undefined {
  return detectWithDocument(typeof content === 'string' ? content : new TextDecoder('utf-8').decode(content), fileName)
    .format;
}

/**
 * {@link detectFormat} of `text`, with the whole document when detection parsed it as one JSON
 * document: a reader then uses it instead of parsing the text a second time (a recording of 300k
 * messages is hundreds of MB of parsed objects).
 */
export function detectWithDocument(
  text: string,
  fileName = '',
): { format: TranscriptFormat | undefined; document?: unknown } {
  let parsed: unknown;
  const format = detectText(text, fileName, (doc) => (parsed = doc));
  return parsed === undefined ? { format } : { format, document: parsed };
}

function detectText(text: string, fileName: string, keep: (doc: unknown) => void): TranscriptFormat | undefined {
  const start = text.search(/\S/);
  if (start < 0) return undefined;
  const first = text[start];
  if (first === '#' || first === '>' || !'[{'.includes(first)) {
    return /^# aider chat started at /m.test(text) || /^#### /m.test(text) ? 'aider' : undefined;
  }
  if (first === '{') {
    const lineEnd = text.indexOf('\n', start);
    const firstLine = text.slice(start, lineEnd < 0 ? undefined : lineEnd);
    const record = tryParse(firstLine);
    if (record && typeof record === 'object' && !Array.isArray(record)) {
      const jsonl = jsonlFormat(record as Rec);
      if (jsonl) return jsonl;
    }
  }
  const doc = tryParse(text);
  if (doc !== undefined) keep(doc);
  if (doc === undefined) {
    // Not one document: a JSONL file whose first record is broken still shows its format in later lines.
    for (const line of text.split('\n').slice(1, 20)) {
      const record = tryParse(line);
      if (record && typeof record === 'object' && !Array.isArray(record)) {
        const jsonl = jsonlFormat(record as Rec);
        if (jsonl) return jsonl;
      }
    }
    return undefined;
  }
  if (Array.isArray(doc)) return arrayFormat(doc, fileName);
  if (doc && typeof doc === 'object') {
    const obj = doc as Rec;
    if (Array.isArray(obj.history) && ('trajectory' in obj || 'info' in obj)) return 'swe-agent';
    // ContextKeeper's Export Transcript: its `messages` are only the compacted context; `entries` hold every message.
    if (obj.format === EXPORT_FORMAT && Array.isArray(obj.entries)) return 'context-keeper';
    if (obj.format === 'openai-chat' || Array.isArray(obj.messages)) return 'openai-chat';
    const jsonl = jsonlFormat(obj);
    if (jsonl) return jsonl;
  }
  return undefined;
}

function jsonlFormat(record: Rec): TranscriptFormat | undefined {
  // ContextKeeper's own session transcript: `{id, message: {role, …}, meta?}` lines.
  const message = record.message as Rec | undefined;
  if (
    typeof record.id === 'string' &&
    message &&
    typeof message === 'object' &&
    typeof message.role === 'string' &&
    !('type' in record)
  )
    return 'context-keeper';
  const type = record.type;
  if (typeof type !== 'string') return undefined;
  if (CODEX_TYPES.has(type) && 'payload' in record) return 'codex';
  if (
    CLAUDE_TYPES.has(type) &&
    ('sessionId' in record || 'uuid' in record || 'message' in record || 'leafUuid' in record)
  ) {
    return 'claude-code';
  }
  return undefined;
}

/** Format of a JSON array document from its first 50 objects (`fileName` breaks ties for one without objects). */
export function arrayFormat(items: unknown[], fileName: string): TranscriptFormat | undefined {
  const objects = items.filter((x): x is Rec => !!x && typeof x === 'object' && !Array.isArray(x)).slice(0, 50);
  if (!objects.length) {
    if (/\.events\.json$|events/i.test(fileName)) return items.length ? undefined : 'openhands';
    if (/api_conversation_history/i.test(fileName)) return 'cline';
    return items.length ? undefined : 'openai-chat';
  }
  if (objects.some((o) => typeof o.kind === 'string' && 'id' in o && ('source' in o || 'timestamp' in o)))
    return 'openhands';
  const anthropic = objects.some(
    (o) =>
      typeof o.ts === 'number' ||
      'modelInfo' in o ||
      (Array.isArray(o.content) && o.content.some((b) => ANTHROPIC_BLOCKS.has((b as Rec)?.type as string))),
  );
  if (anthropic) return 'cline';
  if (objects.some((o) => typeof o.role === 'string')) {
    return /api_conversation_history/i.test(fileName) ? 'cline' : 'openai-chat';
  }
  return undefined;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
