/**
 * Anthropic Messages content blocks -> OpenAI chat pieces, shared by the Claude Code and Cline readers.
 *
 * - `text` -> text; `image` (base64 or url source) -> `image_url` part with its pixel size when readable;
 *   `document` -> `file` part (base64) or text (plain-text source).
 * - `tool_use` -> a function tool call (arguments = JSON of `input`); `tool_result` -> a tool result whose
 *   text blocks are joined and whose images are returned separately (tool messages only take text).
 * - `thinking` / `redacted_thinking` are dropped and counted as `thinking` (OpenAI chat has no field for
 *   them; signatures are meaningless to another provider).
 * - A block of another type is read as text when it holds text (`notes.ts`) and left out otherwise
 *   (counted as `block:<type>`), with a warning naming its field either way.
 */
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import type { ToolCall } from '../compaction/types';
import type { TranscriptError } from './errors';
import { imagePart, imageSizeFromBase64, imageSizeFromUrl, type ImageSize } from './images';
import { unknownBlockNote, unknownBlockText } from './notes';

export type Path = Array<string | number>;

/** What the readers supply: where errors point, where skipped blocks are counted and warnings go. */
export interface BlockContext {
  fault(path: Path, detail: string): TranscriptError;
  skip(type: string, count?: number): void;
  /** A warning about the value at `path`; the reader adds the file and the line or message. */
  warn(path: Path, detail: string): void;
}

/** Images with their sizes, in part order. */
export interface ImageParts {
  parts: ChatCompletionContentPart[];
  sizes: Array<ImageSize | undefined>;
}

/** One `tool_result` block. */
export interface AnthropicToolResult {
  toolUseId: string;
  text: string;
  isError: boolean;
  /** The block's `is_error` as recorded, undefined when the block has none. */
  errorFlag?: boolean;
  images: ImageParts;
}

/** Content blocks split by what they become. */
export interface MappedBlocks {
  /** Text and image/file parts in order (tool results and tool calls excluded). */
  parts: ChatCompletionContentPart[];
  /** Sizes of the image parts within `parts`, in order. */
  imageSizes: Array<ImageSize | undefined>;
  toolCalls: ToolCall[];
  toolResults: AnthropicToolResult[];
}

/**
 * Maps an Anthropic `content` (string or block list) found at `path`.
 * @throws TranscriptError for a block that is not an object, a `tool_use` without `id`/`name` or a
 *   `tool_result` without `tool_use_id`
 */
export function mapAnthropicContent(content: unknown, path: Path, ctx: BlockContext): MappedBlocks {
  const out: MappedBlocks = { parts: [], imageSizes: [], toolCalls: [], toolResults: [] };
  if (typeof content === 'string') {
    if (content !== '') out.parts.push({ type: 'text', text: content });
    return out;
  }
  if (content === undefined || content === null) return out;
  if (!Array.isArray(content)) throw ctx.fault(path, 'content is neither a string nor a list of blocks');
  content.forEach((raw, index) => {
    const at = [...path, index];
    if (!raw || typeof raw !== 'object') throw ctx.fault(at, 'content block is not an object');
    const block = raw as Record<string, unknown>;
    switch (block.type) {
      case 'text':
        if (typeof block.text === 'string' && block.text !== '') out.parts.push({ type: 'text', text: block.text });
        break;
      case 'image': {
        const image = mapImage(block, at, ctx);
        out.parts.push(image.part);
        out.imageSizes.push(image.size);
        break;
      }
      case 'document':
        out.parts.push(mapDocument(block));
        break;
      case 'thinking':
      case 'redacted_thinking':
        ctx.skip('thinking');
        break;
      case 'tool_use':
      case 'server_tool_use': {
        if (typeof block.id !== 'string' || block.id === '') throw ctx.fault([...at, 'id'], 'tool call has no id');
        if (typeof block.name !== 'string') throw ctx.fault([...at, 'name'], 'tool call has no name');
        out.toolCalls.push({
          id: block.id,
          type: 'function',
          function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
        });
        break;
      }
      case 'tool_result': {
        if (typeof block.tool_use_id !== 'string' || block.tool_use_id === '') {
          throw ctx.fault([...at, 'tool_use_id'], 'tool result has no tool_use_id');
        }
        out.toolResults.push(mapToolResult(block, block.tool_use_id, at, ctx));
        break;
      }
      default: {
        const text = unknownBlockText(block);
        if (text !== undefined) out.parts.push({ type: 'text', text });
        else ctx.skip(`block:${String(block.type)}`);
        ctx.warn([...at, 'type'], unknownBlockNote(block.type, text !== undefined));
      }
    }
  });
  return out;
}

