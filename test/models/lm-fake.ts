/**
 * A typed fake of the VS Code Language Model API (the {@link LmApi} subset, which the real
 * `typeof vscode` satisfies: see lm-api-shape.ts). Models play scripted replies and record requests.
 */
import type {
  LmApi,
  LmCancellationToken,
  LmChat,
  LmChatMessage,
  LmChatResponse,
  LmRequestOptions,
  LmSelector,
  LmTextPart,
  LmToolCallPart,
  LmToolResultPart,
} from '../../src/models/lm/api';

export class TextPart implements LmTextPart {
  constructor(public value: string) {}
}
export class ToolCallPart implements LmToolCallPart {
  constructor(
    public callId: string,
    public name: string,
    public input: object,
  ) {}
}
export class ToolResultPart implements LmToolResultPart {
  constructor(
    public callId: string,
    public content: unknown[],
  ) {}
}
export class ChatMessage implements LmChatMessage {
  name: string | undefined = undefined;
  content: Array<LmTextPart | LmToolResultPart | LmToolCallPart>;
  constructor(
    public role: number,
    content: string | Array<LmTextPart | LmToolResultPart | LmToolCallPart>,
  ) {
    this.content = typeof content === 'string' ? [new TextPart(content)] : content;
  }
}
/** The API's error: a `code` naming the static factory that made it. */
export class LanguageModelError extends Error {
  constructor(
    message: string,
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
  static NoPermissions(message?: string) {
    return new LanguageModelError(message ?? 'no permissions', 'NoPermissions');
  }
  static Blocked(message?: string) {
    return new LanguageModelError(message ?? 'blocked', 'Blocked');
  }
  static NotFound(message?: string) {
    return new LanguageModelError(message ?? 'not found', 'NotFound');
  }
}

class Token implements LmCancellationToken {
  isCancellationRequested = false;
  private listeners: Array<() => unknown> = [];
  onCancellationRequested(listener: () => unknown) {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  }
  fire() {
    this.isCancellationRequested = true;
    for (const l of this.listeners) l();
  }
}
export class CancellationTokenSource {
  readonly token = new Token();
  cancel() {
    this.token.fire();
  }
  dispose() {}
}

/** One scripted reply: parts streamed in order, an error thrown by sendRequest, or a stream that waits for cancellation. */
export type Script =
  { parts: unknown[]; failAfter?: Error } | { reject: Error } | { hangUntilCancelled: true; parts?: unknown[] };

/** A chat model that plays `scripts` in order (the last repeats) and counts 1 token per 4 characters. */
export class FakeChat implements LmChat {
  readonly requests: Array<{ messages: LmChatMessage[]; options?: LmRequestOptions; token?: LmCancellationToken }> = [];
  countCalls = 0;
  constructor(
    readonly id: string,
    readonly family: string,
    readonly maxInputTokens: number,
    private readonly scripts: Script[],
    readonly vendor = 'copilot',
    readonly name = `Fake ${family}`,
    readonly version = '1',
  ) {}

  async sendRequest(
    messages: LmChatMessage[],
    options?: LmRequestOptions,
    token?: LmCancellationToken,
  ): Promise<LmChatResponse> {
    this.requests.push({ messages, options, token });
    const script = this.scripts[Math.min(this.requests.length - 1, this.scripts.length - 1)];
    if ('reject' in script) throw script.reject;
    async function* stream() {
      for (const part of ('parts' in script ? script.parts : undefined) ?? []) yield part;
      if ('failAfter' in script && script.failAfter) throw script.failAfter;
      if ('hangUntilCancelled' in script) {
        await new Promise<void>((resolve) =>
          token?.isCancellationRequested ? resolve() : token?.onCancellationRequested(() => resolve()),
        );
        throw new Error('Canceled');
      }
    }
    return { stream: stream() };
  }

  async countTokens(text: string | LmChatMessage): Promise<number> {
    this.countCalls++;
    const s = typeof text === 'string' ? text : JSON.stringify(text.content);
    return Math.ceil(s.length / 4);
  }
}

/** The fake namespace over the given models. */
export function fakeApi(models: FakeChat[]): LmApi {
  const matches = (m: FakeChat, s: LmSelector = {}) =>
    (!s.id || s.id === m.id) &&
    (!s.family || s.family === m.family) &&
    (!s.vendor || s.vendor === m.vendor) &&
    (!s.version || s.version === m.version);
  return {
    lm: {
      selectChatModels: async (selector?: LmSelector) => models.filter((m) => matches(m, selector)),
      onDidChangeChatModels: () => ({ dispose() {} }),
    },
    LanguageModelChatMessage: {
      User: (content) => new ChatMessage(1, content),
      Assistant: (content) => new ChatMessage(2, content),
    },
    LanguageModelTextPart: TextPart,
    LanguageModelToolCallPart: ToolCallPart,
    LanguageModelToolResultPart: ToolResultPart,
    CancellationTokenSource,
  };
}
