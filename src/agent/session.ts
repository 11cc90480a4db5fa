/**
 * The agent loop: a tool-calling conversation over the OpenAI Chat Completions API with streaming.
 *
 * One run: send the conversation and the tool schemas, stream the reply (text deltas are reported as
 * they arrive), run the requested tool calls (in parallel when several), append their results in call
 * order, and repeat until the model answers without tool calls, the step limit is reached, or the run
 * is cancelled.
 *
 * Transcript validity on cancel: a reply cancelled while streaming keeps its text (if any) without
 * tool calls; once an assistant message with tool calls is appended, every one of its calls gets
 * exactly one `tool` message — a "cancelled" result for calls that did not finish — so the
 * transcript always satisfies tool pairing (DESIGN.md invariant 1).
 *
 * The conversation itself (ids, storage, what is sent) belongs to a {@link Conversation}; the
 * context service uses {@link AgentHooks.beforeModelCall} to compact at safe points.
 */
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { ChatMessage, Entry, ToolSchema } from '../compaction/types';
import { contextOverflow, type ContextOverflow } from '../models/context-errors';
import { CANCELLED_RESULT, type ToolCallRequest } from './tools';
import { CANCELLED_REPLY_MARKER } from './cancelled-reply';
import type { ToolOutcome } from './types';
import { redactKey } from '../compaction/secrets';
import { ToolCallAssembler } from './tool-call-stream';
import { DEFAULT_MAX_RETRY_WAIT_MS, formatWait, raceAbort, withRetries, type RetryWait } from './retry';
import { errorMessage } from '../format/error-message';
import { RequestBodyCache } from './request-body';

/** Where the session reads and appends messages. */
export interface Conversation {
  /** The id the next appended entry will get (reported with streamed text before the entry exists). */
  newEntryId(): string;
  /** Appends a raw message; resolves once it is stored (persisted when persistence is on). */
  append(entry: Entry): Promise<void>;
  /** The messages of the next request: the active context, rendered. */
  messages(): ChatMessage[];
}

/** Executes tool calls; {@link WorkspaceTools} is the usual one. */
export interface ToolExecutor {
  readonly schemas: ToolSchema[];
  /** Never throws; an abort yields a `cancelled` outcome. */
  execute(call: ToolCallRequest, signal: AbortSignal): Promise<ToolOutcome>;
}

/** Token usage reported by the provider for one model call, in tokens. */
export interface ModelUsage {
  promptTokens: number;
  completionTokens: number;
  /**
   * `usage.prompt_tokens_details.cached_tokens` (OpenAI's documented field; 0 when absent): part of
   * `prompt_tokens` by the API's definition, though some proxies subtract it.
   */
  cachedTokens: number;
}

/**
 * Reads a reply's `usage` object (a streamed final chunk's or a whole completion's: both have the
 * same shape). Returns undefined when it carries no prompt token count; fields of the wrong type
 * count as absent.
 */
export function modelUsageOf(usage: unknown): ModelUsage | undefined {
  if (!usage || typeof usage !== 'object') return undefined;
  const u = usage as {
    prompt_tokens?: unknown;
    completion_tokens?: unknown;
    prompt_tokens_details?: { cached_tokens?: unknown } | null;
  };
  if (typeof u.prompt_tokens !== 'number') return undefined;
  const cached = u.prompt_tokens_details?.cached_tokens;
  return {
    promptTokens: u.prompt_tokens,
    completionTokens: typeof u.completion_tokens === 'number' ? u.completion_tokens : 0,
    cachedTokens: typeof cached === 'number' && cached > 0 ? cached : 0,
  };
}

/** The session's own coarse state. */
export type AgentState = 'idle' | 'streaming' | 'running-tool';

/** Observers and the safe-point hook. All optional; all called synchronously except the async ones. */
export interface AgentHooks {
  /**
   * Called before every model call, at a point where every tool call is answered. May rewrite the
   * active context (compaction). A rejection ends the run with status `error` (or `cancelled` when the
   * signal aborted).
   */
  beforeModelCall?(info: { step: number }, signal: AbortSignal): Promise<void>;
  /**
   * Called when the provider refused a request because the prompt does not fit its context window
   * (see `src/models/context-errors.ts`). Resolve true after shrinking the context (compaction) to
   * have the request retried once; false or a rejection fails the run with the provider's error.
   */
  onContextOverflow?(info: { step: number; overflow: ContextOverflow }, signal: AbortSignal): Promise<boolean>;
  /** Called after a step's tool results are all appended (or after a reply without tool calls). */
  afterStep?(info: { step: number; toolCalls: number }, signal: AbortSignal): Promise<void>;
  /** Usage of the request just made (`usage.prompt_tokens` is the exact size of what was sent). */
  onUsage?(usage: ModelUsage, sent: { messages: ChatMessage[]; tools: ToolSchema[] }): void;
  onStateChange?(state: AgentState, detail?: string): void;
  /**
   * A model call failed in a way worth retrying and the loop now waits before the retry (also shown
   * as the `streaming` state's detail). Cancel ends the wait at once.
   */
  onRetryWait?(wait: RetryWait): void;
  onTextDelta?(entryId: string, delta: string): void;
  onToolCall?(call: ToolCallRequest, entryId: string): void;
  onToolResult?(call: ToolCallRequest, outcome: ToolOutcome, entryId: string, durationMs: number): void;
}

