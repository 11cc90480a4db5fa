/**
 * Validation of OpenAI Chat Completions messages read from a file (openai-chat, SWE-agent history).
 * Messages are kept as found (provider fields included) once they are known to be well formed.
 */
import type { ChatMessage, ToolCall } from '../compaction/types';
import type { TranscriptError } from './errors';
import { imageSizeFromUrl, type ImageSize } from './images';

type Rec = Record<string, unknown>;
type Fault = (path: Array<string | number>, detail: string) => TranscriptError;

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

/** A checked message with the pixel sizes of its image parts. */
export interface CheckedMessage {
  message: ChatMessage;
  imageSizes: Array<ImageSize | undefined>;
  /** Arguments that were objects and were serialised to JSON text. */
  repairedArguments: number;
  /** What was removed so the message is one the Chat Completions API accepts, one phrase each. */
  cleaned: string[];
}

/** Fields each role may carry when sent (Chat Completions API); others are dropped on import. */
const FIELDS: Record<string, ReadonlySet<string>> = {
  system: new Set(['role', 'content', 'name']),
  developer: new Set(['role', 'content', 'name']),
  user: new Set(['role', 'content', 'name']),
  // Reasoning fields are provider extensions sent back as recorded (and counted by the meter).
  assistant: new Set(['role', 'content', 'name', 'tool_calls', 'refusal', 'audio', 'reasoning_content', 'reasoning', 'reasoning_details']),
  tool: new Set(['role', 'content', 'tool_call_id']),
};

/** Content-part types each role may carry; other parts become a short text note. */
const PART_TYPES: Record<string, ReadonlySet<string>> = {
  system: new Set(['text']),
  developer: new Set(['text']),
  user: new Set(['text', 'image_url', 'input_audio', 'file']),
  assistant: new Set(['text', 'refusal', 'thinking', 'redacted_thinking', 'reasoning']),
  // Images in tool results are moved to a user message by the readers that meet them.
  tool: new Set(['text', 'image_url']),
};

/** Deepest nesting accepted inside one message; deeper values cannot be written back safely. */
export const MAX_MESSAGE_DEPTH = 64;

/**
 * The path of the first value nested deeper than `max` levels inside `value`, or undefined.
 * Iterative, so hostile nesting cannot overflow the stack.
 */
export function tooDeep(value: unknown, max = MAX_MESSAGE_DEPTH): Array<string | number> | undefined {
  const stack: Array<{ v: unknown; path: Array<string | number> }> = [{ v: value, path: [] }];
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    if (path.length >= max) return path;
    if (Array.isArray(v)) v.forEach((x, k) => stack.push({ v: x, path: [...path, k] }));
    else for (const [k, x] of Object.entries(v as Rec)) stack.push({ v: x, path: [...path, k] });
  }
  return undefined;
}

/**
 * Checks one message at `path` and cleans it into one the Chat Completions API accepts: fields the
 * role does not have (stray keys, `tool_calls` on a user message) are dropped and content parts of
 * types the role cannot carry become a text note, each listed in `cleaned`.
 * @throws TranscriptError for a value nested more than {@link MAX_MESSAGE_DEPTH} levels (naming the
 *   field), for an unknown role, a message without content (except an assistant message
 *   with tool calls), a tool message without `tool_call_id`, a tool call
 *   without id or function name, or content that is neither text, null nor a list of parts
 */
export function checkMessage(raw: unknown, path: Array<string | number>, fault: Fault): CheckedMessage {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw fault(path, 'message is not an object');
  const m = raw as Rec;
  if (typeof m.role !== 'string' || !ROLES.has(m.role)) throw fault([...path, 'role'], `unknown role ${JSON.stringify(m.role)}`);
  const deep = tooDeep(m);
  if (deep) throw fault([...path, ...deep.slice(0, 6)], `nested more than ${MAX_MESSAGE_DEPTH} levels deep${deep.length > 6 ? ` (at ${deep.length} levels; path shortened)` : ''}`);
  const copy: Rec = {};
  const out: CheckedMessage = { message: copy as unknown as ChatMessage, imageSizes: [], repairedArguments: 0, cleaned: [] };
  const allowed = FIELDS[m.role];
  for (const [key, value] of Object.entries(m)) {
    if (allowed.has(key)) copy[key] = value;
    else if (value !== undefined && value !== null) out.cleaned.push(`field "${key}" is not part of a ${m.role} message; dropped`);
  }
  const content = m.content;
  if (Array.isArray(content)) {
    const parts = PART_TYPES[m.role];
    copy.content = content.map((part: unknown, k) => {
      const p = (part ?? {}) as Rec;
      if (typeof p.type !== 'string') throw fault([...path, 'content', k, 'type'], 'content part has no type');
      if (p.type === 'image_url') {
        const url = (p.image_url as Rec | undefined)?.url;
        if (typeof url !== 'string') throw fault([...path, 'content', k, 'image_url', 'url'], 'image part has no url');
        if (parts.has('image_url')) out.imageSizes.push(imageSizeFromUrl(url));
      }
      const type = p.type;
      if (parts.has(type)) return part;
      out.cleaned.push(`content part ${k} of type "${type}" cannot be sent in a ${m.role as string} message; replaced by a note`);
      return { type: 'text', text: `[${type} content left out]` };
    });
  } else if (content !== null && content !== undefined && typeof content !== 'string') {
    throw fault([...path, 'content'], 'content is neither a string, null nor a list of parts');
  }
  // Only an assistant message with tool calls may go without content (the API refuses the rest).
  if ((content === null || content === undefined) && m.role !== 'tool' && !(m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0)) {
    throw fault([...path, 'content'], `${m.role} message has no content`);
  }
  if (m.role === 'tool') {
    if (typeof m.tool_call_id !== 'string' || !m.tool_call_id) throw fault([...path, 'tool_call_id'], 'tool result has no tool_call_id');
    if (content === null || content === undefined) copy.content = '';
  }
  if (m.role === 'assistant' && m.tool_calls !== undefined && m.tool_calls !== null) {
    if (!Array.isArray(m.tool_calls)) throw fault([...path, 'tool_calls'], 'tool_calls is not a list');
    const calls: ToolCall[] = m.tool_calls.map((c, k) => {
      const call = (c ?? {}) as Rec;
      const fn = (call.function ?? {}) as Rec;
      if (typeof call.id !== 'string' || !call.id) throw fault([...path, 'tool_calls', k, 'id'], 'tool call has no id');
      if (typeof fn.name !== 'string') throw fault([...path, 'tool_calls', k, 'function', 'name'], 'tool call has no function name');
      let args = fn.arguments;
      if (typeof args !== 'string') {
        args = JSON.stringify(args ?? {});
        out.repairedArguments++;
      }
      return { ...call, id: call.id, type: 'function', function: { ...fn, name: fn.name, arguments: args as string } };
    });
    if (calls.length) copy.tool_calls = calls;
    else delete copy.tool_calls;
  } else if (m.role === 'assistant' && m.tool_calls === null) {
    delete copy.tool_calls;
  }
  return out;
}
