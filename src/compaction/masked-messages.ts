/**
 * Chat messages with every secret value masked, for a copy of a context written out of the product
 * (the command line's `compact --out` and `replay --out`): the file may be shared or committed, while
 * the raw transcript (the recording itself, or the session's JSONL) keeps the originals, so nothing
 * is lost (DESIGN.md, invariant 4). The live context sent to the agent's own model is not masked:
 * the agent may need a key it was given.
 *
 * The rules are {@link maskSecretValues}'s, the ones summaries and scorecards are masked by: what
 * `secrets.ts` recognises, and each value recognised anywhere in the transcript wherever it appears
 * again. Pure: no I/O; messages are copied, never mutated.
 */
import type { ChatMessage } from './types';
import { maskSecretValues } from './secret-values';

/** `value` (parsed JSON) with every string masked; the same object when nothing changed. */
function maskJson(value: unknown, values: readonly string[]): unknown {
  if (typeof value === 'string') return maskSecretValues(value, values);
  if (Array.isArray(value)) {
    const out = value.map((v) => maskJson(v, values));
    return out.some((v, i) => v !== value[i]) ? out : value;
  }
  if (value && typeof value === 'object') {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = maskJson(v, values);
      if (out[k] !== v) changed = true;
    }
    return changed ? out : value;
  }
  return value;
}

/**
 * Tool-call arguments with secret values masked. JSON arguments are masked string by string and
 * written again, so they stay valid JSON (masking the JSON text could cut a value's closing quote);
 * other text is masked as text. Unchanged arguments are returned as they were, byte for byte.
 */
function maskArguments(args: string, values: readonly string[]): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return maskSecretValues(args, values);
  }
  const masked = maskJson(parsed, values);
  return masked === parsed ? args : JSON.stringify(masked);
}

/** The content of a message (a string or parts) with the text masked; other parts kept. */
function maskContent(content: unknown, values: readonly string[]): unknown {
  if (typeof content === 'string') return maskSecretValues(content, values);
  if (!Array.isArray(content)) return content;
  const out = content.map((part: unknown) => {
    const p = part as { type?: unknown; text?: unknown };
    if (!p || typeof p !== 'object' || p.type !== 'text' || typeof p.text !== 'string') return part;
    const text = maskSecretValues(p.text, values);
    return text === p.text ? part : { ...p, text };
  });
  return out.some((part, i) => part !== content[i]) ? out : content;
}

/**
 * `message` with its text, its text parts and its tool calls' arguments masked (see the module
 * comment). `values`: the transcript's secret values, from `spanSecretValues` over every raw message,
 * longest first. The same object when nothing was masked. Never throws.
 */
export function maskMessage(message: ChatMessage, values: readonly string[]): ChatMessage {
  const content = maskContent(message.content, values);
  const calls = message.role === 'assistant' ? message.tool_calls : undefined;
  let callsChanged = false;
  const maskedCalls = calls?.map((c) => {
    if (c.type !== 'function') return c;
    const args = maskArguments(c.function.arguments, values);
    if (args === c.function.arguments) return c;
    callsChanged = true;
    return { ...c, function: { ...c.function, arguments: args } };
  });
  if (content === message.content && !callsChanged) return message;
  return { ...message, content, ...(callsChanged ? { tool_calls: maskedCalls } : {}) } as ChatMessage;
}