/**
 * The one method of the `openai` client the loop calls. An `OpenAI` instance fits; so does the
 * VS Code language-model adapter (`src/models/lm/client.ts`).
 */
export interface ChatClient {
  chat: {
    completions: {
      create(
        body: ChatCompletionCreateParamsStreaming,
        options?: ChatRequestOptions,
      ): PromiseLike<AsyncIterable<ChatCompletionChunk>>;
    };
  };
}

/**
 * Per-request options the loop passes. `body` is `body`'s own JSON, already encoded (UTF-8, with
 * `headers` saying so): the `openai` client sends a `body` given in its request options as it is,
 * instead of serialising the request again; a client that does not (the VS Code adapter) reads the
 * request object.
 */
export interface ChatRequestOptions {
  signal?: AbortSignal;
  maxRetries?: number;
  body?: Uint8Array;
  headers?: Record<string, string>;
}

/** Options of {@link AgentSession}. */
export interface AgentSessionOptions {
  client: ChatClient;
  model: string;
  tools: ToolExecutor;
  conversation: Conversation;
  hooks?: AgentHooks;
  /** Upper bound on model calls per run. Default 40. */
  maxSteps?: number;
  /**
   * Retries of a model call that failed with HTTP 408, 409, 429, 5xx or a connection error (`retry.ts`).
   * Default: the client's own `maxRetries` (an `OpenAI` instance's), else 0. The loop retries itself,
   * so every wait is cancellable and shown; the client is asked for none of its own.
   */
  maxRetries?: number;
  /**
   * Longest wait before a retry a server may ask for (`Retry-After`), in milliseconds; a longer one
   * fails the call with the server's reason. Default 60 000.
   */
  maxRetryWaitMs?: number;
  /** Extra request fields (temperature, max_tokens…) merged into every request. */
  requestOptions?: Partial<Omit<ChatCompletionCreateParamsStreaming, 'model' | 'messages' | 'tools' | 'stream'>>;
}

/** How a run ended. */
export type RunStatus = 'done' | 'cancelled' | 'step-limit' | 'error';

/** Outcome of {@link AgentSession.run}. */
export interface RunResult {
  status: RunStatus;
  /** Text of the last assistant message of the run. */
  finalText: string;
  modelCalls: number;
  toolCalls: number;
  error?: Error;
}

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Gives every call of one reply an id unique inside that reply, before the reply is stored or any
 * result is sent back: some compatible servers omit ids (`call_<entry>_<index>` is given), and some
 * number calls per tool or send one id twice in a reply; a later duplicate becomes `<id>_2`, `<id>_3`…
 * (the same rule as import, `src/transcripts/pairing.ts`). Ids reused across replies (`call_0` in
 * every step) are valid and kept: pairing is a property of one step. Mutates and returns `calls`.
 */
export function uniqueCallIds<T extends { id: string }>(calls: T[], entryId: string): T[] {
  const seen = new Set<string>();
  calls.forEach((c, i) => {
    if (!c.id) c.id = `call_${entryId}_${i}`;
    if (seen.has(c.id)) {
      let n = 2;
      while (seen.has(`${c.id}_${n}`) || calls.some((o) => o.id === `${c.id}_${n}`)) n++;
      c.id = `${c.id}_${n}`;
    }
    seen.add(c.id);
  });
  return calls;
}

/** One agent conversation loop. Not re-entrant: one `run` at a time. */
export class AgentSession {
  private running = false;
  private readonly maxSteps: number;
  /** Each message's request JSON, made once (see request-body.ts). */
  private readonly bodies = new RequestBodyCache();

  constructor(private readonly options: AgentSessionOptions) {
    this.maxSteps = options.maxSteps ?? 40;
  }

  /** True while a run is in progress. */
  get isRunning(): boolean {
    return this.running;
  }

