/**
 * The messages a person typed, kept verbatim across compactions.
 *
 * A summary message opens with a "requests, verbatim" section: every typed request of the span it
 * replaces (and of the summaries it folds in), in order, inside a token budget. Over budget, the first
 * request (the task statement) and the newest are kept whole first; older long ones are shortened in
 * the middle with a visible marker that counts the characters left out; only when even that does not
 * fit are the oldest middle ones left out, and a line says how many. Nothing is dropped silently.
 *
 * "Typed" follows what a person wrote, not what reached the user role: tool output sent in the user
 * role, blocks an agent harness injects (reminders, environment details, repository rule files such as
 * AGENTS.md or CLAUDE.md, command output) and earlier summaries are not typed. Cline's feedback and
 * answers count; one-word replies and slash commands are trivial and not kept.
 *
 * Pure: no I/O.
 */
import type { ContextItem } from '../types';
import { isToolOutputText } from '../text';
import { textWithPlaceholders } from '../content-text';
import { isChosenOption, isHumanReply, isRecordedHarnessText } from '../tool-outcomes';
import { omittedNote, REQUESTS_HEADING } from './requests-section';
import { isContextKeeperSummary } from './summary-header';
import { withoutHandLines } from './hand-lines';
import { GrowingSpan } from '../meter/span-memo';
import { MessageMemo } from '../message-memo';
import {
  HARNESS_BLOCKS,
  HARNESS_MESSAGE as HARNESS_TEXT,
  HARNESS_PARAGRAPHS,
  QUOTED_WORDS,
  WRAPPER_TAGS,
} from '../harness-text';

/** Harness blocks inside user messages, removed whole (tag and body): one list for every reader (`harness-text.ts`). */
const INJECTED = HARNESS_BLOCKS;
/**
 * A message made only of tagged blocks that are not a person's words (`<name …>…</name>`, any name
 * but the wrappers of typed text): a block a harness or an IDE injects under a name not listed in
 * {@link INJECTED} (an attached file, a plugin or tool list, a mode notice).
 */
const ONLY_BLOCKS = /^(?:\s*<([A-Za-z][\w:. -]{0,60})(?:\s[^>]*)?>[\s\S]*?<\/\1>\s*)+$/;
/** Tags that wrap what a person wrote, blocks that quote a person's words, whole harness messages: see `harness-text.ts`. */
const WRAPPER = WRAPPER_TAGS;
const QUOTED = QUOTED_WORDS;
const HARNESS_MESSAGE = HARNESS_TEXT;
/** Replies that carry no request: confirmations at a prompt, leaving the tool, slash commands. */
const TRIVIAL =
  /^(.*\(Y\)es\/\(N\)o.*\]: \w+|y|n|yes|no|ok|okay|k|sure|thanks|thank you|exit|quit|continue|go on|go ahead|proceed|done|<blank>|\/\S+( \S+)?)[.!]?$/i;

/** A message whose tagged blocks include a wrapper of typed text (`<task>`, `<feedback>`…). */
const QUOTED_ONLY = /<(task|feedback|answer|user_message)>/i;
/** Opening of a collapsed tool result's record (collapse.ts). */
const COLLAPSED_RECORD = '[tool result collapsed] ';
/** The line after which a collapsed record of a person's reply keeps their words (collapse.ts). */
const COLLAPSED_ANSWER = "\nThe user's words in this result, verbatim:\n<answer>";

/**
 * The typed text of one user message, or undefined when it holds nothing a person typed. Harness
 * blocks and ANSI codes are removed; wrapper tags keep their text. Trivial replies give undefined.
 * Tool output in the user role (SWE-agent observations, results a harness sends as user text) is
 * never typed, whatever tags it holds: provenance comes from where the text came from. `reply`
 * is true for a tool result the recording marks as the person's reply (then its wrapped words count).
 */
