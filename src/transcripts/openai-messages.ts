/**
 * Validation of OpenAI Chat Completions messages read from a file (openai-chat, SWE-agent history).
 * Messages are kept as found (provider fields included) once they are known to be well formed.
 */
import { parsesAsJson } from '../format/json';
import type { ChatMessage, ToolCall } from '../compaction/types';
import type { TranscriptError } from './errors';
import { imageSizeFromUrl, type ImageSize } from './images';
import { withArticle } from './article';
import { invalidArgumentsNote, roleFault, unknownBlockText, unknownBlockNote } from './notes';

type Rec = Record<string, unknown>;
type Fault = (path: Array<string | number>, detail: string) => TranscriptError;

const ROLE_NAMES = ['system', 'developer', 'user', 'assistant', 'tool'];
const ROLES = new Set(ROLE_NAMES);

/** A checked message with the pixel sizes of its image parts. */
export interface CheckedMessage {
  message: ChatMessage;
  imageSizes: Array<ImageSize | undefined>;
  /** Arguments that were objects and were serialised to JSON text. */
  repairedArguments: number;
  /** Fields removed so the message is one the Chat Completions API accepts, one phrase each. */
  cleaned: string[];
  /**
   * What was read otherwise than the file has it in content and tool calls, one phrase each naming
   * the part or call: a part of unknown type read as text, a part the role cannot carry replaced by
   * a note, arguments that are not JSON kept as recorded. Every reader reports these.
   */
  contentNotes: string[];
}

/** Fields each role may carry when sent (Chat Completions API); others are dropped on import. */
const FIELDS: Record<string, ReadonlySet<string>> = {
  system: new Set(['role', 'content', 'name']),
  developer: new Set(['role', 'content', 'name']),
  user: new Set(['role', 'content', 'name']),
  // Reasoning fields are provider extensions sent back as recorded (and counted by the meter).
  assistant: new Set([
    'role',
    'content',
    'name',
    'tool_calls',
    'refusal',
    'audio',
    'reasoning_content',
    'reasoning',
    'reasoning_details',
  ]),
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

/** Every part type some role carries: a part of another type is unknown (see `checkMessage`). */
const KNOWN_PART_TYPES: ReadonlySet<string> = new Set(Object.values(PART_TYPES).flatMap((types) => [...types]));

/** Deepest nesting accepted inside one message; deeper values cannot be written back safely. */
export const MAX_MESSAGE_DEPTH = 64;

/**
 * The path of the first value nested deeper than `max` levels inside `value`, or undefined.
 * Iterative, so hostile nesting cannot overflow the stack.
 */
export function tooDeep(value: unknown, max = MAX_MESSAGE_DEPTH): Array<string | number> | undefined {
  // Depth first with an explicit stack of values and their depths; the path is built only for a
  // value found too deep (most messages are a few levels deep and allocate nothing here).
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (!v || typeof v !== 'object') continue;
    if (depth >= max) return pathTo(value, v, max);
    if (Array.isArray(v)) {
      for (let k = 0; k < v.length; k++)
        if (v[k] && typeof v[k] === 'object') {
          values.push(v[k]);
          depths.push(depth + 1);
        }
    } else {
      for (const k in v) {
        if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
        const x = (v as Rec)[k];
        if (x && typeof x === 'object') {
          values.push(x);
          depths.push(depth + 1);
        }
      }
    }
  }
  return undefined;
}

/**
 * A copy of `m` with the fields `allowed` for its role (in their order), `changes` put in their
 * place, and empty or null `tool_calls` left out.
 */
function cleanCopy(m: Rec, allowed: ReadonlySet<string>, changes: Rec): ChatMessage {
  const copy: Rec = {};
  for (const key of Object.keys(m)) if (allowed.has(key)) copy[key] = key in changes ? changes[key] : m[key];
  if ('content' in changes && !('content' in copy)) copy.content = changes.content;
  if (copy.tool_calls === null || (Array.isArray(copy.tool_calls) && copy.tool_calls.length === 0))
    delete copy.tool_calls;
  return copy as unknown as ChatMessage;
}

/** The path from `root` down to `target`, which sits `depth` levels below it. */
function pathTo(root: unknown, target: unknown, depth: number): Array<string | number> {
  const path: Array<string | number> = [];
  const walk = (v: unknown, left: number): boolean => {
    if (v === target) return left === 0;
    if (left === 0 || !v || typeof v !== 'object') return false;
    const keys: Array<string | number> = Array.isArray(v) ? v.map((_, k) => k) : Object.keys(v);
    for (const k of keys) {
      path.push(k);
      if (walk((v as Rec)[k as string], left - 1)) return true;
      path.pop();
    }
    return false;
  };
  walk(root, depth);
  return path;
}

/**
 * Checks one message at `path` and cleans it into one the Chat Completions API accepts: fields the
 * role does not have (stray keys, `tool_calls` on a user message) are dropped (listed in `cleaned`);
 * a content part of a type no role carries is read as a text part when it holds text, and other
 * parts the role cannot carry become a text note (listed in `contentNotes`, with arguments that are
 * not JSON, which are kept as recorded).
 * @throws TranscriptError for a value nested more than {@link MAX_MESSAGE_DEPTH} levels (naming the
 *   field), for a missing or unknown role, a message without content (except an assistant message
 *   with tool calls), a tool message without `tool_call_id`, a tool call
 *   without id or function name, or content that is neither text, null nor a list of parts
 */
