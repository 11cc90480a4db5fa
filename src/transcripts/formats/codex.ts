/**
 * OpenAI Codex CLI rollout JSONL (`~/.codex/sessions/…/rollout-*.jsonl`), see transcripts/README.md.
 *
 * - `response_item` records are the model-visible history: `message` (user/assistant/developer),
 *   `function_call` / `custom_tool_call` (assistant tool calls), `function_call_output` /
 *   `custom_tool_call_output` (tool messages, paired by `call_id`). Outputs are kept verbatim: in 0.5x
 *   versions they are JSON text, which is what the model was sent.
 * - Consecutive calls (and assistant text before them) with no output in between are one model response
 *   and merge into one assistant message.
 * - A free-form `custom_tool_call` input becomes the arguments `{"input": "<text>"}` (arguments must be
 *   JSON in chat format).
 * - `reasoning` items (encrypted) are skipped and counted; so are `event_msg`s (by their own type),
 *   `turn_context`, `session_meta`, `ghost_snapshot` and unknown items.
 * - `token_count` events: a new `last_token_usage.input_tokens` becomes `meta.reportedPromptTokens` of the
 *   next assistant message (0.5x writes the count just before the response's items);
 *   `model_context_window` becomes `contextWindow`. `turn_context.model` gives the model.
 * - `compacted` records (newer CLIs) become an imported compaction whose summary is a user entry.
 */
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import type { ChatMessage, EntryMeta } from '../../compaction/types';
import type { TranscriptBuilder } from '../builder';
import { userContent } from '../drafts';
import { TranscriptError, fieldPath } from '../errors';
import { imageSizeFromUrl, type ImageSize } from '../images';
import { parseJsonLines } from '../json';
import { parseJsonObject } from '../../format/json';

type Rec = Record<string, unknown>;

/** Reads a Codex rollout. @throws TranscriptError (line and field of the bad record) */
export function readCodex(text: string, builder: TranscriptBuilder): void {
  let model: string | undefined;
  let pendingPrompt: number | undefined;
  let lastTotal: number | undefined;
  let response = 0;
  let inResponse = false;

  for (const { line, value: rec } of parseJsonLines(text, builder.file)) {
    const fault = (path: Array<string | number>, detail: string) =>
      new TranscriptError(builder.file, line, fieldPath(path), detail);
    const type = typeof rec.type === 'string' ? rec.type : 'unknown';
    const payload = (rec.payload && typeof rec.payload === 'object' ? rec.payload : {}) as Rec;
    const meta = (id: string): EntryMeta => {
      const m: EntryMeta = { source: builder.source(line, id) };
      if (typeof rec.timestamp === 'string') m.timestamp = rec.timestamp;
      return m;
    };
    const id = `L${line}`;

    if (type === 'session_meta') {
      builder.skip(type);
      const base = payload.base_instructions as Rec | undefined;
      const instructions =
        typeof payload.instructions === 'string'
          ? payload.instructions
          : typeof base?.text === 'string'
            ? base.text
            : undefined;
      if (instructions)
        builder.add({ kind: 'message', id, meta: meta(id), message: { role: 'system', content: instructions } });
      continue;
    }
    if (type === 'turn_context') {
      if (typeof payload.model === 'string') model = payload.model;
      builder.skip(type);
      continue;
    }
    if (type === 'event_msg') {
      const kind = typeof payload.type === 'string' ? payload.type : 'event_msg';
      if (kind === 'token_count' && payload.info && typeof payload.info === 'object') {
        const info = payload.info as Rec;
        const total = (info.total_token_usage as Rec | undefined)?.total_tokens;
        const last = (info.last_token_usage as Rec | undefined)?.input_tokens;
        // Codex repeats the previous count after each tool output; only a changed total is a new request.
        if (typeof total === 'number' && total !== lastTotal && typeof last === 'number') pendingPrompt = last;
        if (typeof total === 'number') lastTotal = total;
        if (typeof info.model_context_window === 'number') builder.contextWindow = info.model_context_window;
      }
      builder.skip(kind);
      continue;
    }
    if (type === 'compacted') {
      const summary = typeof payload.message === 'string' ? payload.message : '';
      builder.boundary({ id: `${id}/boundary`, summary, summaryDraftId: summary ? id : undefined });
      if (summary)
        builder.add({
          kind: 'message',
          id,
          meta: { ...meta(id), importedSummary: true },
          message: { role: 'user', content: summary },
        });
      if (Array.isArray(payload.replacement_history))
        builder.warn(`line ${line}: compaction replacement history is not imported; the summary stands for it`);
      inResponse = false;
      continue;
    }
    if (type !== 'response_item') {
      builder.skip(type);
      continue;
    }

    const item = typeof payload.type === 'string' ? payload.type : 'unknown';
    const assistantMeta = () => {
      const m = meta(id);
      if (model) m.model = model;
      if (pendingPrompt !== undefined) m.reportedPromptTokens = pendingPrompt;
      pendingPrompt = undefined;
      return m;
    };
    const openResponse = () => {
      if (!inResponse) response++;
      inResponse = true;
      return `response-${response}`;
    };
    switch (item) {
      case 'message': {
        const role = payload.role;
        if (role !== 'user' && role !== 'assistant' && role !== 'developer' && role !== 'system') {
          throw fault(['payload', 'role'], `unknown role ${JSON.stringify(role)}`);
        }
        const { parts, sizes } = messageParts(payload.content, fault);
        if (role === 'assistant') {
          const text = parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n\n');
          builder.add({
            kind: 'message',
            id,
            meta: assistantMeta(),
            responseKey: openResponse(),
            message: { role, content: text },
          });
          continue;
        }
        inResponse = false;
        const m = meta(id);
        if (sizes.length) m.imageSizes = sizes;
        const message: ChatMessage =
          role === 'user'
            ? { role, content: userContent(parts) }
            : { role, content: parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n\n') };
        builder.add({ kind: 'message', id, meta: m, message });
        continue;
      }
      case 'function_call':
      case 'custom_tool_call':
      case 'local_shell_call': {
        const callId = payload.call_id ?? payload.id;
        if (typeof callId !== 'string' || !callId) throw fault(['payload', 'call_id'], 'tool call has no call_id');
        const name = typeof payload.name === 'string' ? payload.name : item === 'local_shell_call' ? 'local_shell' : '';
        if (!name) throw fault(['payload', 'name'], 'tool call has no name');
        let args: string;
        if (item === 'function_call')
          args = typeof payload.arguments === 'string' ? payload.arguments : JSON.stringify(payload.arguments ?? {});
        else if (item === 'custom_tool_call')
          args = JSON.stringify({ input: typeof payload.input === 'string' ? payload.input : (payload.input ?? '') });
        else args = JSON.stringify(payload.action ?? {});
        builder.add({
          kind: 'message',
          id,
          meta: assistantMeta(),
          responseKey: openResponse(),
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: callId, type: 'function', function: { name, arguments: args } }],
          },
        });
        continue;
      }
      case 'function_call_output':
      case 'custom_tool_call_output':
      case 'local_shell_call_output': {
        inResponse = false;
        if (typeof payload.call_id !== 'string' || !payload.call_id)
          throw fault(['payload', 'call_id'], 'tool result has no call_id');
        const ok = outputOk(payload.output);
        builder.add({
          kind: 'message',
          id,
          meta: ok === undefined ? meta(id) : { ...meta(id), toolOk: ok },
          message: { role: 'tool', tool_call_id: payload.call_id, content: outputText(payload.output) },
        });
        continue;
      }
      default:
        builder.skip(item);
    }
  }
  if (model && !builder.model) builder.model = model;
}

