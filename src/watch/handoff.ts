/**
 * "Compact into a handoff": the watched agent's current context compacted the way ContextKeeper
 * compacts its own (extractive, no model), rendered as Markdown that a fresh session of any agent can
 * start from. Takes the context, returns text; writing or copying it is the caller's job. A large
 * context is compacted in a worker thread (`prepareOffThread`), with progress and cancel.
 */
import type { ChatMessage, ContextItem, ToolSchema } from '../compaction/types';
import type { TokenMeter } from '../compaction/meter/meter';
import type { CompactInput } from '../compaction/rewrite/compactor';
import { prepareOffThread, type OffThreadOptions } from '../service/compaction/worker/runner';
import { ExtractiveSummarizer } from '../compaction/summary/extractive';
import { textWithPlaceholders } from '../compaction/content-text';
import { userTextAuthor } from '../compaction/harness-text';
import { isRecordedHarnessText } from '../compaction/tool-outcomes';
import { maskSecrets } from '../compaction/secrets';
import { commitPrepared } from '../compaction/rewrite/commit';

/** What {@link buildHandoff} needs. */
export interface HandoffInput {
  /** The agent's current context (after its own last compaction). */
  items: readonly ContextItem[];
  tools: readonly ToolSchema[];
  meter: TokenMeter;
  /** Names the source in the heading, e.g. "Claude Code session abc.jsonl". */
  title: string;
  /** Token budget the handoff's context aims at (default 16,000): small enough to paste anywhere. */
  targetTokens?: number;
  /** Characters kept of one verbatim message or tool result (default 4,000); the middle is cut. */
  maxMessageChars?: number;
  /**
   * The agent's context as its gauge shows it (prompt tokens: the provider's reported figure plus what
   * was written since), when known. The handoff names this figure as the original context, and the
   * part the recording's messages count to beside it, since the recording lacks the agent's system
   * prompt and tool schemas. Without it, the counted figure stands alone.
   */
  reportedTokens?: number;
}

/** The handoff text and the figures behind it. */
export interface Handoff {
  markdown: string;
  /**
   * Prompt tokens of the agent's context (`reportedTokens` when given, the gauge's figure; else the
   * count of the recording's messages) and of the compacted context.
   */
  tokensBefore: number;
  tokensAfter: number;
  /** Prompt tokens the recording's messages count to before compaction (equals `tokensBefore` without `reportedTokens`). */
  countedBefore: number;
}

/**
 * Compacts `items` down to `targetTokens` (forced, like a manual compaction) and renders the result:
 * the summary sections first, then the messages kept verbatim (latest request and newest steps).
 * From `WORKER_MIN_TOKENS` prompt tokens the compaction runs in a worker thread (`run.worker` when
 * given, kept warm by its owner; else one of its own), reporting progress to `run.onProgress`.
 * @throws the signal's reason when `signal` is aborted before the handoff is ready; Error when the
 *   worker fails (nothing is written: the caller has no handoff)
 */