  /** Appends `text` as a user message, then {@link run}s. */
  async runTask(text: string, signal: AbortSignal): Promise<RunResult> {
    const { conversation } = this.options;
    await conversation.append({
      id: conversation.newEntryId(),
      message: { role: 'user', content: text },
      meta: { timestamp: new Date().toISOString() },
    });
    return this.run(signal);
  }

  /**
   * Runs the loop on the conversation as it stands (its last message is normally the user's).
   * Never rejects for model, tool or hook failures: they end the run with status `error`.
   * @throws Error when another run is in progress.
   */
  async run(signal: AbortSignal): Promise<RunResult> {
    if (this.running) throw new Error('The agent is already running a task.');
    this.running = true;
    const result: RunResult = { status: 'done', finalText: '', modelCalls: 0, toolCalls: 0 };
    const hooks = this.options.hooks ?? {};
    try {
      for (;;) {
        if (signal.aborted) return { ...result, status: 'cancelled' };
        if (result.modelCalls >= this.maxSteps) return { ...result, status: 'step-limit' };
        const step = result.modelCalls + 1;
        await hooks.beforeModelCall?.({ step }, signal);
        signal.throwIfAborted();
        result.modelCalls++;
        const reply = await this.streamReply(signal).catch(async (error: unknown) => {
          // One compaction and one retry per step when the provider says the prompt does not fit.
          const overflow = signal.aborted ? undefined : contextOverflow(error);
          if (!overflow || !hooks.onContextOverflow || !(await hooks.onContextOverflow({ step, overflow }, signal)))
            throw error;
          signal.throwIfAborted();
          result.modelCalls++;
          return this.streamReply(signal);
        });
        result.finalText = reply.text;
        if (reply.cancelled) return { ...result, status: 'cancelled' };
        if (reply.calls.length === 0) {
          await hooks.afterStep?.({ step, toolCalls: 0 }, signal);
          return result;
        }
        result.toolCalls += reply.calls.length;
        await this.runTools(reply.calls, reply.entryId, signal);
        await hooks.afterStep?.({ step, toolCalls: reply.calls.length }, signal);
      }
    } catch (error) {
      if (signal.aborted) return { ...result, status: 'cancelled' };
      // Servers echo the key in errors (masked, encoded): the message goes to the user and the log.
      // An `OpenAI` client carries its key as `apiKey`; other clients have none to redact. The error
      // keeps its class (callers tell kinds apart); only its text changes.
      const failure = error instanceof Error ? error : new Error(String(error));
      const key = (this.options.client as { apiKey?: unknown }).apiKey;
      if (typeof key === 'string') {
        const redacted = redactKey(failure.message, key);
        if (redacted !== failure.message) {
          failure.message = redacted;
          failure.stack = failure.stack === undefined ? undefined : redactKey(failure.stack, key);
        }
      }
      return { ...result, status: 'error', error: failure };
    } finally {
      this.running = false;
      hooks.onStateChange?.('idle');
    }
  }