function messageParts(content: unknown, fault: (path: Array<string | number>, detail: string) => TranscriptError) {
  const parts: ChatCompletionContentPart[] = [];
  const sizes: Array<ImageSize | undefined> = [];
  if (typeof content === 'string') return { parts: [{ type: 'text' as const, text: content }], sizes };
  if (!Array.isArray(content)) throw fault(['payload', 'content'], 'content is not a list');
  content.forEach((raw, index) => {
    const block = (raw ?? {}) as Rec;
    if (
      (block.type === 'input_text' || block.type === 'output_text' || block.type === 'text') &&
      typeof block.text === 'string'
    ) {
      parts.push({ type: 'text', text: block.text });
    } else if (block.type === 'input_image' && typeof block.image_url === 'string') {
      parts.push({ type: 'image_url', image_url: { url: block.image_url } });
      sizes.push(imageSizeFromUrl(block.image_url));
    } else {
      throw fault(['payload', 'content', index, 'type'], `unknown content block type ${JSON.stringify(block.type)}`);
    }
  });
  return { parts, sizes };
}

/** Tool output as text: strings verbatim, block lists joined, anything else as JSON. */
/**
 * Whether a tool call succeeded, where the output records it: a `success` flag on an output object,
 * or `metadata.exit_code` in the JSON text shell outputs carry. Undefined otherwise.
 */
function outputOk(output: unknown): boolean | undefined {
  if (output && typeof output === 'object' && typeof (output as Rec).success === 'boolean')
    return (output as Rec).success as boolean;
  if (typeof output !== 'string' || !output.startsWith('{')) return undefined;
  const exit = (parseJsonObject(output)?.metadata as Rec | undefined)?.exit_code;
  return typeof exit === 'number' ? exit === 0 : undefined;
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) {
    return output.map((b) => ((b as Rec)?.text !== undefined ? String((b as Rec).text) : JSON.stringify(b))).join('\n');
  }
  if (output && typeof output === 'object' && typeof (output as Rec).content === 'string')
    return (output as Rec).content as string;
  return output === undefined ? '' : JSON.stringify(output);
}
