/**
 * A chat model offered by VS Code (`vscode.lm`: Copilot's models, or any extension's) behind the one
 * method of the `openai` client the agent and the summarizer call, `chat.completions.create`, so the
 * agent loop, compaction and the summarizer run unchanged over it.
 *
 * - Streaming and non-streaming requests; text parts become content deltas, tool-call parts become
 *   `tool_calls` deltas (arguments as JSON text), and the reply ends with `finish_reason`
 *   `tool_calls` or `stop`.
 * - Usage: the API reports none, so `usage.prompt_tokens` is the model's own `countTokens` over the
 *   messages sent (plus the tool schemas as JSON), which calibrates the meter; counts are cached.
 * - Cancellation: the request's `AbortSignal` cancels the API's `CancellationToken`.
 * - Errors become {@link LanguageModelSourceError} with a kind (no consent, blocked/quota, model gone,
 *   overflow, cancelled).
 */
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParams,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from 'openai/resources/chat/completions';
import type { LmApi, LmChat, LmChatMessage, LmSelector } from './api';
import { toLmMessages, toLmTools } from './convert';
import { LanguageModelSourceError, toSourceError } from './errors';

/** Options of {@link LanguageModelClient}. */
export interface LanguageModelClientOptions {
  api: LmApi;
  model: LmChat;
  /** Shown by VS Code in its consent prompt: why the extension wants the model. */
  justification?: string;
  /** Count prompt tokens with the model's tokenizer after each reply (default true). */
  calibrate?: boolean;
}

/** Cached counts are dropped past this many entries (a long session has a few thousand messages). */
const COUNT_CACHE_LIMIT = 10_000;

/** An `openai`-client look-alike over one VS Code chat model. */
export class LanguageModelClient {
  readonly chat: {
    completions: {
      create(
        params: ChatCompletionCreateParamsStreaming,
        options?: { signal?: AbortSignal | null },
      ): Promise<AsyncIterable<ChatCompletionChunk>>;
      create(
        params: ChatCompletionCreateParamsNonStreaming,
        options?: { signal?: AbortSignal | null },
      ): Promise<ChatCompletion>;
    };
  };
  private readonly counts = new Map<string, number>();

  constructor(private readonly options: LanguageModelClientOptions) {
    const create = (params: ChatCompletionCreateParams, o?: { signal?: AbortSignal | null }) =>
      params.stream ? this.stream(params, o?.signal ?? undefined) : this.complete(params, o?.signal ?? undefined);
    this.chat = { completions: { create: create as LanguageModelClient['chat']['completions']['create'] } };
  }

  /** The model's label for messages: "GPT-4o (copilot)". */
  get label(): string {
    const m = this.options.model;
    return `${m.name || m.id} (${m.vendor})`;
  }

  /** Tokens of `text` by the model's own tokenizer. */
  countTokens(text: string): Promise<number> {
    return Promise.resolve(this.options.model.countTokens(text));
  }

  private async stream(
    params: ChatCompletionCreateParams,
    signal: AbortSignal | undefined,
  ): Promise<AsyncIterable<ChatCompletionChunk>> {
    const { api, model } = this.options;
    const messages = toLmMessages(api, params.messages);
    const source = new api.CancellationTokenSource();
    const abort = () => source.cancel();
    signal?.addEventListener('abort', abort, { once: true });
    if (signal?.aborted) abort();
    let response;
    try {
      if (signal?.aborted) throw new Error('aborted before the request');
      response = await model.sendRequest(
        messages,
        { justification: this.options.justification, tools: toLmTools(params.tools) },
        source.token,
      );
    } catch (error) {
      signal?.removeEventListener('abort', abort);
      source.dispose();
      throw toSourceError(error, this.label, signal?.aborted === true);
    }
    return this.chunks(response.stream, messages, params, signal, () => {
      signal?.removeEventListener('abort', abort);
      source.dispose();
    });
  }

