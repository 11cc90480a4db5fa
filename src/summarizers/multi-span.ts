/**
 * One summary request for several spans of one compaction (for example the history before the
 * latest request and the current task's older steps): the reply holds one part of notes per span,
 * each opened by its own heading ({@link partHeading}), and is split back into one summary per span
 * by {@link parseParts}. Two spans then cost one model call instead of two (invariant 7 bounds the
 * calls; fewer is better for the prompt cache and the bill).
 *
 * Two shapes, as for one span: over the agent's prefix (the session's own model, a prompt-cache
 * hit; see ./prefixRequest) or framed (each span rendered as delimited data, when all of them fit
 * one call of the summarizer's window without clipping). A reply that does not split into exactly
 * the parts asked for is not used; the caller then summarises span by span.
 *
 * Pure: no I/O, no model calls.
 */
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ChatMessage, SummaryContext, SummaryRequest } from '../compaction/types';
import {
  batchForWindow,
  neutraliseDelimiters,
  summaryInstruction,
  wrapTranscript,
  SUMMARY_RULES,
  type RenderOptions,
} from '../compaction/summary/summary-prompt';
import { clipMiddle } from '../compaction/clip';
import { isBlankTemplate } from './reply';
import {
  describeSpan,
  NOTES_SHARE_OF_REPLY,
  PREFIX_DATA_RULE,
  PREFIX_OPENING,
  PREFIX_SAFETY_SHARE,
  replyRoom,
  type PrefixRefusal,
} from './prefix-request';

/** The line that opens the notes of part `k` (1-based) in a reply covering several spans. */
export function partHeading(k: number): string {
  return `# Notes for part ${k}`;
}

/** A heading line as {@link partHeading} writes it, tolerating spacing, case and a trailing colon. */
const PART_HEADING = /^#\s*notes for part\s+(\d+)\s*:?\s*$/i;

/** The reply {@link parseParts} expects for `notes` (one entry per part, in order). */
export function formatParts(notes: readonly string[]): string {
  return notes.map((n, i) => `${partHeading(i + 1)}\n\n${n.trim()}`).join('\n\n');
}

/**
 * Splits a reply into the notes of its `n` parts, or undefined when it is not exactly parts 1 to
 * `n` in order (text before the first heading other than blank lines, a part missing, repeated or
 * out of order), or when a part is empty or only empty sections.
 */
export function parseParts(text: string, n: number): string[] | undefined {
  const parts: string[][] = [];
  for (const line of text.split('\n')) {
    const m = PART_HEADING.exec(line.trim());
    if (m) {
      if (Number(m[1]) !== parts.length + 1) return undefined;
      parts.push([]);
    } else if (parts.length === 0) {
      if (line.trim().length > 0) return undefined;
    } else {
      parts[parts.length - 1].push(line);
    }
  }
  if (parts.length !== n) return undefined;
  const notes = parts.map((p) => p.join('\n').trim());
  return notes.every((t) => t.length > 0 && !isBlankTemplate(t)) ? notes : undefined;
}

/** How the reply is laid out: one part per span, each under its heading, in the sections of the rules. */
function layoutRule(lengths: readonly number[]): string {
  const each = lengths.map((t, i) => `"${partHeading(i + 1)}" (about ${t} tokens or fewer)`).join(', then ');
  return `Answer with ${lengths.length} separate sets of notes, one per part, in this order: ${each}. Open each set with its heading line exactly as written, then write its notes in the sections the rules give. Each set of notes stands alone (it replaces only its own part); write nothing before the first heading.`;
}

/** A request over the agent's prefix for several spans. */
export interface MultiPrefixRequest {
  /** The agent's messages (the same objects, in order; a leading part of them when the whole does not fit) and the instruction. */
  messages: ChatMessage[];
  tools?: ChatCompletionTool[];
  instruction: string;
  /** Prompt tokens of the request (the prefix as metered plus the instruction), in tokens. */
  promptTokens: number;
  /** The reply limit to send, in tokens. */
  replyTokens: number;
  /** Notes asked for per part, in tokens (the requests' lengths, scaled down where the room is short). */
  partTokens: number[];
}

/** Per-message overhead of the appended instruction and reply priming, in tokens. */
const INSTRUCTION_OVERHEAD_TOKENS = 6;

/**
 * The cache-reusing request for `requests` (two or more spans of the same context, in order), or
 * why it cannot be used: the requests do not share one context, or the window (less
 * {@link PREFIX_SAFETY_SHARE}) leaves room for fewer notes than half the planned total or 512
 * tokens. When the whole prefix does not fit, its leading part through the last span may.
 *
 * @param window The session model's window, in tokens.
 * @param countText Tokens of plain text as the session's meter counts them.
 * @param maxReplyTokens The reply limit for all parts together, in tokens; lowered to the room left.
 */
export function multiPrefixRequest(
  requests: readonly SummaryRequest[],
  window: number,
  countText: (text: string) => number,
  maxReplyTokens: number,
  extraInstruction?: string,
): MultiPrefixRequest | PrefixRefusal {
  const context = requests[0]?.context;
  if (requests.length < 2 || context === undefined) return { reason: 'fewer than two spans, or no agent context' };
  let end = 0;
  for (const r of requests) {
    const c = r.context;
    if (
      c === undefined ||
      c.items !== context.items ||
      c.start < end ||
      c.end <= c.start ||
      c.end > context.items.length
    ) {
      return { reason: 'the spans are not ordered parts of one agent context' };
    }
    end = c.end;
  }
  const whole = fitMulti(context, requests, window, countText, maxReplyTokens, extraInstruction);
  if ('messages' in whole || end === context.items.length || context.itemTokens === undefined) return whole;
  let after = 0;
  for (let i = end; i < context.items.length; i++) after += context.itemTokens[i] ?? 0;
  const leading: SummaryContext = {
    ...context,
    items: context.items.slice(0, end),
    tokens: context.tokens - after,
    itemTokens: context.itemTokens.slice(0, end),
  };
  const part = fitMulti(leading, requests, window, countText, maxReplyTokens, extraInstruction);
  return 'messages' in part ? part : { reason: `${whole.reason}; through the last span alone: ${part.reason}` };
}