export function typedText(raw: string, reply = false): string | undefined {
  let text = raw;
  if (!reply && isToolOutputText(text)) return undefined;
  const unwrapped = text.replace(INJECTED, ' ').trim();
  if (!unwrapped || (ONLY_BLOCKS.test(unwrapped) && !QUOTED_ONLY.test(unwrapped))) return undefined;
  // A harness that wraps the person's words (Cline's task, feedback, answers, resumption messages):
  // only the wrapped text counts, whatever notices surround it.
  const quoted = [...text.matchAll(QUOTED)].map((m) => m[2].trim()).filter(Boolean);
  if (quoted.length > 0) text = quoted.join('\n\n');
  else if (reply) return undefined;
  text = text
    .replace(INJECTED, ' ')
    .replace(HARNESS_PARAGRAPHS, '\n')
    .replace(WRAPPER, ' ')
    .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')
    .split('\n')
    .filter((l) => !/automated message|do not respond to it conversationally/i.test(l))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (!text || HARNESS_MESSAGE.test(text) || TRIVIAL.test(text) || !/\s/.test(text)) return undefined;
  return text;
}

/** The typed request of an active-context item, or undefined (not a user message, a summary, not typed). */
export function typedRequestOf(item: ContextItem): string | undefined {
  // Only user messages and tool results (a Cline answer) can hold one: others are not cached.
  if (item.kind === 'summary' || (item.message.role !== 'user' && item.message.role !== 'tool')) return undefined;
  // Read once per message object (messages are never mutated): every compaction asks again.
  const hit = typedCache.get(item.message);
  if (hit !== undefined) return hit ?? undefined;
  const typed = typedRequestOfMessage(item.message);
  typedCache.set(item.message, typed ?? null);
  return typed;
}

const typedCache = new MessageMemo<object, string | null>();

function typedRequestOfMessage(message: ContextItem['message']): string | undefined {
  const item = { message };
  const role = item.message.role;
  if (role === 'tool') {
    // Only a result the recording marks as the person's reply holds typed words (Cline's answers
    // to its questions, feedback): tags inside any other tool output are that output.
    const text = textWithPlaceholders(item.message.content);
    // An option the person clicked among those the question offered is a choice, not typed words.
    if (isChosenOption(item.message)) return undefined;
    if (isHumanReply(item.message)) return typedText(text, true);
    // A collapsed record of such a reply keeps the words after a line the record itself writes
    // (its first line is one line of tool name and arguments: output text cannot reach it).
    const at = text.indexOf(COLLAPSED_ANSWER);
    if (text.startsWith(COLLAPSED_RECORD) && at > 0 && !text.slice(0, at).includes('\n'))
      return typedText(text.slice(at + 1), true);
    return undefined;
  }
  // A message the recording marks as the harness's (Claude Code `isMeta`) is never typed.
  if (role !== 'user' || isRecordedHarnessText(item.message)) return undefined;
  return typedText(textWithPlaceholders(item.message.content));
}

/**
 * The requests of a span, oldest first: those carried in earlier summaries of the span (their
 * requests sections, in place), then each typed user message. Duplicates (the same text twice in a
 * row, or a request an earlier summary already carries) appear once.
 */
export function collectRequests(items: readonly ContextItem[]): string[] {
  // A span grown at its end (the next compaction) continues the last long span's reading.
  if (items.length < KEEP_FROM) return new RequestsReading().read(items, 0).out;
  const kept = lastSpan.get(items);
  const reading = kept?.state ?? new RequestsReading();
  reading.read(items, kept?.from ?? 0);
  lastSpan.set(items, reading, kept?.from ?? 0);
  return reading.out.slice();
}

/** Spans shorter than this are read whole (cheap), so they do not push the long span's reading out. */
const KEEP_FROM = 256;
const lastSpan = new GrowingSpan<RequestsReading>();

/** The requests of the items read so far, each once, in order. */
class RequestsReading {
  readonly out: string[] = [];
  private readonly seen = new Set<string>();

