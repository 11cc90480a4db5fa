/**
 * OpenAI Chat Completions messages: a plain JSON array of messages, an object `{messages, tools?}`, or
 * the `{format: "openai-chat", model, messages, …}` trajectory file (see transcripts/README.md).
 *
 * - Messages are validated and kept as found, `<thinking>` text included (it is what the file says the
 *   model saw). Entry ids are `m<index>`.
 * - Parallel calls that a converter split over several assistant messages are merged (pairing.ts).
 * - A `system` message starting `[compact_boundary]` is a compaction marker, not a message: it is
 *   counted as `compact_boundary` in `skipped` and becomes an imported compaction whose summary is the
 *   following user message when that one starts "This session is being continued".
 * - Image parts in a tool message (not valid there) move to a user message after the step's tool
 *   messages; the tool message keeps its text and a placeholder.
 * - A user message that begins with the header of a ContextKeeper summary (`summary-header.ts`: what
 *   `compact --out` and `replay --out` write) is that summary read back: an imported compaction whose
 *   summary is the message itself, written by ContextKeeper, so a later compaction carries it forward
 *   as the product's own earlier summary (its requests, files and notes), never as a typed request.
 * - Top-level `tools` become tool schemas; top-level `model` the model. Other top-level fields
 *   (`phases`, …) are annotations and are ignored.
 */
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import type { EntryMeta, ToolSchema } from '../../compaction/types';
import { TranscriptBuilder } from '../builder';
import { arrayFormat } from '../detect';
import type { MessageDraft } from '../drafts';
import { TranscriptError, fieldPath } from '../errors';
import { documentFault, parseJsonDocument } from '../json';
import { readJsonDocument } from '../json-array-stream';
import { checkMessage } from '../openai-messages';
import { plainText } from '../../compaction/content-text';
import { isContextKeeperSummary } from '../../compaction/summary/summary-header';

type Fault = (path: Array<string | number>, detail: string) => TranscriptError;

const SUMMARY_START = /^This session is being continued from a previous conversation/;

/** Reads OpenAI chat messages. @throws TranscriptError (line where the bad value starts, field path) */
export function readOpenAIChat(text: string, builder: TranscriptBuilder, parsed?: unknown): void {
  const doc = parsed ?? parseJsonDocument(text, builder.file);
  const fault = documentFault(text, builder.file);
  // Ids are `m<index>` and `m<index>/images`: none can repeat.
  builder.idsUnique = true;
  let messages: unknown;
  let prefix: Array<string | number> = [];
  if (Array.isArray(doc)) messages = doc;
  else if (doc && typeof doc === 'object') {
    const obj = doc as Record<string, unknown>;
    messages = obj.messages;
    prefix = ['messages'];
    if (!Array.isArray(messages)) throw fault(['messages'], 'expected a list of messages');
    if (typeof obj.model === 'string') builder.model = obj.model;
    if (obj.tools !== undefined) {
      if (!Array.isArray(obj.tools)) throw fault(['tools'], 'tools is not a list');
      obj.tools.forEach((t, k) => builder.tools.push(checkTool(t, k, fault)));
    }
  } else throw fault([], 'expected a JSON array of messages or an object with messages');

  const list = messages as unknown[];
  let repaired = 0;
  for (let i = 0; i < list.length; i++) {
    const raw = list[i];
    // The checked copy is what stays: the parsed original can go (only later ones are looked at).
    list[i] = undefined;
    repaired += readMessage(raw, i, list[i + 1], [...prefix, i], builder, fault);
  }
  if (repaired) builder.warn(`${repaired} tool call argument value(s) were objects and were serialised to JSON text`);
}

/**
 * Reads `file` when it holds a plain JSON array of messages or a `{model?, messages, tools?, …}`
 * object, one message at a time (see json-array-stream.ts): same result as {@link readOpenAIChat} on
 * the whole text, without holding the file's text or all parsed messages at once. Unless `known` says
 * the format, a bare array must be detected as OpenAI chat from its first 50 objects (as detection
 * does on the whole document); an object is chat messages unless it is another format's document
 * (`history` or `entries` among its members, or the fields of a JSON-lines record).
 * @returns the filled builder, or undefined when the file is not such a document or holds any fault
 *   (the caller then reads it whole, which reports the fault with its line)
 */
