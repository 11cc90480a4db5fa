/**
 * OpenHands V1 (agent SDK) event list, exported as one JSON array, see transcripts/README.md.
 *
 * - `SystemPromptEvent` -> system message; its `tools` become tool schemas (OpenHands records no
 *   parameter schema here, so `parameters` is an empty object schema).
 * - `MessageEvent` -> message of `llm_message.role` (text and image content).
 * - `ActionEvent` -> assistant message: `thought` text plus one tool call (`tool_call.arguments`).
 *   Actions of one LLM response (same `llm_response_id`) merge into one assistant message.
 * - `ObservationEvent`, `UserRejectObservation`, `AgentErrorEvent` with a `tool_call_id` -> tool messages.
 * - `Condensation` -> imported compaction (`forgotten_event_ids`, `summary`); the summary is not an entry.
 * - A content block of a type other than `text` and `image` is read as text when it holds text and left
 *   out otherwise, with a warning naming its field; tool-call arguments that are not JSON are kept as
 *   recorded, with a warning.
 * - Thinking blocks and `reasoning_content` are counted in `skipped`; other kinds are skipped by kind.
 * Entry ids are event ids. There are no token counts in events.
 */
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import type { EntryMeta } from '../../compaction/types';
import type { TranscriptBuilder } from '../builder';
import { userContent } from '../drafts';
import { imageSizeFromUrl, type ImageSize } from '../images';
import { documentFault, parseJsonDocument } from '../json';
import { plainText } from '../../compaction/content-text';
import { fieldPath } from '../errors';
import { parsesAsJson } from '../../format/json';
import { invalidArgumentsNote, roleFault, unknownBlockNote, unknownBlockText } from '../notes';

type Rec = Record<string, unknown>;
type Warn = (path: Array<string | number>, detail: string) => void;