function fitMulti(
  context: SummaryContext,
  requests: readonly SummaryRequest[],
  window: number,
  countText: (text: string) => number,
  maxReplyTokens: number,
  extra?: string,
): MultiPrefixRequest | PrefixRefusal {
  const planned = requests.map((r) => Math.max(64, Math.ceil(r.approximateSummaryTokens)));
  const total = planned.reduce((a, b) => a + b, 0);
  const instructionTokens =
    countText(multiPrefixInstruction(context, requests, planned, extra)) + INSTRUCTION_OVERHEAD_TOKENS;
  const { promptTokens, limit, replyTokens, notes, least } = replyRoom(
    context.tokens + instructionTokens,
    window,
    maxReplyTokens,
    total,
  );
  if (notes < least) {
    return {
      reason: `the agent's prefix (${context.tokens} tokens) with the instruction leaves ${Math.max(0, limit - promptTokens)} of ${limit} tokens for the reply: room for ${Math.max(0, notes)} tokens of notes for ${requests.length} parts, below ${least}`,
    };
  }
  const partTokens = planned.map((p) => Math.max(64, Math.floor((p * notes) / total)));
  const instruction = multiPrefixInstruction(context, requests, partTokens, extra);
  const messages: ChatMessage[] = context.items.map((item) => item.message);
  messages.push({ role: 'user', content: instruction });
  const tools = context.tools && context.tools.length > 0 ? (context.tools as ChatCompletionTool[]) : undefined;
  return { messages, tools, instruction, promptTokens, replyTokens, partTokens };
}

/** The instruction appended after the prefix: each part named by position, the layout, the rules. */
export function multiPrefixInstruction(
  context: SummaryContext,
  requests: readonly SummaryRequest[],
  partTokens: readonly number[],
  extraInstruction?: string,
): string {
  const spans = requests.map(
    (r, i) => `Part ${i + 1}: ${describeSpan(context.items, r.context!.start, r.context!.end)}.`,
  );
  const parts = [
    PREFIX_OPENING,
    `Write the working notes that will replace ${requests.length} parts of the conversation above, each on its own:\n${spans.join('\n')}\nThe agent will continue the work from your notes and the messages outside those parts, so the notes must be accurate and complete, and much shorter than what they replace. Messages outside the parts stay as they are: use them only to understand the parts.`,
    PREFIX_DATA_RULE,
    layoutRule(partTokens),
    SUMMARY_RULES,
  ];
  const focus = requests[0].focus?.trim();
  if (focus) parts.push(`The user asked these notes to focus on: ${neutraliseDelimiters(clipMiddle(focus, 1000))}`);
  const extra = extraInstruction?.trim();
  if (extra)
    parts.push(
      `Additional instruction from the user's settings (it adds to the rules above and cannot override them):\n${extra}`,
    );
  parts.push(`Write the ${requests.length} sets of notes now, as text only.`);
  return parts.join('\n\n');
}

/** A framed request for several spans (one call), with its reply limit and the notes asked per part. */
export interface MultiFramedRequest {
  messages: ChatCompletionMessageParam[];
  replyTokens: number;
  partTokens: number[];
}

/**
 * The framed request for `requests` (each span rendered as delimited data, in order), or undefined
 * when one call of the `window` cannot hold them all whole (a span that would be clipped or batched
 * is summarised on its own): instruction, parts, the reply (`replyTokens`) and
 * {@link PREFIX_SAFETY_SHARE} of the window must fit.
 */
export function multiFramedRequest(
  requests: readonly SummaryRequest[],
  window: number,
  countText: (text: string) => number,
  replyTokens: number,
  extraInstruction?: string,
  render: RenderOptions = {},
): MultiFramedRequest | undefined {
  const partTokens = requests.map((r) => Math.max(64, Math.ceil(r.approximateSummaryTokens)));
  if (partTokens.reduce((a, b) => a + b, 0) > Math.floor(replyTokens * NOTES_SHARE_OF_REPLY)) return undefined;
  const system = summaryInstruction(extraInstruction);
  const room = Math.floor(window * (1 - PREFIX_SAFETY_SHARE)) - replyTokens - countText(system) - 16;
  const sections: string[] = [];
  const focus = requests[0].focus?.trim();
  if (focus) sections.push(`The user asked these notes to focus on: ${neutraliseDelimiters(clipMiddle(focus, 1000))}`);
  for (const [i, r] of requests.entries()) {
    // One batch of the whole room, nothing clipped: the span fits whole (its user messages verbatim).
    const batches = batchForWindow(r.items, Math.max(room, 64), countText, 0, render);
    if (batches.length !== 1 || batches[0].clipped > 0) return undefined;
    sections.push(`Part ${i + 1} of the conversation to summarize:\n${wrapTranscript(batches[0].text)}`);
  }
  sections.push(layoutRule(partTokens));
  const user = sections.join('\n\n');
  if (countText(user) > room) return undefined;
  return {
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: user },
    ],
    replyTokens,
    partTokens,
  };
}
