/**
 * Cline / Roo `api_conversation_history.json`: a JSON array of Anthropic-format messages, see
 * transcripts/README.md.
 *
 * - Assistant `text` / `tool_use` blocks -> assistant message with tool calls (thinking counted).
 *   `modelInfo.modelId` -> `meta.model`; `metrics.tokens.prompt` -> `meta.reportedPromptTokens`;
 *   `ts` -> `meta.timestamp`.
 * - Tool results are text blocks `[<tool> for '<arg>'] Result:` (or `[<tool>] Result:`) in the next user
 *   message; they answer the preceding message's still unanswered `tool_use` ids in order and become
 *   tool messages. Real `tool_result` blocks are used too. All other blocks (`<environment_details>`,
 *   feedback, task resumption notes, images) stay in one user message after the tool messages.
 * - A result's success flag (`meta.toolOk`) comes from Cline's own wording (see {@link clineToolOk}),
 *   never from the absence of `is_error`, which Cline's results do not carry.
 * - A result text with no call left to answer (older Cline versions write calls as XML in assistant
 *   text) stays user text, warned.
 * Entry ids are `m<index>`, tool messages `m<index>/<tool_use id>`.
 */
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import type { EntryMeta } from '../../compaction/types';
import { mapAnthropicContent, toolImageMessage, type BlockContext } from '../anthropic';
import type { TranscriptBuilder } from '../builder';
import { userContent } from '../drafts';
import type { ImageSize } from '../images';
import { documentFault, parseJsonDocument } from '../json';
import { plainText } from '../../compaction/content-text';

type Rec = Record<string, unknown>;

/**
 * A result Cline writes from the person's reply: the answer to a question it asked
 * (`ask_followup_question`, `plan_mode_respond`), or feedback given on a result or a denied
 * operation ("The user denied this operation and provided the following feedback:"), as Cline's
 * own result templates word them. Tags inside any other result are the tool's output.
 */
const HUMAN_REPLY =
  /^\[(?:(?:ask_followup_question|plan_mode_respond|ask_question|followup_question|attempt_completion)(?: for '[\s\S]*?')?\] Result:\s*(?:<answer>|<feedback>|The user)|[A-Za-z0-9_.:-]+(?: for '[\s\S]*?')?\] Result:\s*The user (?:denied this operation|has provided feedback|provided the following feedback))/;

/** `[tool for 'arg'] Result:`; the argument may span lines and contain brackets and quotes. */
const RESULT = /^\[([A-Za-z0-9_.:-]+)(?: for '[\s\S]*?')?\] Result:/;

/** Cline's wording of a failed call: a non-zero exit status, a tool error, a missing parameter, a failed edit. */
const FAILED =
  /^(?:Command failed with exit code [1-9]\d*|Command failed\b|The tool execution failed|Error executing\b|Missing value for required parameter|Unable to (?:apply|edit|read|write)\b|<error>|Error:)/i;