function mapToolResult(
  block: Record<string, unknown>,
  toolUseId: string,
  at: Path,
  ctx: BlockContext,
): AnthropicToolResult {
  const result: AnthropicToolResult = {
    toolUseId,
    text: '',
    isError: block.is_error === true,
    images: { parts: [], sizes: [] },
  };
  if (typeof block.is_error === 'boolean') result.errorFlag = block.is_error;
  const content = block.content;
  if (typeof content === 'string') {
    result.text = content;
    return result;
  }
  if (!Array.isArray(content)) return result;
  const texts: string[] = [];
  content.forEach((raw, index) => {
    const inner = [...at, 'content', index];
    if (!raw || typeof raw !== 'object') throw ctx.fault(inner, 'content block is not an object');
    const item = raw as Record<string, unknown>;
    if (item.type === 'text' && typeof item.text === 'string') texts.push(item.text);
    else if (item.type === 'image') {
      const image = mapImage(item, inner, ctx);
      result.images.parts.push(image.part);
      result.images.sizes.push(image.size);
      texts.push(`[image ${result.images.parts.length}: attached in the next user message]`);
    } else if (item.type === 'tool_reference' && typeof item.tool_name === 'string') {
      // Claude Code's deferred-tool loading: the result names tools that became available.
      texts.push(`[tool reference: ${item.tool_name}]`);
    } else {
      const text = unknownBlockText(item);
      if (text !== undefined) texts.push(text);
      else ctx.skip(`block:${String(item.type)}`);
      ctx.warn([...inner, 'type'], unknownBlockNote(item.type, text !== undefined));
    }
  });
  result.text = texts.join('\n');
  return result;
}

function mapImage(block: Record<string, unknown>, at: Path, ctx: BlockContext) {
  const source = block.source as Record<string, unknown> | undefined;
  if (source && source.type === 'base64' && typeof source.data === 'string') {
    const mime = typeof source.media_type === 'string' ? source.media_type : 'image/png';
    return { part: imagePart(mime, source.data), size: imageSizeFromBase64(source.data) };
  }
  if (source && source.type === 'url' && typeof source.url === 'string') {
    const part: ChatCompletionContentPart = { type: 'image_url', image_url: { url: source.url } };
    return { part, size: imageSizeFromUrl(source.url) };
  }
  throw ctx.fault([...at, 'source'], 'image has no base64 data or url');
}

function mapDocument(block: Record<string, unknown>): ChatCompletionContentPart {
  const source = (block.source ?? {}) as Record<string, unknown>;
  const title = typeof block.title === 'string' ? block.title : 'document';
  if (source.type === 'text' && typeof source.data === 'string') return { type: 'text', text: source.data };
  if (source.type === 'base64' && typeof source.data === 'string') {
    const mime = typeof source.media_type === 'string' ? source.media_type : 'application/pdf';
    return { type: 'file', file: { filename: title, file_data: `data:${mime};base64,${source.data}` } };
  }
  return { type: 'text', text: `[${title}: document not included in the transcript]` };
}

/**
 * The user message (images a tool returned) that follows a step's tool messages, or undefined.
 * The text part says which call the images belong to, since the tool message cannot hold them.
 */
export function toolImageMessage(toolUseId: string, images: ImageParts) {
  if (!images.parts.length) return undefined;
  const parts: ChatCompletionContentPart[] = [
    { type: 'text', text: `[Images returned by tool call ${toolUseId}]` },
    ...images.parts,
  ];
  return { message: { role: 'user' as const, content: parts }, imageSizes: images.sizes };
}
