/** Fixtures of the service tests: a service over a temp workspace, a loopback model and stub summarizers. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type OpenAI from 'openai';
import * as path from 'node:path';
import type {
  ChatMessage,
  ContextItem,
  Summarizer,
  SummaryRequest,
  SummaryResult,
  ToolSchema,
} from '../../src/compaction/types';
import type { TokenCounter } from '../../src/tokenizer/tokenizer';
import { SummarizerError } from '../../src/compaction/types';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { NodeToolHost } from '../../src/agent/node-host';
import { ContextService } from '../../src/service/service';
import type { ContextServiceOptions } from '../../src/service/api';
import type { ChatRequestBody, Reply, Responder } from '../../src/demo/modelserver/wire';
import { loopback, tempWorkspace } from '../agent/helpers';

/**
 * A fast approximate counter (4 characters a token). Building the exact tokenizer's tables takes
 * seconds, which each test file would pay; the exact counter is exercised by the tests that opt in.
 */
export const approximateCounter: TokenCounter = {
  encoding: 'o200k_base',
  countText: (text) => Math.ceil(text.length / 4),
};
const approximateMeter = new TokenMeter({ counter: approximateCounter });
const exactMeter = new TokenMeter({ model: 'gpt-4o' });

/** Prompt tokens of a request body, counted the way the service's meter counts (exact calibration). */
export function promptTokensOf(body: ChatRequestBody, exact = false): number {
  const items: ContextItem[] = ((body.messages ?? []) as ChatMessage[]).map((message, i) => ({
    id: `r${i}`,
    kind: 'raw',
    message,
    covers: [`r${i}`],
  }));
  return (exact ? exactMeter : approximateMeter).measure(items, (body.tools ?? []) as ToolSchema[]).total;
}

/** Wraps a responder so every completion reports `usage.prompt_tokens` as the meter counts it. */
export function withUsage(responder: Responder, exact = false): Responder {
  return async (body, count) => {
    const reply: Reply = await responder(body, count);
    if (reply.type === undefined || reply.type === 'completion') {
      return { ...reply, usage: reply.usage ?? { prompt_tokens: promptTokensOf(body, exact), completion_tokens: 5 } };
    }
    return reply;
  };
}

/** A summarizer that returns scripted text, optionally slowly, and records its requests. */
export class StubSummarizer implements Summarizer {
  readonly name = 'stub-model';
  readonly requests: SummaryRequest[] = [];
  constructor(
    private readonly text: string | ((request: SummaryRequest) => string) = 'SUMMARY-OK',
    /** Delay before answering, in milliseconds; tests may change it between runs. */
    public delayMs = 0,
    private readonly mode: 'normal' | 'never' | 'ignore-abort' = 'normal',
  ) {}

  async summarize(request: SummaryRequest): Promise<SummaryResult> {
    this.requests.push(request);
    if (this.mode === 'never') return new Promise<SummaryResult>(() => {});
    if (this.delayMs > 0) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, this.delayMs);
        if (this.mode === 'ignore-abort') return;
        request.signal?.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            reject(new SummarizerError('aborted', 'aborted'));
          },
          { once: true },
        );
      });
    }
    if (request.signal?.aborted && this.mode !== 'ignore-abort') throw new SummarizerError('aborted', 'aborted');
    const text = typeof this.text === 'function' ? this.text(request) : this.text;
    return { text, model: this.name, usage: { calls: 1, promptTokens: 10, completionTokens: 5 } };
  }
}

/** What {@link serviceFixture} builds. */
export interface ServiceFixture {
  service: ContextService;
  root: string;
  storageDir: string;
  requests: ChatRequestBody[];
  /** The OpenAI client of the loopback model (the agent's), for a summarizer at the same endpoint. */
  client: OpenAI;
  /** Opens another service on the same storage and session (a restart). */
  reopen(overrides?: Partial<ContextServiceOptions>): Promise<ContextService>;
  cleanup(): Promise<void>;
}

/**
 * A context service over a temp workspace with `files`, a loopback model answering with `responder`
 * (usage reported exactly), persistence in a temp folder, and the given option overrides.
 */
export async function serviceFixture(
  responder: Responder,
  options: {
    files?: Record<string, string>;
    window?: number;
    compactAt?: number;
    compactTo?: number;
    reserved?: number;
    exactTokens?: boolean;
  } & Partial<ContextServiceOptions> = {},
): Promise<ServiceFixture> {
  const ws = tempWorkspace(options.files ?? {});
  const storageDir = mkdtempSync(path.join(tmpdir(), 'ck-store-'));
  const lb = await loopback(withUsage(responder, options.exactTokens));
  const { files: _f, window, compactAt, compactTo, reserved, exactTokens, ...overrides } = options;
  const base: ContextServiceOptions = {
    client: lb.client,
    model: 'gpt-4o',
    budget: {
      contextWindow: window ?? 16_000,
      reservedOutput: reserved ?? 1_000,
      compactAt: compactAt ?? 0.8,
      compactTo: compactTo ?? 0.5,
    },
    host: new NodeToolHost(ws.root),
    storageDir,
    systemPrompt: 'You are a test agent.',
    autoApprove: { edits: true, commands: true },
    prepareAheadMargin: 0,
    ...(exactTokens ? {} : { tokenCounter: approximateCounter }),
    ...overrides,
  };
  const service = await ContextService.open(base);
  const opened: ContextService[] = [service];
  return {
    service,
    root: ws.root,
    storageDir,
    requests: lb.server.requests,
    client: lb.client,
    reopen: async (more = {}) => {
      // The state is saved after a rewrite returns: what a reopen reads is what was saved.
      for (const s of opened) await s.whenSaved();
      const next = await ContextService.open({ ...base, sessionId: service.sessionId, ...more });
      opened.push(next);
      return next;
    },
    cleanup: async () => {
      // Saves end before the folder is removed (a save in flight writes a temp file into it).
      for (const s of opened) await s.whenSaved().catch(() => undefined);
      for (const s of opened) s.dispose();
      // A write in flight at dispose ends on its own and removes its temp file before the folder goes.
      for (const s of opened) await s.whenClosed();
      await lb.close();
      ws.cleanup();
      rmSync(storageDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    },
  };
}

/** `n` lines of filler text, about 11 tokens a line. */
export function filler(lines: number, tag = 'x'): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) out.push(`${tag} line ${i}: the quick brown fox jumps over the lazy dog`);
  return out.join('\n');
}

/** Occurrences of each tool_call_id among tool messages of a request. */
export function resultCounts(messages: readonly ChatMessage[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const m of messages) if (m.role === 'tool') counts.set(m.tool_call_id, (counts.get(m.tool_call_id) ?? 0) + 1);
  return counts;
}
