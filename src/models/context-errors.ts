/**
 * Recognizes a provider's "the prompt does not fit the context window" error, in each documented
 * shape, so the agent can compact and retry instead of failing the task.
 *
 * Shapes (body of the HTTP error, as the `openai` client exposes it in `error.error`/`error.message`):
 * - OpenAI / Azure OpenAI: 400, `{error: {code: "context_length_exceeded", message: "This model's
 *   maximum context length is N tokens. However, your messages resulted in M tokens…"}}`.
 * - vLLM: 400, `{object: "error", type: "BadRequestError", message: "This model's maximum context
 *   length is N tokens. However, you requested M tokens (…)"}` (no code).
 * - llama.cpp `llama-server`: 400 (500 before late 2025), `{error: {type: "exceed_context_size_error",
 *   message: "the request exceeds the available context size…", n_prompt_tokens: M, n_ctx: N}}`.
 * - Ollama: 500 `{error: "input exceeds context length"}` where it refuses rather than truncates
 *   (`truncate: false`, embeddings); the OpenAI route wraps it as `{error: {message}}`.
 * - LM Studio: 400 `{error: "Trying to keep the first M tokens when context the overflows. However,
 *   the model is loaded with context length of only N tokens…"}`, and "Reached context length of N
 *   tokens…" / "Context size has been exceeded" from its other engines.
 */

/** What an overflow error says about the sizes, when it says it (tokens). */
export interface ContextOverflow {
  /** The window the server enforced. */
  window?: number;
  /** The prompt size the server counted. */
  promptTokens?: number;
  /** The error's own message, for the log. */
  message: string;
}

const MESSAGE_PATTERNS: RegExp[] = [
  /maximum context length is \d+/i,
  /exceeds? the available context size/i,
  /input (length )?exceeds (the )?(maximum )?context length/i,
  /context length of only \d+/i,
  /reached context length of \d+/i,
  /context size has been exceeded/i,
  /prompt is too long/i,
  /prompt (length )?exceeds (the )?(model'?s? )?(context|maximum)/i,
  /(context|token) (length|window|limit) exceeded/i,
];

const CODES = new Set(['context_length_exceeded', 'exceed_context_size_error', 'string_above_max_length_context']);

function numberIn(text: string, re: RegExp): number | undefined {
  const m = re.exec(text);
  return m ? Number(m[1].replace(/,/g, '')) : undefined;
}

/** Collects the message, code and type fields of an error from the `openai` client, a fetch body or a plain object. */
function fields(error: unknown): { texts: string[]; codes: string[]; numbers: Record<string, unknown> } {
  const texts: string[] = [];
  const codes: string[] = [];
  const numbers: Record<string, unknown> = {};
  const visit = (value: unknown, depth: number): void => {
    if (depth > 3 || value === null || value === undefined) return;
    if (typeof value === 'string') {
      texts.push(value);
      return;
    }
    if (typeof value !== 'object') return;
    const r = value as Record<string, unknown>;
    for (const key of ['message', 'detail']) if (typeof r[key] === 'string') texts.push(r[key]);
    for (const key of ['code', 'type']) if (typeof r[key] === 'string') codes.push(r[key]);
    for (const key of ['n_ctx', 'n_prompt_tokens']) if (r[key] !== undefined) numbers[key] = r[key];
    for (const key of ['error', 'body', 'cause']) if (key in r) visit(r[key], depth + 1);
  };
  visit(error, 0);
  return { texts, codes, numbers };
}

/**
 * The overflow described by `error`, or undefined when it is some other error.
 * A rate limit or a "too many tokens per minute" quota is not an overflow and is not matched.
 */
export function contextOverflow(error: unknown): ContextOverflow | undefined {
  const { texts, codes, numbers } = fields(error);
  const text = texts.join(' | ');
  if (/per min|rate limit|\bTPM\b|quota/i.test(text)) return undefined;
  const matched = codes.some((c) => CODES.has(c)) || MESSAGE_PATTERNS.some((re) => re.test(text));
  if (!matched) return undefined;
  const overflow: ContextOverflow = { message: texts.find((t) => t.trim() !== '') ?? codes.join(', ') };
  const window =
    (typeof numbers.n_ctx === 'number' ? numbers.n_ctx : undefined) ??
    numberIn(text, /maximum context length is ([\d,]+)/i) ??
    numberIn(text, /context length of (?:only )?([\d,]+)/i);
  const promptTokens =
    (typeof numbers.n_prompt_tokens === 'number' ? numbers.n_prompt_tokens : undefined) ??
    numberIn(text, /(?:resulted in|you requested) ([\d,]+) tokens/i) ??
    numberIn(text, /keep the first ([\d,]+) tokens/i);
  if (window !== undefined) overflow.window = window;
  if (promptTokens !== undefined) overflow.promptTokens = promptTokens;
  return overflow;
}
