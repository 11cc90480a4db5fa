/**
 * Cline / Roo `api_conversation_history.json`: a JSON array of Anthropic-format messages, see
 * transcripts/README.md.
 *
 * - Assistant `text` / `tool_use` blocks -> assistant message with tool calls (thinking counted).
 *   `modelInfo.modelId` -> `meta.model`; `metrics.tokens.prompt` -> `meta.reportedPromptTokens`;
 *   `ts` -> `meta.timestamp`.
 * - Tool results are text blocks `[<tool> for '<arg>'] Result:` (or `[<tool>] Result:`) in the next user
 *   message; they answer the preceding message's still unanswered `tool_use` ids in order and become
 *   tool messages; the block of command output a completion's result is followed by joins it. Real
 *   `tool_result` blocks are used too. All other blocks (`<environment_details>`,
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
import { fieldPath } from '../errors';
import { roleFault } from '../notes';
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

/**
 * A block Cline writes right after a result to continue it: the output of the command a completion
 * ran ("Command failed with exit code 1.\nOutput: …"). It belongs to that result, not to the
 * person's message that follows (their feedback).
 */
const COMMAND_OUTPUT = /^(?:Command failed with exit code \d+|Command executed)/;

/** Cline's wording of a failed call: a non-zero exit status, a tool error, a missing parameter, a failed edit. */
const FAILED =
  /^(?:Command failed with exit code [1-9]\d*|Command failed\b|The tool execution failed|Error executing\b|Missing value for required parameter|Unable to (?:apply|edit|read|write)\b|<error>|Error:)/i;
/** Cline's tools that show a file or a listing. */
const READ_TOOL = /^(?:read_file|list_files|search_files|list_code_definition_names|access_mcp_resource)$/;
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
  // A read shows the file: one that begins "Error: …" (a log, say) is content, not Cline's report.
  if (READ_TOOL.test(RESULT.exec(text)?.[1] ?? '') && /^Error:/.test(body)) return undefined;
  if (FAILED.test(body)) return false;
  if (SUCCEEDED.test(body)) return true;
  return errorFlag === false ? true : undefined;
}

/**
 * A tool result's metadata: its success flag where Cline's record gives one, whether it is the
 * person's reply, and whether that reply is an option the call (`callArguments`) offered.
 */
function toolMeta(meta: EntryMeta, text: string, errorFlag?: boolean, callArguments?: string): EntryMeta {
  const ok = clineToolOk(text, errorFlag);
  const reply = HUMAN_REPLY.test(text);
  return {
    ...meta,
    ...(ok === undefined ? {} : { toolOk: ok }),
    ...(reply ? { humanReply: true } : {}),
    ...(reply && chosenOption(text, callArguments) ? { chosenOption: true } : {}),
  };
}

/** The person's answer in a reply (`<answer>…</answer>`), trimmed; undefined when it has none. */
const ANSWER = /<answer>\s*([\s\S]*?)\s*<\/answer>/;

/**
 * The options a question call offered (`ask_followup_question`'s `options`: a JSON array, or the
 * text of one, as Cline records it), each trimmed; [] when it offered none.
 */
function offeredOptions(callArguments: string | undefined): string[] {
  if (!callArguments) return [];
  try {
    let options = (JSON.parse(callArguments) as Rec).options;
    if (typeof options === 'string') options = JSON.parse(options) as unknown;
    return Array.isArray(options) ? options.filter((o): o is string => typeof o === 'string').map((o) => o.trim()) : [];
  } catch {
    return [];
  }
}

/**
 * True when the reply `text` answers with one of the options the call (`callArguments`) offered,
 * word for word: the person clicked it in Cline's panel, they did not type it.
 */
function chosenOption(text: string, callArguments: string | undefined): boolean {
  const answer = ANSWER.exec(text)?.[1];
  return answer !== undefined && answer !== '' && offeredOptions(callArguments).includes(answer);
}