export function checkMessage(raw: unknown, path: Array<string | number>, fault: Fault): CheckedMessage {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw fault(path, 'message is not an object');
  const m = raw as Rec;
  if (typeof m.role !== 'string' || !ROLES.has(m.role)) throw fault([...path, 'role'], roleFault(m.role, ROLE_NAMES));
  const deep = tooDeep(m);
  if (deep)
    throw fault(
      [...path, ...deep.slice(0, 6)],
      `nested more than ${MAX_MESSAGE_DEPTH} levels deep${deep.length > 6 ? ` (at ${deep.length} levels; path shortened)` : ''}`,
    );
  // The parsed message is kept as it is when it is already clean (the usual case); a copy is made
  // only when something is dropped, replaced or filled in, so the file's object stays as read.
  const out: CheckedMessage = {
    message: m as unknown as ChatMessage,
    imageSizes: [],
    repairedArguments: 0,
    cleaned: [],
    contentNotes: [],
  };
  const changes: Rec = {};
  let changed = false;
  const allowed = FIELDS[m.role];
  for (const key in m) {
    if (!Object.prototype.hasOwnProperty.call(m, key) || allowed.has(key)) continue;
    changed = true;
    const value = m[key];
    if (value !== undefined && value !== null)
      out.cleaned.push(`field "${key}" is not part of ${withArticle(m.role)} message; dropped`);
  }
  const content = m.content;
  if (Array.isArray(content)) {
    const parts = PART_TYPES[m.role];
    const role = String(m.role);
    let replaced = false;
    const checked = (content as unknown[]).map((part: unknown, k: number): unknown => {
      const p = (part ?? {}) as Rec;
      if (typeof p.type !== 'string') throw fault([...path, 'content', k, 'type'], 'content part has no type');
      if (p.type === 'image_url') {
        const url = (p.image_url as Rec | undefined)?.url;
        if (typeof url !== 'string') throw fault([...path, 'content', k, 'image_url', 'url'], 'image part has no url');
        if (parts.has('image_url')) out.imageSizes.push(imageSizeFromUrl(url));
      }
      if (parts.has(p.type)) return part;
      replaced = true;
      // A part of a type no role carries (a misspelt `txet`) that holds text is read as text: its words were in the conversation.
      const text = KNOWN_PART_TYPES.has(p.type) ? undefined : unknownBlockText(p);
      if (text !== undefined) {
        out.contentNotes.push(`content[${k}].type: ${unknownBlockNote(p.type, true)}`);
        return { type: 'text', text };
      }
      out.contentNotes.push(
        `content part ${k} of type "${p.type}" cannot be sent in ${withArticle(role)} message; replaced by a note`,
      );
      return { type: 'text', text: `[${p.type} content left out]` };
    });
    if (replaced) {
      changes.content = checked;
      changed = true;
    }
  } else if (content !== null && content !== undefined && typeof content !== 'string') {
    throw fault([...path, 'content'], 'content is neither a string, null nor a list of parts');
  }
  // Only an assistant message with tool calls may go without content (the API refuses the rest).
  if (
    (content === null || content === undefined) &&
    m.role !== 'tool' &&
    !(m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0)
  ) {
    throw fault([...path, 'content'], `${m.role} message has no content`);
  }
  if (m.role === 'tool') {
    if (typeof m.tool_call_id !== 'string' || !m.tool_call_id)
      throw fault([...path, 'tool_call_id'], 'tool result has no tool_call_id');
    if (content === null || content === undefined) {
      changes.content = '';
      changed = true;
    }
  }
  if (m.role === 'assistant' && m.tool_calls !== undefined && m.tool_calls !== null) {
    if (!Array.isArray(m.tool_calls)) throw fault([...path, 'tool_calls'], 'tool_calls is not a list');
    let callsChanged = false;
    const calls: ToolCall[] = m.tool_calls.map((c, k) => {
      const call = (c ?? {}) as Rec;
      const fn = (call.function ?? {}) as Rec;
      if (typeof call.id !== 'string' || !call.id) throw fault([...path, 'tool_calls', k, 'id'], 'tool call has no id');
      if (typeof fn.name !== 'string')
        throw fault([...path, 'tool_calls', k, 'function', 'name'], 'tool call has no function name');
      let args = fn.arguments;
      // Arguments the API would refuse to parse are kept as recorded (nothing is lost), with a note.
      if (typeof args === 'string' && args.trim() !== '' && !parsesAsJson(args))
        out.contentNotes.push(invalidArgumentsNote(`tool call ${k} (${fn.name})`));
      if (typeof args !== 'string') {
        args = JSON.stringify(args ?? {});
        out.repairedArguments++;
      } else if (call.type === 'function') return call as unknown as ToolCall;
      callsChanged = true;
      return { ...call, id: call.id, type: 'function', function: { ...fn, name: fn.name, arguments: args as string } };
    });
    if (!calls.length) changed = true;
    else if (callsChanged) {
      changes.tool_calls = calls;
      changed = true;
    }
  } else if (m.role === 'assistant' && m.tool_calls === null) {
    changed = true;
  }
  if (changed) out.message = cleanCopy(m, allowed, changes);
  return out;
}