export async function streamOpenAIChat(file: string, known: boolean): Promise<TranscriptBuilder | undefined> {
  const builder = new TranscriptBuilder(file, 'openai-chat');
  // Ids are `m<index>` and `m<index>/images`: none can repeat.
  builder.idsUnique = true;
  // Elements wait here until detection has seen enough of them; then each waits for the next (a
  // compaction marker reads the message after it).
  const waiting: unknown[] = [];
  let objects = 0;
  let detected = known;
  let next = 0;
  let repaired = 0;
  /** The object's members other than `messages`, parsed whole (small: model, tools, annotations). */
  let members: Record<string, unknown> | undefined;
  let prefix: Array<string | number> = [];
  const fault = (path: ReadonlyArray<string | number>, detail: string) =>
    new TranscriptError(file, 0, fieldPath(path), detail);
  const readUpTo = (end: number) => {
    for (; next < end; next++) {
      const raw = waiting[0];
      waiting.shift();
      repaired += readMessage(raw, next, waiting[0], [...prefix, next], builder, fault);
    }
  };
  try {
    const result = await readJsonDocument(file, {
      field: 'messages',
      onElement: ({ value, index, field }) => {
        waiting.push(value);
        if (field !== undefined && prefix.length === 0) {
          // An object with a list of messages is chat messages (unless a member says otherwise).
          members ??= {};
          prefix = ['messages'];
          detected = true;
        }
        if (!detected) {
          if (value && typeof value === 'object' && !Array.isArray(value)) objects++;
          if (objects < DETECTION_OBJECTS) return;
          if (arrayFormat(waiting, file) !== 'openai-chat') return false;
          detected = true;
        }
        readUpTo(index);
      },
      onMember: (key, value) => {
        // Another format's document (SWE-agent's history, an exported session's entries), or
        // messages that are not a list: the whole read decides and reports.
        if (key === 'history' || key === 'entries' || key === 'messages') return false;
        members ??= {};
        members[key] = value;
      },
    });
    if (result !== 'ok') return undefined;
    if (members) {
      if (prefix.length === 0) return undefined; // an object without messages
      if (!known && (typeof members.type === 'string' || typeof members.id === 'string')) return undefined;
      if (typeof members.model === 'string') builder.model = members.model;
      if (members.tools !== undefined) {
        if (!Array.isArray(members.tools)) return undefined;
        members.tools.forEach((t, k) => builder.tools.push(checkTool(t, k, fault)));
      }
    }
    // A short array is detected once it is whole; one without objects is left to the whole read.
    if (!detected && (objects === 0 || arrayFormat(waiting, file) !== 'openai-chat')) return undefined;
    readUpTo(next + waiting.length);
  } catch (err) {
    if (err instanceof TranscriptError) return undefined;
    throw err;
  }
  if (repaired) builder.warn(`${repaired} tool call argument value(s) were objects and were serialised to JSON text`);
  return builder;
}

/** Objects that format detection looks at in a JSON array (see detect.ts). */
const DETECTION_OBJECTS = 50;

/**
 * Checks the message `raw` at index `i` (path `path`) and adds it to `builder`; `next` is the raw
 * element after it (a compaction marker takes its summary from there). Returns the number of tool
 * call arguments serialised. @throws TranscriptError from `fault`
 */
function readMessage(
  raw: unknown,
  i: number,
  next: unknown,
  path: Array<string | number>,
  builder: TranscriptBuilder,
  fault: Fault,
): number {
  const checked = checkMessage(raw, path, fault);
  for (const note of [...checked.cleaned, ...checked.contentNotes])
    builder.warn(`${builder.file}: message ${i}: ${note}`);
  const id = `m${i}`;
  const meta: EntryMeta = { source: builder.source(i + 1, id) };
  if (checked.imageSizes.length) meta.imageSizes = checked.imageSizes;
  const message = checked.message;
  if (message.role === 'system' && plainText(message.content, '\n\n').startsWith('[compact_boundary]')) {
    builder.skip('compact_boundary');
    const after = next as { role?: unknown; content?: unknown } | undefined;
    const summary = after && after.role === 'user' ? plainText(after.content, '\n\n') : '';
    if (SUMMARY_START.test(summary)) builder.boundary({ id, summary, summaryDraftId: `m${i + 1}` });
    else builder.boundary({ id, summary: '' });
    return checked.repairedArguments;
  }
  if (message.role === 'user') {
    const text = plainText(message.content, '\n\n');
    if (SUMMARY_START.test(text)) meta.importedSummary = true;
    else if (isContextKeeperSummary(text)) {
      // A summary ContextKeeper wrote (`compact --out`, `replay --out`): it stands for messages this
      // file no longer holds, so it is read back as a compaction whose summary is this message.
      meta.importedSummary = true;
      meta.summaryWriter = 'context-keeper';
      builder.explicitCompactions.push({
        replacedIds: [id],
        summary: text,
        summaryEntryId: id,
        writer: 'context-keeper',
      });
    }
  }
  if (message.role === 'tool' && Array.isArray(message.content) && message.content.some((p) => p.type !== 'text')) {
    builder.add(splitToolImages(id, meta, message.tool_call_id, message.content));
    return checked.repairedArguments;
  }
  builder.add({ kind: 'message', id, meta, message });
  return checked.repairedArguments;
}

/**
 * Tool messages only take text: image parts move to a user message after the step's tool messages,
 * and the tool message says where they went.
 */
function splitToolImages(
  id: string,
  meta: EntryMeta,
  toolCallId: string,
  parts: ChatCompletionContentPart[],
): MessageDraft {
  const images = parts.filter((p) => p.type !== 'text');
  const texts = parts.flatMap((p) => (p.type === 'text' ? [p.text] : []));
  texts.push(`[${images.length} image(s): attached in the next user message]`);
  const { imageSizes, ...rest } = meta;
  return {
    kind: 'message',
    id,
    meta: rest,
    message: { role: 'tool', tool_call_id: toolCallId, content: texts.join('\n') },
    attachment: {
      kind: 'message',
      id: `${id}/images`,
      meta: imageSizes ? { ...rest, imageSizes } : rest,
      message: {
        role: 'user',
        content: [{ type: 'text', text: `[Images returned by tool call ${toolCallId}]` }, ...images],
      },
    },
  };
}

function checkTool(raw: unknown, index: number, fault: ReturnType<typeof documentFault>): ToolSchema {
  const tool = (raw ?? {}) as Record<string, unknown>;
  const fn = tool.function as Record<string, unknown> | undefined;
  if (tool.type !== 'function' || !fn || typeof fn.name !== 'string') {
    throw fault(['tools', index], 'tool is not a {type: "function", function: {name, …}} schema');
  }
  return tool as unknown as ToolSchema;
}
