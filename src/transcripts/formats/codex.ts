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
 * - A content block of a type not listed here is read as text when it holds text, with a warning, and
 *   is an error otherwise; `function_call` arguments that are not JSON are kept as recorded, with a
 *   warning naming the line.
 * - `reasoning` items (encrypted) are skipped and counted; so are `event_msg`s (by their own type),
 *   `turn_context`, `session_meta`, `ghost_snapshot` and unknown items.
 * - `token_count` events: a new `last_token_usage.input_tokens` becomes `meta.reportedPromptTokens` of the
 *   next assistant message (0.5x writes the count just before the response's items);
 *   `model_context_window` becomes `contextWindow`. `turn_context.model` gives the model.
 * - `compacted` records (newer CLIs) become an imported compaction whose summary is a user entry. When
 *   the record carries `replacement_history` (what Codex continues from: the user and developer
 *   messages it kept and its summary, an opaque encrypted `compaction` item after a remote compaction),
 *   the context is rebuilt from it: the summary first (a labelled placeholder for an encrypted one),
 *   then the kept messages.
 */
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import type { ChatMessage, EntryMeta } from '../../compaction/types';
import type { TranscriptBuilder } from '../builder';
import { userContent } from '../drafts';
import { TranscriptError, fieldPath } from '../errors';
import { imageSizeFromUrl, type ImageSize } from '../images';
import { cutLastLineWarning, parseJsonLines } from '../json';
import { parseJsonObject, parsesAsJson } from '../../format/json';
import { invalidArgumentsNote, roleFault, unknownBlockNote, unknownBlockText } from '../notes';
import { plainText } from '../../compaction/content-text';

type Rec = Record<string, unknown>;

/** Reads a Codex rollout. @throws TranscriptError (line and field of the bad record) */
export function readCodex(text: string, builder: TranscriptBuilder): void {
  let model: string | undefined;
  let pendingPrompt: number | undefined;
  let lastTotal: number | undefined;
  let response = 0;
  let inResponse = false;
  let timestamp: string | undefined;

  /**
   * Adds one model-visible history item (a `response_item` payload, or an item of a compaction's
   * replacement history) as `id`, its faults named under `path`.
   */
  function addItem(payload: Rec, id: string, line: number, path: Array<string | number>): void {
    const fault = (at: Array<string | number>, detail: string) =>
      new TranscriptError(builder.file, line, fieldPath([...path, ...at.slice(1)]), detail);
    const warn = (at: Array<string | number>, detail: string) =>
      builder.warn(`${builder.file}:${line}: ${fieldPath([...path, ...at.slice(1)])}: ${detail}`);
    const meta = (entryId: string): EntryMeta => {
      const m: EntryMeta = { source: builder.source(line, entryId) };
      if (timestamp !== undefined) m.timestamp = timestamp;
      return m;
    };
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
          throw fault(['payload', 'role'], roleFault(role, ['user', 'assistant', 'developer', 'system']));
        }
        const { parts, sizes } = messageParts(payload.content, fault, warn);
        if (role === 'assistant') {
          const text = plainText(parts, '\n\n');
          builder.add({
            kind: 'message',
            id,
            meta: assistantMeta(),
            responseKey: openResponse(),
            message: { role, content: text },
          });
          return;
        }
        inResponse = false;
        const m = meta(id);
        if (sizes.length) m.imageSizes = sizes;
        const message: ChatMessage =
          role === 'user' ? { role, content: userContent(parts) } : { role, content: plainText(parts, '\n\n') };
        builder.add({ kind: 'message', id, meta: m, message });
        return;
      }
      case 'function_call':
      case 'custom_tool_call':
      case 'local_shell_call': {
        const callId = payload.call_id ?? payload.id;
        if (typeof callId !== 'string' || !callId) throw fault(['payload', 'call_id'], 'tool call has no call_id');
        const name = typeof payload.name === 'string' ? payload.name : item === 'local_shell_call' ? 'local_shell' : '';
        if (!name) throw fault(['payload', 'name'], 'tool call has no name');
        let args: string;
        if (item === 'function_call') {
          args = typeof payload.arguments === 'string' ? payload.arguments : JSON.stringify(payload.arguments ?? {});
          if (args.trim() !== '' && !parsesAsJson(args))
            warn(['payload', 'arguments'], invalidArgumentsNote(`tool call ${callId} (${name})`));
        } else if (item === 'custom_tool_call')
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
        return;
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
        return;
      }
      default:
        builder.skip(item);
    }
  }

  /**
   * A compaction recorded with its replacement history (newer Codex CLIs): what Codex continues from
   * is that list, the user and developer messages it kept and its summary, which the remote compaction
   * returns as an opaque `compaction` item (`encrypted_content`; `compaction_summary` in some
   * versions). Everything before stands replaced; the summary (or a labelled placeholder for the
   * encrypted one, counted as that placeholder) stands first, then the kept messages in their order.
   */
  function replaceHistory(history: unknown[], message: string, line: number): void {
    const id = `L${line}`;
    const kept: Array<{ payload: Rec; k: number }> = [];
    let summaryText: string | undefined;
    let summaryAt: number | undefined;
    history.forEach((raw, k) => {
      if (!raw || typeof raw !== 'object' || Array.isArray(raw))
        throw new TranscriptError(
          builder.file,
          line,
          fieldPath(['payload', 'replacement_history', k]),
          'replacement history item is not an object',
        );
      const payload = raw as Rec;
      if (payload.type === 'compaction' || payload.type === 'compaction_summary') {
        const sealed = typeof payload.encrypted_content === 'string' ? payload.encrypted_content : '';
        summaryText = encryptedSummaryPlaceholder(sealed.length);
        summaryAt = k;
        return;
      }
      kept.push({ payload, k });
    });
    // A local compaction keeps its summary as a user message of the history, equal to `message`.
    if (summaryText === undefined && message.trim() !== '') {
      const index = kept.findIndex(
        ({ payload }) => payload.type === 'message' && itemText(payload).trim() === message.trim(),
      );
      if (index >= 0) {
        summaryAt = kept[index].k;
        kept.splice(index, 1);
      }
      summaryText = message;
    }
    const summaryId = `${id}/h${summaryAt ?? 'summary'}`;
    builder.boundary({
      id: `${id}/boundary`,
      summary: summaryText ?? CONTINUED_NOTE,
      summaryDraftId: summaryText !== undefined ? summaryId : undefined,
    });
    if (summaryText !== undefined) {
      const m: EntryMeta = { source: builder.source(line, summaryId), importedSummary: true };
      if (timestamp !== undefined) m.timestamp = timestamp;
      builder.add({ kind: 'message', id: summaryId, meta: m, message: { role: 'user', content: summaryText } });
    }
    for (const { payload, k } of kept) addItem(payload, `${id}/h${k}`, line, ['payload', 'replacement_history', k]);
  }

  for (const { line, value: rec } of parseJsonLines(text, builder.file, cutLastLineWarning(builder))) {
    const type = typeof rec.type === 'string' ? rec.type : 'unknown';
    const payload = (rec.payload && typeof rec.payload === 'object' ? rec.payload : {}) as Rec;
    const meta = (id: string): EntryMeta => {
      const m: EntryMeta = { source: builder.source(line, id) };
      if (typeof rec.timestamp === 'string') m.timestamp = rec.timestamp;
      return m;
    };
    const id = `L${line}`;
    timestamp = typeof rec.timestamp === 'string' ? rec.timestamp : undefined;

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
        // A zero prompt is no request's measure.
        if (typeof total === 'number' && total !== lastTotal && typeof last === 'number' && last > 0)
          pendingPrompt = last;
        if (typeof total === 'number') lastTotal = total;
        if (typeof info.model_context_window === 'number') builder.contextWindow = info.model_context_window;
      }
      builder.skip(kind);
      continue;
    }
    if (type === 'compacted') {
      if (Array.isArray(payload.replacement_history)) {
        replaceHistory(payload.replacement_history, typeof payload.message === 'string' ? payload.message : '', line);
        inResponse = false;
        continue;
      }
      const summary = typeof payload.message === 'string' ? payload.message : '';
      builder.boundary({ id: `${id}/boundary`, summary, summaryDraftId: summary ? id : undefined });
      if (summary)
        builder.add({
          kind: 'message',
          id,
          meta: { ...meta(id), importedSummary: true },
          message: { role: 'user', content: summary },
        });
      inResponse = false;
      continue;
    }
    if (type !== 'response_item') {
      builder.skip(type);
      continue;
    }

    addItem(payload, id, line, ['payload']);
  }
  if (model && !builder.model) builder.model = model;
}