/** Reads an OpenHands event list. @throws TranscriptError (line of the event, field path `[i].…`) */
export function readOpenHands(text: string, builder: TranscriptBuilder, parsed?: unknown): void {
  const events = parsed ?? parseJsonDocument(text, builder.file);
  const fault = documentFault(text, builder.file);
  if (!Array.isArray(events)) throw fault([], 'expected a JSON array of events');
  // A document's warnings name the event by its index in the field path (`[3].llm_message.content[0].type`).
  const warn: Warn = (path, detail) => builder.warn(`${builder.file}: ${fieldPath(path)}: ${detail}`);

  events.forEach((raw, index) => {
    if (!raw || typeof raw !== 'object') throw fault([index], 'event is not an object');
    const ev = raw as Rec;
    const kind = typeof ev.kind === 'string' ? ev.kind : 'unknown';
    const id = typeof ev.id === 'string' && ev.id ? ev.id : `event-${index}`;
    const meta: EntryMeta = { source: builder.source(index + 1, id) };
    if (typeof ev.timestamp === 'string') meta.timestamp = ev.timestamp;
    const countThinking = () => {
      if (Array.isArray(ev.thinking_blocks)) builder.skip('thinking', ev.thinking_blocks.length);
      if (typeof ev.reasoning_content === 'string' && ev.reasoning_content) builder.skip('reasoning_content');
    };

    switch (kind) {
      case 'SystemPromptEvent': {
        const prompt = ev.system_prompt as Rec | undefined;
        const content = typeof prompt?.text === 'string' ? prompt.text : '';
        builder.add({ kind: 'message', id, meta, message: { role: 'system', content } });
        if (Array.isArray(ev.tools)) {
          ev.tools.forEach((t, k) => {
            const tool = (t ?? {}) as Rec;
            const name =
              typeof tool.title === 'string' ? tool.title : typeof tool.name === 'string' ? tool.name : undefined;
            if (!name) throw fault([index, 'tools', k, 'title'], 'tool has no name');
            const parameters = (tool.parameters ?? tool.input_schema ?? { type: 'object', properties: {} }) as Record<
              string,
              unknown
            >;
            builder.tools.push({
              type: 'function',
              function: {
                name,
                description: typeof tool.description === 'string' ? tool.description : undefined,
                parameters,
              },
            });
          });
        }
        return;
      }
      case 'MessageEvent': {
        const llm = ev.llm_message as Rec | undefined;
        if (!llm || typeof llm !== 'object') throw fault([index, 'llm_message'], 'message event has no llm_message');
        const role = llm.role;
        if (Array.isArray(llm.thinking_blocks)) builder.skip('thinking', llm.thinking_blocks.length);
        const { parts, sizes } = contentParts(llm.content, [index, 'llm_message', 'content'], warn);
        if (role === 'user') {
          if (sizes.length) meta.imageSizes = sizes;
          builder.add({ kind: 'message', id, meta, message: { role, content: userContent(parts) } });
        } else if (role === 'assistant' || role === 'system') {
          builder.add({ kind: 'message', id, meta, message: { role, content: plainText(parts, '\n\n') } });
        } else {
          throw fault([index, 'llm_message', 'role'], roleFault(role, ['user', 'assistant', 'system']));
        }
        return;
      }
      case 'ActionEvent': {
        countThinking();
        const call = (ev.tool_call ?? {}) as Rec;
        const callId = typeof ev.tool_call_id === 'string' && ev.tool_call_id ? ev.tool_call_id : call.id;
        if (typeof callId !== 'string' || !callId) throw fault([index, 'tool_call_id'], 'action has no tool_call_id');
        const name = typeof call.name === 'string' ? call.name : ev.tool_name;
        if (typeof name !== 'string') throw fault([index, 'tool_name'], 'action has no tool name');
        const args =
          typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? ev.action ?? {});
        if (args.trim() !== '' && !parsesAsJson(args))
          warn([index, 'tool_call', 'arguments'], invalidArgumentsNote(`tool call ${callId} (${name})`));
        const thought = plainText(contentParts(ev.thought, [index, 'thought'], warn).parts, '\n\n');
        builder.add({
          kind: 'message',
          id,
          meta,
          responseKey: typeof ev.llm_response_id === 'string' ? ev.llm_response_id : undefined,
          message: {
            role: 'assistant',
            content: thought || null,
            tool_calls: [{ id: callId, type: 'function', function: { name, arguments: args } }],
          },
        });
        return;
      }
      case 'ObservationEvent':
      case 'UserRejectObservation':
      case 'AgentErrorEvent': {
        const callId = ev.tool_call_id;
        if (typeof callId !== 'string' || !callId) {
          if (kind === 'ObservationEvent') throw fault([index, 'tool_call_id'], 'observation has no tool_call_id');
          builder.skip(kind);
          return;
        }
        let body: string;
        // Rejections and error events are failures; an observation says so in `is_error` when it records it.
        let toolOk: boolean | undefined = false;
        let images: { parts: ChatCompletionContentPart[]; sizes: Array<ImageSize | undefined> } = {
          parts: [],
          sizes: [],
        };
        if (kind === 'ObservationEvent') {
          const observation = (ev.observation ?? {}) as Rec;
          const mapped = contentParts(observation.content, [index, 'observation', 'content'], warn);
          body = plainText(mapped.parts, '\n\n');
          toolOk = typeof observation.is_error === 'boolean' ? !observation.is_error : undefined;
          // A terminal observation states its exit code: `is_error` stays false for a command that
          // failed (exit 1), timed out or never finished (-1), so the exit code decides. Its metadata's
          // suffix ("[The command timed out after 15.0 seconds…]", "[… CTRL+C was sent.]") is part of
          // what the agent was shown.
          const exit = observation.exit_code ?? (observation.metadata as Rec | undefined)?.exit_code;
          if (toolOk !== false && typeof exit === 'number') toolOk = exit === 0;
          const suffix = (observation.metadata as Rec | undefined)?.suffix;
          if (typeof suffix === 'string' && suffix.trim()) body = body ? `${body}\n${suffix.trim()}` : suffix.trim();
          images = { parts: mapped.parts.filter((p) => p.type === 'image_url'), sizes: mapped.sizes };
          if (images.parts.length) body += `\n[${images.parts.length} image(s): attached in the next user message]`;
        } else if (kind === 'UserRejectObservation') {
          body = `User rejected the action${typeof ev.rejection_reason === 'string' ? `: ${ev.rejection_reason}` : ''}`;
        } else {
          body = typeof ev.error === 'string' ? ev.error : JSON.stringify(ev.error ?? '');
        }
        builder.add({
          kind: 'message',
          id,
          meta: toolOk === undefined ? meta : { ...meta, toolOk },
          message: { role: 'tool', tool_call_id: callId, content: body },
          attachment: images.parts.length
            ? {
                kind: 'message',
                id: `${id}/images`,
                meta: { ...meta, imageSizes: images.sizes },
                message: {
                  role: 'user',
                  content: [{ type: 'text', text: `[Images returned by tool call ${callId}]` }, ...images.parts],
                },
              }
            : undefined,
        });
        return;
      }
      case 'Condensation': {
        const forgotten = Array.isArray(ev.forgotten_event_ids)
          ? ev.forgotten_event_ids.filter((x): x is string => typeof x === 'string')
          : [];
        builder.explicitCompactions.push({
          replacedIds: forgotten,
          summary: typeof ev.summary === 'string' ? ev.summary : '',
        });
        builder.skip(kind);
        return;
      }
      default:
        builder.skip(kind);
    }
  });
}

/**
 * OpenHands content at `path`: `text` blocks and `image` blocks with `image_urls`. A block of another
 * type is read as text when it holds text and left out otherwise, with a warning either way.
 */
function contentParts(
  content: unknown,
  path: Array<string | number>,
  warn: Warn,
): { parts: ChatCompletionContentPart[]; sizes: Array<ImageSize | undefined> } {
  const parts: ChatCompletionContentPart[] = [];
  const sizes: Array<ImageSize | undefined> = [];
  if (typeof content === 'string') return { parts: content ? [{ type: 'text', text: content }] : [], sizes };
  if (!Array.isArray(content)) return { parts, sizes };
  content.forEach((raw: unknown, k: number) => {
    const block = (raw ?? {}) as Rec;
    if (block.type === 'text' && typeof block.text === 'string') {
      if (block.text) parts.push({ type: 'text', text: block.text });
    } else if (block.type === 'image' && Array.isArray(block.image_urls)) {
      for (const url of block.image_urls) {
        if (typeof url !== 'string') continue;
        parts.push({ type: 'image_url', image_url: { url } });
        sizes.push(imageSizeFromUrl(url));
      }
    } else if (block.type !== 'text' && block.type !== 'image') {
      const text = unknownBlockText(block);
      if (text !== undefined) parts.push({ type: 'text', text });
      warn([...path, k, 'type'], unknownBlockNote(block.type, text !== undefined));
    }
  });
  return { parts, sizes };
}
