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
}

/**
 * Checks one message at `path`.
 * @throws TranscriptError for an unknown role, a message without content (except an assistant message
 *   with tool calls), a tool message without `tool_call_id`, a tool call
 *   without id or function name, or content that is neither text, null nor a list of parts
 */
export function checkMessage(raw: unknown, path: Array<string | number>, fault: Fault): CheckedMessage {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw fault(path, 'message is not an object');
  const m = raw as Rec;
  if (typeof m.role !== 'string' || !ROLES.has(m.role)) throw fault([...path, 'role'], `unknown role ${JSON.stringify(m.role)}`);
  const copy: Rec = { ...m };
  const out: CheckedMessage = { message: copy as unknown as ChatMessage, imageSizes: [], repairedArguments: 0 };
  const content = m.content;
  if (Array.isArray(content)) {
    content.forEach((part, k) => {
      const p = (part ?? {}) as Rec;
      if (typeof p.type !== 'string') throw fault([...path, 'content', k, 'type'], 'content part has no type');
      if (p.type === 'image_url') {
        const url = (p.image_url as Rec | undefined)?.url;
        if (typeof url !== 'string') throw fault([...path, 'content', k, 'image_url', 'url'], 'image part has no url');
        out.imageSizes.push(imageSizeFromUrl(url));
      }
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