  /** Makes one streaming model call and appends the assistant message. */
  private async streamReply(
    signal: AbortSignal,
  ): Promise<{ text: string; calls: PendingCall[]; entryId: string; cancelled: boolean }> {
    const { client, model, tools, conversation, hooks = {}, requestOptions } = this.options;
    const entryId = conversation.newEntryId();
    const messages = conversation.messages();
    const schemas = tools.schemas;
    hooks.onStateChange?.('streaming');
    let text = '';
    const assembler = new ToolCallAssembler();
    let usage: ModelUsage | undefined;
    let cancelled = false;
    // The SDK adds an abort listener to the signal it gets and never removes it; a per-request child
    // signal keeps listeners from piling up on the task's signal over many steps.
    const request = new AbortController();
    const forward = (): void => request.abort(signal.reason);
    signal.addEventListener('abort', forward, { once: true });
    if (signal.aborted) forward();
    const clientRetries = (client as { maxRetries?: unknown }).maxRetries;
    const maxRetries = this.options.maxRetries ?? (typeof clientRetries === 'number' ? clientRetries : 0);
    const params: ChatCompletionCreateParamsStreaming = {
      ...requestOptions,
      model,
      messages,
      ...(schemas.length > 0 ? { tools: schemas } : {}),
      stream: true,
      stream_options: { include_usage: true },
    };
    // The same request, encoded from each message's cached JSON: the client sends these bytes.
    const body = this.bodies.body(params as unknown as Record<string, unknown>, messages);
    try {
      // Raced against the signal as well: a client that does not stop at once cannot hold a cancel.
      const stream = await withRetries(
        () =>
          raceAbort(
            client.chat.completions.create(params, {
              signal: request.signal,
              maxRetries: 0,
              body,
              headers: { 'content-type': 'application/json' },
            }),
            request.signal,
          ),
        request.signal,
        {
          maxRetries,
          maxWaitMs: this.options.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS,
          onWait: (wait) => {
            hooks.onRetryWait?.(wait);
            hooks.onStateChange?.(
              'streaming',
              `waiting ${formatWait(wait.delayMs)} before retry ${wait.attempt} of ${wait.maxRetries}: ${wait.reason}`,
            );
          },
        },
      );
      hooks.onStateChange?.('streaming');
      for await (const chunk of untilAborted(stream, request.signal)) {
        usage = modelUsageOf(chunk.usage) ?? usage;
        const delta = chunk.choices?.[0]?.delta;
        if (!delta) continue;
        if (typeof delta.content === 'string' && delta.content !== '') {
          assembler.addText(delta.content);
          text += delta.content;
          hooks.onTextDelta?.(entryId, delta.content);
        }
        assembler.add(delta.tool_calls);
      }
      // The SDK's stream iterator ends quietly on abort instead of throwing, so check here too.
      if (signal.aborted) cancelled = true;
    } catch (error) {
      if (!signal.aborted) throw error;
      cancelled = true;
    } finally {
      signal.removeEventListener('abort', forward);
    }
    if (usage) hooks.onUsage?.(usage, { messages, tools: schemas });
    if (cancelled) {
      // Tool calls of a cut-off stream may have partial arguments: they are dropped, never run.
      if (text !== '') {
        await conversation.append({
          id: entryId,
          message: { role: 'assistant', content: text + CANCELLED_REPLY_MARKER },
          meta: { timestamp: new Date().toISOString(), model },
        });
      }
      return { text, calls: [], entryId, cancelled };
    }
    const complete = uniqueCallIds(assembler.calls(), entryId);
    const message: ChatMessage =
      complete.length > 0
        ? {
            role: 'assistant',
            content: text === '' ? null : text,
            tool_calls: complete.map((c) => ({
              id: c.id,
              type: 'function' as const,
              function: { name: c.name, arguments: c.arguments },
            })),
          }
        : { role: 'assistant', content: text };
    await conversation.append({
      id: entryId,
      message,
      meta: {
        timestamp: new Date().toISOString(),
        model,
        ...(usage ? { reportedPromptTokens: usage.promptTokens } : {}),
      },
    });
    return { text, calls: complete, entryId, cancelled: false };
  }

  /**
   * Runs the calls of one assistant message concurrently and appends their results in call order as
   * soon as each prefix is done, so a crash loses as little as possible and order stays stable.
   */
  private async runTools(calls: PendingCall[], assistantEntryId: string, signal: AbortSignal): Promise<void> {
    const { tools, conversation, hooks = {} } = this.options;
    hooks.onStateChange?.('running-tool', calls.map((c) => c.name).join(', '));
    const started = calls.map((call) => {
      hooks.onToolCall?.(call, assistantEntryId);
      const t0 = Date.now();
      return tools
        .execute(call, signal)
        .catch((error: unknown): ToolOutcome =>
          signal.aborted
            ? { content: CANCELLED_RESULT, ok: false, cancelled: true }
            : { content: `Error: ${errorMessage(error)}`, ok: false },
        )
        .then((outcome) => ({ outcome, durationMs: Date.now() - t0 }));
    });
    for (let i = 0; i < calls.length; i++) {
      const { outcome, durationMs } = await started[i];
      const entryId = conversation.newEntryId();
      await conversation.append({
        id: entryId,
        message: { role: 'tool', tool_call_id: calls[i].id, content: outcome.content },
        meta: { timestamp: new Date().toISOString(), toolOk: outcome.ok },
      });
      hooks.onToolResult?.(calls[i], outcome, entryId, durationMs);
    }
  }
}

/**
 * The items of `stream` until `signal` aborts: a pending read is abandoned at once (and the stream
 * closed) instead of waiting for a client that does not watch its signal. Ends by throwing the
 * signal's reason.
 */
async function* untilAborted<T>(stream: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const iterator = stream[Symbol.asyncIterator]();
  let done = false;
  try {
    for (;;) {
      const next = await raceAbort(iterator.next(), signal);
      if (next.done) {
        done = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!done) void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}

/** A conversation held in memory only: for tests and one-off runs without a context service. */
export class InMemoryConversation implements Conversation {
  readonly entries: Entry[] = [];
  private counter = 0;

  constructor(initial: ChatMessage[] = []) {
    for (const message of initial) this.entries.push({ id: this.newEntryId(), message });
  }

  newEntryId(): string {
    return `m${++this.counter}`;
  }

  async append(entry: Entry): Promise<void> {
    this.entries.push(entry);
  }

  messages(): ChatMessage[] {
    return this.entries.map((e) => e.message);
  }
}