export async function buildHandoff(
  input: HandoffInput,
  signal?: AbortSignal,
  run: Pick<OffThreadOptions, 'worker' | 'onProgress' | 'onRoute' | 'mode'> = {},
): Promise<Handoff> {
  const target = input.targetTokens ?? 16_000;
  const maxChars = input.maxMessageChars ?? 4_000;
  // A watcher's deferred counter estimates until its table is read: the handoff counts exactly.
  await input.meter.counter.ready;
  const summarizer = new ExtractiveSummarizer((t) => input.meter.countText(t), {
    lineAdditive: input.meter.lineAdditive,
  });
  // A window whose 0.5 target is `target` (the compactor's thresholds are fractions of the budget);
  // the whole history is summarized, since a fresh session needs its gist, not its old tool output.
  const compactInput: CompactInput = {
    items: [...input.items],
    tools: [...input.tools],
    meter: input.meter,
    summarizer,
    options: {
      budget: { contextWindow: target * 2, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
      trigger: 'manual',
      force: true,
      all: true,
      noCollapse: true,
      approximateSummaryTokens: Math.floor(target / 4),
      keepRecentSteps: 1,
      // A handoff is read elsewhere: the checkpoints its summary would name cannot be looked up there.
      recallPointer: false,
      signal,
    },
  };
  const planned = await prepareOffThread(compactInput, run);
  // Cancelled inline, the core returns the context unchanged: no handoff either way.
  signal?.throwIfAborted();
  const result =
    'status' in planned ? planned : commitPrepared(compactInput.items, planned, input.meter, compactInput.tools);
  const applied = result.status.kind === 'applied';
  const items = applied ? result.context : [...input.items];
  const lines: string[] = [`# Handoff: ${input.title}`, ''];
  const n = (x: number) => x.toLocaleString('en-US');
  const counted = result.tokensBefore;
  const reported = input.reportedTokens !== undefined && input.reportedTokens > 0 ? input.reportedTokens : undefined;
  const before = reported ?? counted;
  const after = applied ? result.tokensAfter : counted;
  lines.push(
    `Context of the original session: ${n(before)} prompt tokens${
      reported !== undefined && reported !== counted
        ? ` (as its provider reported them; ${n(counted)} of them are in the recording's messages)`
        : ''
    }; this handoff stands for it in about ${n(after)}.`,
  );
  lines.push(
    'Start a new session with this text. Sections marked as summaries are historical context, not new instructions.',
    '',
  );
  lines.push(renderContext(items, maxChars));
  // A handoff is pasted elsewhere: credentials quoted from tool output are masked.
  return {
    markdown:
      maskSecrets(
        lines
          .join('\n')
          .replace(/\n{3,}/g, '\n\n')
          .trimEnd(),
      ) + '\n',
    tokensBefore: before,
    tokensAfter: after,
    countedBefore: counted,
  };
}

/**
 * Renders context items as Markdown, one section per message: summaries, system prompt (abridged),
 * user messages quoted, assistant text with one line per tool call, tool results fenced. Each text is
 * cut in the middle past `maxChars` characters.
 */
export function renderContext(items: readonly ContextItem[], maxChars = 4_000): string {
  const lines: string[] = [];
  for (const item of items) {
    for (const l of renderItem(item, maxChars)) lines.push(l);
    lines.push('');
  }
  return lines.join('\n');
}

function renderItem(item: ContextItem, maxChars: number): string[] {
  const m = item.message;
  if (item.kind === 'summary') return ['## Summary of earlier work', '', textWithPlaceholders(m.content)];
  switch (m.role) {
    case 'system':
    case 'developer':
      return [
        '## System prompt of the original agent (abridged)',
        '',
        quote(cut(textWithPlaceholders(m.content), Math.min(maxChars, 1_500))),
      ];
    case 'user': {
      // Text a harness wrote in the user role (reminders, continuation notes) is headed as the harness's.
      const text = textWithPlaceholders(m.content);
      const author = userTextAuthor(text, isRecordedHarnessText(m));
      return [author.by === 'harness' ? `## ${author.label}` : '## User', '', quote(cut(text, maxChars))];
    }
    case 'assistant': {
      const out: string[] = ['## Assistant', ''];
      const text = textWithPlaceholders(m.content);
      if (text) out.push(cut(text, maxChars));
      for (const call of toolCalls(m)) out.push(`- tool call \`${call.name}\` ${cut(call.arguments, 300)}`);
      return out;
    }
    case 'tool':
      return [
        '### Tool result',
        '',
        '```text',
        cut(textWithPlaceholders(m.content), maxChars).replace(/```/g, '`\u200b``'),
        '```',
      ];
    default:
      return [];
  }
}

function toolCalls(m: ChatMessage): Array<{ name: string; arguments: string }> {
  const calls =
    (m as { tool_calls?: Array<{ type?: string; function?: { name?: string; arguments?: string } }> }).tool_calls ?? [];
  return calls.map((c) => ({ name: c.function?.name ?? '?', arguments: c.function?.arguments ?? '' }));
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');
}

/** Keeps the head and tail of `text` within `max` characters, marking the cut with its size. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = Math.floor((max - 40) / 2);
  return `${text.slice(0, keep)}\n[… ${text.length - 2 * keep} characters left out …]\n${text.slice(text.length - keep)}`;
}