/** The boundary's text when a replacement history carries no summary at all. */
const CONTINUED_NOTE = '[Codex compacted the conversation here and continued from the messages that follow.]';

/**
 * The labelled stand-in for Codex's encrypted compaction summary: its text is sealed by the provider
 * and cannot be read or counted, so the meter counts this placeholder in its place.
 */
export function encryptedSummaryPlaceholder(sealedChars: number): string {
  return `[Codex's compaction summary: encrypted by the provider (${sealedChars.toLocaleString('en-US')} characters of encrypted_content). Its text cannot be read here; it is counted as this placeholder.]`;
}

/** The text of a `message` item's content (text blocks joined), for comparing with a summary. */
function itemText(payload: Rec): string {
  const content = payload.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b) => (b && typeof (b as Rec).text === 'string' ? ((b as Rec).text as string) : '')).join('\n\n');
}

/**
 * A message's content blocks as chat parts. A block of another type is read as text when it holds
 * text, with a warning (`warn`); one without text is an error (`fault`), naming its field.
 */
function messageParts(
  content: unknown,
  fault: (path: Array<string | number>, detail: string) => TranscriptError,
  warn: (path: Array<string | number>, detail: string) => void,
) {
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
      const text = unknownBlockText(block);
      if (text === undefined)
        throw fault(['payload', 'content', index, 'type'], `unknown content block type ${JSON.stringify(block.type)}`);
      parts.push({ type: 'text', text });
      warn(['payload', 'content', index, 'type'], unknownBlockNote(block.type, true));
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
