/**
 * Chat Completions messages and tools (the product's canonical form) to the VS Code Language Model
 * API's messages, and back for tool calls.
 *
 * - `system`/`developer` messages become user messages: the 1.100 API has only user and assistant roles.
 * - An assistant message's `tool_calls` become `LanguageModelToolCallPart`s (arguments parsed as JSON;
 *   text that is not a JSON object is passed as `{"input": text}` so nothing is lost).
 * - A run of `tool` messages becomes one user message of `LanguageModelToolResultPart`s, as the API
 *   asks (a tool result may only appear in a user message, right after the call).
 * - Image parts become a text placeholder: the 1.100 API carries no images.
 */
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { LmApi, LmChatMessage, LmChatTool, LmTextPart, LmToolCallPart, LmToolResultPart } from './api';
import { parseJsonObject } from '../../format/json';
import { textWithOmissions } from '../../compaction/content-text';

/** Parses tool-call arguments into the object the API wants. */
export function callInput(args: string): object {
  // Arguments that are not a JSON object are passed on as text.
  return parseJsonObject(args || '{}') ?? { input: args };
}

/** Converts a conversation. Order is kept; consecutive tool results share one user message. */
export function toLmMessages(api: LmApi, messages: readonly ChatCompletionMessageParam[]): LmChatMessage[] {
  const out: LmChatMessage[] = [];
  let results: LmToolResultPart[] | undefined;
  const flush = () => {
    if (results) out.push(api.LanguageModelChatMessage.User(results));
    results = undefined;
  };
  for (const message of messages) {
    if (message.role === 'tool') {
      (results ??= []).push(
        new api.LanguageModelToolResultPart(message.tool_call_id, [
          new api.LanguageModelTextPart(textWithOmissions(message.content)),
        ]),
      );
      continue;
    }
    flush();
    if (message.role === 'assistant') {
      const parts: Array<LmTextPart | LmToolCallPart> = [];
      const text = textWithOmissions(message.content);
      if (text) parts.push(new api.LanguageModelTextPart(text));
      for (const call of message.tool_calls ?? []) {
        if (call.type === 'function')
          parts.push(
            new api.LanguageModelToolCallPart(call.id, call.function.name, callInput(call.function.arguments)),
          );
      }
      out.push(api.LanguageModelChatMessage.Assistant(parts.length ? parts : ''));
    } else if (message.role === 'function') {
      out.push(api.LanguageModelChatMessage.User(textWithOmissions(message.content)));
    } else {
      out.push(api.LanguageModelChatMessage.User(textWithOmissions(message.content)));
    }
  }
  flush();
  return out;
}

/** Converts function tools; other tool kinds have no counterpart and are left out. */
export function toLmTools(tools: readonly ChatCompletionTool[] | undefined): LmChatTool[] | undefined {
  if (!tools?.length) return undefined;
  return tools.flatMap((t) =>
    t.type === 'function'
      ? [{ name: t.function.name, description: t.function.description ?? '', inputSchema: t.function.parameters }]
      : [],
  );
}