  read(items: readonly ContextItem[], from: number): this {
    for (let i = from; i < items.length; i++) {
      const it = items[i];
      if (it.kind === 'summary') {
        // A recorded agent's own summary does not hold the requests verbatim: the import keeps them
        // beside it. Its text is the agent's, whatever headings it uses: never read as requests.
        // A summary of ours that shortened or left out requests keeps them beside it too (see
        // `carriedRequests`): read whole from there, a later summary with more room shows them again.
        for (const r of it.requests ?? []) this.add(r);
        if (!isImportedSummary(it) && it.requests === undefined)
          for (const r of parseRequestsSection(withoutHandLines(textWithPlaceholders(it.message.content), it)))
            this.add(r);
        continue;
      }
      const t = typedRequestOf(it);
      if (t) this.add(t);
    }
    return this;
  }

  private add(t: string): void {
    // Each line saying requests were left out stands for its own requests: two alike are two.
    if (omittedNote(t)) {
      this.out.push(t);
      return;
    }
    if (this.seen.has(t)) return;
    this.seen.add(t);
    this.out.push(t);
  }
}

/**
 * True for a summary item that stands for a recorded agent's own compaction (the import's
 * checkpoints are named `import-…`, see `imported.ts`): its text was written by that agent's model.
 * A summary ContextKeeper wrote and a file of `compact --out` brought back in is imported too, but
 * its text is the product's own (recognised by its header, `summary-header.ts`): false for it.
 */
export function isImportedSummary(item: ContextItem): boolean {
  return (
    item.kind === 'summary' &&
    (item.checkpointId?.startsWith('import-') ?? false) &&
    !isContextKeeperSummary(textWithPlaceholders(item.message.content))
  );
}

/**
 * Parses the requests section of an earlier summary (written by {@link renderRequestsSection}).
 * Returns the requests, oldest first; a request that was shortened keeps its marker. A line that says
 * requests were left out is returned in its place as it stands (`omittedNote` reads its figures): the
 * section that carries these entries counts them again.
 */
export function parseRequestsSection(summary: string): string[] {
  const lines = summary.split('\n');
  const start = lines.findIndex((l) => l.startsWith(REQUESTS_HEADING));
  if (start < 0) return [];
  const out: string[] = [];
  let current: string[] | undefined;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i];
    if (/^#{1,3} /.test(line)) break;
    if (line.startsWith('- ')) {
      if (current) out.push(current.join('\n'));
      current = [line.slice(2)];
    } else if (line.startsWith('  ') && current) current.push(line.slice(2));
    else if (line === '' && current) current.push('');
    else if (line.startsWith('[')) {
      // A note line ends the current request; one saying requests were left out is carried as an
      // entry (`omittedNote`), so the next summary says so too.
      if (current) out.push(current.join('\n'));
      current = undefined;
      if (omittedNote(line)) out.push(line);
    }
  }
  if (current) out.push(current.join('\n'));
  return out.map((r) => r.replace(/\n+$/, '')).filter((r) => r.length > 0);
}

/** Removes the requests section (heading to the next heading) from `text`. */
export function removeRequestsSection(text: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^#{1,3}\s*Requests,? verbatim/i.test(l));
  if (start < 0) return text;
  let end = start + 1;
  while (end < lines.length && !/^#{1,3} /.test(lines[end])) end++;
  return [...lines.slice(0, start), ...lines.slice(end)]
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Most characters of requests a summary keeps beside its text (see {@link carriedRequests}). */
const MAX_CARRIED_CHARS = 400_000;

/**
 * The requests a summary keeps beside its text (`ContextItem.requests`, never sent to the model):
 * `requests` (its span's, oldest first, as `collectRequests` read them) when its requests section
 * shortened or left out any of them, so a later summary with more room shows them whole again instead
 * of re-reading the shortened forms; undefined when the section holds them all whole, or when they are
 * over {@link MAX_CARRIED_CHARS} characters (then the section's text, its lines saying what it left
 * out included, is what a later summary reads).
 */
export function carriedRequests(
  requests: readonly string[],
  section: { shortened: number; omitted: number },
): string[] | undefined {
  if (section.shortened === 0 && section.omitted === 0) return undefined;
  let chars = 0;
  for (const r of requests) if ((chars += r.length) > MAX_CARRIED_CHARS) return undefined;
  return requests.slice();
}