  private async *chunks(
    stream: AsyncIterable<unknown>,
    sent: LmChatMessage[],
    params: ChatCompletionCreateParams,
    signal: AbortSignal | undefined,
    done: () => void,
  ): AsyncGenerator<ChatCompletionChunk> {
    const { api } = this.options;
    const id = `lm-${Date.now().toString(36)}`;
    const created = Math.floor(Date.now() / 1000);
    const chunk = (
      delta: ChatCompletionChunk['choices'][number]['delta'],
      finish: ChatCompletionChunk['choices'][number]['finish_reason'] = null,
    ): ChatCompletionChunk => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model: this.options.model.id,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    });
    let calls = 0;
    let replyText = '';
    try {
      try {
        for await (const part of stream) {
          if (signal?.aborted) throw new Error('cancelled');
          if (part instanceof api.LanguageModelTextPart) {
            replyText += part.value;
            if (part.value) yield chunk({ content: part.value });
          } else if (part instanceof api.LanguageModelToolCallPart) {
            const args = JSON.stringify(part.input ?? {});
            replyText += part.name + args;
            yield chunk({
              tool_calls: [
                { index: calls++, id: part.callId, type: 'function', function: { name: part.name, arguments: args } },
              ],
            });
          }
          // Parts of kinds added after 1.100 (data, thinking) carry nothing the agent uses.
        }
      } catch (error) {
        throw toSourceError(error, this.label, signal?.aborted === true);
      }
      if (signal?.aborted)
        throw new LanguageModelSourceError(`The request to ${this.label} was cancelled.`, 'cancelled');
      yield chunk({}, calls > 0 ? 'tool_calls' : 'stop');
      if (this.options.calibrate !== false && params.stream_options?.include_usage) {
        const prompt = await this.promptTokens(sent, params);
        const completion = replyText ? await this.countTokens(replyText) : 0;
        yield {
          id,
          object: 'chat.completion.chunk',
          created,
          model: this.options.model.id,
          choices: [],
          usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
        };
      }
    } finally {
      done();
    }
  }

  private async complete(
    params: ChatCompletionCreateParamsNonStreaming,
    signal: AbortSignal | undefined,
  ): Promise<ChatCompletion> {
    const stream = await this.stream({ ...params, stream: true, stream_options: { include_usage: true } }, signal);
    let content = '';
    const toolCalls: NonNullable<ChatCompletion['choices'][number]['message']['tool_calls']> = [];
    let finish: ChatCompletion['choices'][number]['finish_reason'] = 'stop';
    let usage: ChatCompletion['usage'];
    for await (const c of stream) {
      if (c.usage) usage = c.usage;
      const choice = c.choices[0];
      if (!choice) continue;
      if (choice.delta.content) content += choice.delta.content;
      for (const call of choice.delta.tool_calls ?? [])
        toolCalls.push({
          id: call.id ?? '',
          type: 'function',
          function: { name: call.function?.name ?? '', arguments: call.function?.arguments ?? '' },
        });
      if (choice.finish_reason) finish = choice.finish_reason;
    }
    return {
      id: `lm-${Date.now().toString(36)}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: this.options.model.id,
      choices: [
        {
          index: 0,
          finish_reason: finish,
          logprobs: null,
          message: {
            role: 'assistant',
            content,
            refusal: null,
            ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
          },
        },
      ],
      usage,
    };
  }

  /** Prompt tokens of a request by the model's tokenizer: each message (cached) plus the tool schemas. */
  private async promptTokens(sent: LmChatMessage[], params: ChatCompletionCreateParams): Promise<number> {
    let total = 0;
    for (const message of sent) {
      const key = JSON.stringify([message.role, message.content]);
      let n = this.counts.get(key);
      if (n === undefined) {
        n = await this.options.model.countTokens(message);
        if (this.counts.size >= COUNT_CACHE_LIMIT) this.counts.clear();
        this.counts.set(key, n);
      }
      total += n;
    }
    if (params.tools?.length) total += await this.countTokens(JSON.stringify(toLmTools(params.tools)));
    return total;
  }
}

/**
 * Picks a chat model. `wanted` may be a model id, a family (`gpt-4o`) or `vendor/family`
 * (`copilot/gpt-4o`); empty picks the first model offered.
 * @throws LanguageModelSourceError `no-models` when nothing matches (with what is offered).
 */
export async function selectLmModel(api: LmApi, wanted: string): Promise<LmChat> {
  const attempts: LmSelector[] = [];
  const w = wanted.trim();
  if (w) {
    attempts.push({ id: w }, { family: w });
    const slash = w.indexOf('/');
    if (slash > 0) attempts.push({ vendor: w.slice(0, slash), family: w.slice(slash + 1) });
  } else attempts.push({});
  for (const selector of attempts) {
    const [first] = await api.lm.selectChatModels(selector);
    if (first) return first;
  }
  const offered = await api.lm.selectChatModels();
  const list = offered.map((m) => `${m.vendor}/${m.family}`).join(', ');
  throw new LanguageModelSourceError(
    offered.length
      ? `VS Code offers no chat model matching "${w}". Offered: ${list}.`
      : 'VS Code offers no chat models: sign in to GitHub Copilot (or install an extension that provides models) and try again.',
    'no-models',
  );
}
