/**
 * The part of VS Code's Language Model API (`vscode.lm`, stable since 1.90; this subset as of
 * @types/vscode 1.100) the adapter uses, declared structurally so the adapter never imports `vscode`
 * and tests can pass a typed fake. `test/models/lm.test.ts` checks that the real `typeof vscode`
 * is assignable to {@link LmApi}, so a drift from the real API fails the type-check.
 */

/** A cancellation token as VS Code passes it. */
export interface LmCancellationToken {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => unknown): { dispose(): unknown };
}

export interface LmTextPart {
  value: string;
}
export interface LmToolCallPart {
  callId: string;
  name: string;
  input: object;
}
export interface LmToolResultPart {
  callId: string;
  content: unknown[];
}
/** A chat message; `role` is 1 (user) or 2 (assistant): 1.100 has no system role. */
export interface LmChatMessage {
  role: number;
  content: Array<LmTextPart | LmToolResultPart | LmToolCallPart>;
  name: string | undefined;
}

/** A tool as the model sees it. */
export interface LmChatTool {
  name: string;
  description: string;
  inputSchema?: object | undefined;
}

/** Options of one request. */
export interface LmRequestOptions {
  justification?: string;
  modelOptions?: { [name: string]: unknown };
  tools?: LmChatTool[];
}

/** The streamed reply: text parts, tool-call parts, and parts of kinds added later (ignored). */
export interface LmChatResponse {
  stream: AsyncIterable<unknown>;
}

/** One chat model the editor offers (Copilot's, or another extension's). */
export interface LmChat {
  readonly name: string;
  readonly id: string;
  readonly vendor: string;
  readonly family: string;
  readonly version: string;
  /** Most tokens one request may send. */
  readonly maxInputTokens: number;
  sendRequest(
    messages: LmChatMessage[],
    options?: LmRequestOptions,
    token?: LmCancellationToken,
  ): PromiseLike<LmChatResponse>;
  countTokens(text: string | LmChatMessage, token?: LmCancellationToken): PromiseLike<number>;
}

/** Selects models by vendor, family, version or id. */
export interface LmSelector {
  vendor?: string;
  family?: string;
  version?: string;
  id?: string;
}

/** The namespace and the constructors the adapter needs, shaped like `typeof import('vscode')`. */
export interface LmApi {
  lm: {
    selectChatModels(selector?: LmSelector): PromiseLike<LmChat[]>;
    onDidChangeChatModels(listener: () => unknown): { dispose(): unknown };
  };
  LanguageModelChatMessage: {
    User(content: string | Array<LmTextPart | LmToolResultPart>, name?: string): LmChatMessage;
    Assistant(content: string | Array<LmTextPart | LmToolCallPart>, name?: string): LmChatMessage;
  };
  LanguageModelTextPart: new (value: string) => LmTextPart;
  LanguageModelToolCallPart: new (callId: string, name: string, input: object) => LmToolCallPart;
  LanguageModelToolResultPart: new (callId: string, content: unknown[]) => LmToolResultPart;
  CancellationTokenSource: new () => { token: LmCancellationToken; cancel(): void; dispose(): void };
}