/** Cline's wording of a call that succeeded. */
const SUCCEEDED =
  /^(?:Command executed successfully\b(?! \(exit code [1-9])|The content was successfully saved|The (?:file|changes?) (?:was|were) (?:successfully )?(?:saved|applied)|Found \d+ results?\b)/i;

/**
 * The success flag of a Cline tool result, from what Cline records: a `tool_result` block's
 * `is_error` when true, else its result wording ("Command failed with exit code 1." fails,
 * "Command executed successfully (exit code 0)." and "The content was successfully saved to …"
 * succeed); undefined when neither says (a file's content, a listing, a command still running, an
 * older Cline's bare "Command executed." that states no exit status, the person's reply), so the reader judges the output itself. `text` may open with the
 * `[tool for 'arg'] Result:` label. Pure.
 */
export function clineToolOk(text: string, errorFlag?: boolean): boolean | undefined {
  if (errorFlag === true) return false;
  const body = text.replace(RESULT, '').trimStart();
  if (HUMAN_REPLY.test(text)) return undefined;
  if (FAILED.test(body)) return false;
  if (SUCCEEDED.test(body)) return true;
  return errorFlag === false ? true : undefined;
}

/** A tool result's metadata: its success flag where Cline's record gives one, and whether it is the person's reply. */
function toolMeta(meta: EntryMeta, text: string, errorFlag?: boolean): EntryMeta {
  const ok = clineToolOk(text, errorFlag);
  return {
    ...meta,
    ...(ok === undefined ? {} : { toolOk: ok }),
    ...(HUMAN_REPLY.test(text) ? { humanReply: true } : {}),
  };
}

/** Reads a Cline history. @throws TranscriptError (line where the bad value starts, field path) */
export function readCline(text: string, builder: TranscriptBuilder, parsed?: unknown): void {
  const doc = parsed ?? parseJsonDocument(text, builder.file);
  const fault = documentFault(text, builder.file);
  if (!Array.isArray(doc)) throw fault([], 'expected a JSON array of messages');
  const ctx: BlockContext = { fault, skip: (t, n) => builder.skip(t, n) };
  let open: string[] = [];
  let unmatched = 0;

  doc.forEach((raw, index) => {
    if (!raw || typeof raw !== 'object') throw fault([index], 'message is not an object');
    const item = raw as Rec;
    const id = `m${index}`;
    const meta: EntryMeta = { source: builder.source(index + 1, id) };
    if (typeof item.ts === 'number') meta.timestamp = new Date(item.ts).toISOString();
    const blocks = mapAnthropicContent(item.content, [index, 'content'], ctx);

    if (item.role === 'assistant') {
      const model = (item.modelInfo as Rec | undefined)?.modelId;
      if (typeof model === 'string') meta.model = model;
      const prompt = ((item.metrics as Rec | undefined)?.tokens as Rec | undefined)?.prompt;
      if (typeof prompt === 'number') meta.reportedPromptTokens = prompt;
      const textParts = plainText(blocks.parts, '\n\n');
      builder.add({
        kind: 'message',
        id,
        meta,
        message: blocks.toolCalls.length
          ? { role: 'assistant', content: textParts || null, tool_calls: blocks.toolCalls }
          : { role: 'assistant', content: textParts },
      });
      open = blocks.toolCalls.map((c) => c.id);
      return;
    }
    if (item.role !== 'user') throw fault([index, 'role'], `unknown role ${JSON.stringify(item.role)}`);

    for (const result of blocks.toolResults) {
      open = open.filter((c) => c !== result.toolUseId);
      const image = toolImageMessage(result.toolUseId, result.images);
      const resultId = `${id}/${result.toolUseId}`;
      builder.add({
        kind: 'message',
        id: resultId,
        meta: toolMeta(meta, result.text, result.errorFlag),
        message: { role: 'tool', tool_call_id: result.toolUseId, content: result.text },
        attachment: image && {
          kind: 'message',
          id: `${resultId}/images`,
          meta: { ...meta, imageSizes: image.imageSizes },
          message: image.message,
        },
      });
    }
    const rest: ChatCompletionContentPart[] = [];
    const sizes: Array<ImageSize | undefined> = [];
    let image = 0;
    for (const part of blocks.parts) {
      if (part.type === 'image_url') sizes.push(blocks.imageSizes[image++]);
      if (part.type === 'text' && RESULT.test(part.text)) {
        const callId = open.shift();
        if (callId !== undefined) {
          builder.add({
            kind: 'message',
            id: `${id}/${callId}`,
            meta: toolMeta(meta, part.text),
            message: { role: 'tool', tool_call_id: callId, content: part.text },
          });
          continue;
        }
        unmatched++;
      }
      rest.push(part);
    }
    // Calls still open when the next user message carries none of their results were interrupted.
    open = [];
    if (!rest.length) return;
    if (sizes.length) meta.imageSizes = sizes;
    builder.add({ kind: 'message', id, meta, message: { role: 'user', content: userContent(rest) } });
  });
  if (unmatched)
    builder.warn(`${unmatched} "[tool] Result:" text block(s) follow no tool call and were kept as user text`);
}