/** Reads a Cline history. @throws TranscriptError (line where the bad value starts, field path) */
export function readCline(text: string, builder: TranscriptBuilder, parsed?: unknown): void {
  const doc = parsed ?? parseJsonDocument(text, builder.file);
  const fault = documentFault(text, builder.file);
  if (!Array.isArray(doc)) throw fault([], 'expected a JSON array of messages');
  const ctx: BlockContext = {
    fault,
    skip: (t, n) => builder.skip(t, n),
    // A document's warnings name the message by its index in the field path (`[3].content[0].type`).
    warn: (path, detail) => builder.warn(`${builder.file}: ${fieldPath(path)}: ${detail}`),
  };
  let open: string[] = [];
  let unmatched = 0;
  // The arguments of each call, by id: a reply is read against the options its question offered.
  const callArguments = new Map<string, string>();

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
      for (const c of blocks.toolCalls) if (c.type === 'function') callArguments.set(c.id, c.function.arguments);
      return;
    }
    if (item.role !== 'user') throw fault([index, 'role'], roleFault(item.role, ['user', 'assistant']));

    for (const result of blocks.toolResults) {
      open = open.filter((c) => c !== result.toolUseId);
      const image = toolImageMessage(result.toolUseId, result.images);
      const resultId = `${id}/${result.toolUseId}`;
      builder.add({
        kind: 'message',
        id: resultId,
        meta: toolMeta(meta, result.text, result.errorFlag, callArguments.get(result.toolUseId)),
        message: { role: 'tool', tool_call_id: result.toolUseId, content: result.text },
        attachment: image && {
          kind: 'message',
          id: `${resultId}/images`,
          meta: { ...meta, imageSizes: image.imageSizes },
          message: image.message,
        },
      });
    }
    const split = splitResults(blocks.parts, open);
    unmatched += split.unmatched;
    for (const r of split.results)
      builder.add({
        kind: 'message',
        id: `${id}/${r.callId}`,
        meta: toolMeta(meta, r.text, undefined, callArguments.get(r.callId)),
        message: { role: 'tool', tool_call_id: r.callId, content: r.text },
      });
    let image = 0;
    const sizes: Array<ImageSize | undefined> = blocks.parts.flatMap((p) =>
      p.type === 'image_url' ? [blocks.imageSizes[image++]] : [],
    );
    const rest = split.rest;
    // Calls still open when the next user message carries none of their results were interrupted.
    open = [];
    if (!rest.length) return;
    if (sizes.length) meta.imageSizes = sizes;
    builder.add({ kind: 'message', id, meta, message: { role: 'user', content: userContent(rest) } });
  });
  if (unmatched)
    builder.warn(`${unmatched} "[tool] Result:" text block(s) follow no tool call and were kept as user text`);
}

/**
 * The `[tool] Result:` text blocks of a user message's `parts`, each answering the next of the `open`
 * call ids in order (with the command output block that continues it, {@link COMMAND_OUTPUT}), and
 * the other parts. A result block with no call left to answer stays in `rest` and is counted.
 */
function splitResults(
  parts: readonly ChatCompletionContentPart[],
  open: readonly string[],
): { results: Array<{ callId: string; text: string }>; rest: ChatCompletionContentPart[]; unmatched: number } {
  const calls = [...open];
  const results: Array<{ callId: string; text: string }> = [];
  const rest: ChatCompletionContentPart[] = [];
  let unmatched = 0;
  let continues = false;
  for (const part of parts) {
    if (part.type === 'text' && RESULT.test(part.text)) {
      const callId = calls.shift();
      if (callId !== undefined) {
        results.push({ callId, text: part.text });
        continues = true;
        continue;
      }
      unmatched++;
    }
    if (continues && part.type === 'text' && COMMAND_OUTPUT.test(part.text)) {
      results[results.length - 1].text += `\n\n${part.text}`;
      continue;
    }
    continues = false;
    rest.push(part);
  }
  return { results, rest, unmatched };
}
