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
 * - Top-level `tools` become tool schemas; top-level `model` the model. Other top-level fields
 *   (`phases`, …) are annotations and are ignored.
 */
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import type { EntryMeta, ToolSchema } from '../../compaction/types';
import type { TranscriptBuilder } from '../builder';
import { contentText, type MessageDraft } from '../drafts';
import { documentFault, parseJsonDocument } from '../json';
import { checkMessage } from '../openai-messages';

const SUMMARY_START = /^This session is being continued from a previous conversation/;

/** Reads OpenAI chat messages. @throws TranscriptError (line where the bad value starts, field path) */
export function readOpenAIChat(text: string, builder: TranscriptBuilder, parsed?: unknown): void {
  const doc = parsed ?? parseJsonDocument(text, builder.file);
  const fault = documentFault(text, builder.file);
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
    const path = [...prefix, i];
    const checked = checkMessage(list[i], path, fault);
    // The checked copy is what stays: the parsed original can go (only later ones are looked at).
    list[i] = undefined;
    repaired += checked.repairedArguments;
    for (const note of checked.cleaned) builder.warn(`${builder.file}: message ${i}: ${note}`);
    const id = `m${i}`;
    const meta: EntryMeta = { source: builder.source(i + 1, id) };
    if (checked.imageSizes.length) meta.imageSizes = checked.imageSizes;
    const message = checked.message;
    if (message.role === 'system' && contentText(message.content).startsWith('[compact_boundary]')) {
      builder.skip('compact_boundary');
      const next = list[i + 1] as { role?: unknown; content?: unknown } | undefined;
      const summary = next && next.role === 'user' ? contentText(next.content) : '';
      if (SUMMARY_START.test(summary)) builder.boundary({ id, summary, summaryDraftId: `m${i + 1}` });
      else builder.boundary({ id, summary: '' });
      continue;
    }
    if (message.role === 'user' && SUMMARY_START.test(contentText(message.content))) meta.importedSummary = true;
    if (message.role === 'tool' && Array.isArray(message.content) && message.content.some((p) => p.type !== 'text')) {
      builder.add(splitToolImages(id, meta, message.tool_call_id, message.content));
      continue;
    }
    builder.add({ kind: 'message', id, meta, message });
  }
  if (repaired) builder.warn(`${repaired} tool call argument value(s) were objects and were serialised to JSON text`);
}

/**
 * Tool messages only take text: image parts move to a user message after the step's tool messages,
 * and the tool message says where they went.
 */
function splitToolImages(id: string, meta: EntryMeta, toolCallId: string, parts: ChatCompletionContentPart[]): MessageDraft {
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
      message: { role: 'user', content: [{ type: 'text', text: `[Images returned by tool call ${toolCallId}]` }, ...images] },
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
