/**
 * Tool-pairing repair, shared by every format (DESIGN.md invariant 1 starts here): after this pass each
 * `tool` message sits in the run right after the assistant message whose `tool_calls` holds its id, and
 * each call id is answered at most once.
 *
 * Rules, in order:
 * - Assistant drafts of one model response (same `responseKey`) merge into the first one, even when
 *   tool results were written between them (Claude Code, Codex parallel calls).
 * - An assistant draft also merges into the open step while results of that step's calls are still to
 *   come before the next user/system message (flattened sessions that split parallel calls).
 * - A result whose call belongs to an earlier step is moved back to that step, and a result written
 *   before its call (Claude Code flushes lines out of order) is moved to the call's step (warned).
 * - A result with no matching call, or for a call already answered, becomes a user text message that
 *   says so (warned); an orphan `tool` message is never emitted.
 * - Pairing is a property of one step: an id may come back in a later step (servers that number
 *   calls per reply send `call_0` every time), and then it names the newest step's call. Two calls
 *   with the same id inside one step are made unique (`call_0`, `call_0_2`), results taken in order.
 *   The Chat Completions API accepts ids reused across steps, so only these in-step duplicates change.
 * - Calls with no recorded result stay unanswered (warned); the core decides what to do with them.
 */
import type { ChatMessage, ToolCall } from '../compaction/types';
import type { BoundaryDraft, Draft, MessageDraft } from './drafts';
import { plainText } from '../compaction/content-text';

/** Result of the pass: messages and boundaries in order, and merged-away ids -> surviving id. */
export interface PairedDrafts {
  items: ReadonlyArray<MessageDraft | BoundaryDraft>;
  alias: Map<string, string>;
  warnings: string[];
}

/**
 * One agent step: an assistant message with calls and the results that answer them. Kept small (a
 * recording has one per model call): the sets and maps are made only for a step that needs them.
 */
interface Step {
  kind: 'step';
  assistant: MessageDraft;
  calls: string[];
  /** Call ids answered so far: undefined until the first result, a list while short (most steps have a few calls), then a set. */
  answered?: string[] | Set<string>;
  /** Original id -> ids given to its later duplicates inside this step, in call order. */
  renamed?: Map<string, string[]>;
  results: MessageDraft[];
  attachments?: MessageDraft[];
}

type Item = Step | MessageDraft | BoundaryDraft;

/** Positions of the results and of the calls of each id (ascending; ids may repeat across steps), and the next user/system message or boundary after each draft. */
interface Positions {
  resultAt: Map<string, number | number[]>;
  callAt: Map<string, number | number[]>;
  nextBreak: Int32Array;
}

/**
 * Repairs tool pairing over drafts in file order. Pure; the drafts are not modified. A recording
 * that needs no repair (see {@link pairedAsRecorded}) gets `drafts` itself back as `items`.
 */
export function pairToolResults(drafts: readonly Draft[]): PairedDrafts {
  return pairedAsRecorded(drafts) ? { items: drafts, alias: new Map(), warnings: [] } : repairPairing(drafts);
}

/** The repair pass itself (see the rules above), for any drafts. Pure; the drafts are not modified. */
export function repairPairing(drafts: readonly Draft[]): PairedDrafts {
  const warnings: string[] = [];
  const alias = new Map<string, string>();
  // Only a recording whose pairing needs repair looks ahead, so the position index is built then.
  let index: Positions | undefined;
  const positions = () => (index ??= indexPositions(drafts));
  // Results met before their call, waiting for it.
  const early = new Map<string, MessageDraft>();

  const items: Item[] = [];
  const owner = new Map<string, Step>();
  let step: Step | undefined;
  let moved = 0;
  const orphans: string[] = [];
  const duplicates: string[] = [];

  const resultsStillComing = (s: Step, i: number) =>
    s.calls.some((id) => {
      if (isAnswered(s, id)) return false;
      const { resultAt, nextBreak } = positions();
      const at = firstAfter(resultAt.get(id), i);
      return at !== undefined && at < nextBreak[i];
    });

  for (let i = 0; i < drafts.length; i++) {
    const d = drafts[i];
    if (d.kind === 'boundary') {
      step = undefined;
      items.push(d);
      continue;
    }
    const role = d.message.role;
    if (role === 'assistant') {
      const sameResponse = step?.assistant.responseKey !== undefined && step.assistant.responseKey === d.responseKey;
      if (step && (sameResponse || resultsStillComing(step, i))) {
        step.assistant = mergeAssistant(step.assistant, d);
        alias.set(d.id, step.assistant.id);
        moved += registerCalls(step, d, owner, duplicates, early);
        continue;
      }
      // The draft itself is the step's message until a merge or a rename replaces it with a copy.
      step = { kind: 'step', assistant: d, calls: [], results: [] };
      moved += registerCalls(step, d, owner, duplicates, early);
      items.push(step);
      continue;
    }
    if (role === 'tool') {
      const callId = d.message.tool_call_id;
      const target = owner.get(callId);
      // A second result for an id that occurs twice in its step answers the renamed duplicate.
      const renamedId =
        target && isAnswered(target, callId)
          ? target.renamed?.get(callId)?.find((id) => !isAnswered(target, id))
          : undefined;
      const answerId = renamedId ?? callId;
      if (target && !isAnswered(target, answerId)) {
        if (target !== step) moved++;
        answer(target, answerId, renamedId ? { ...d, message: { ...d.message, tool_call_id: renamedId } } : d);
        continue;
      }
      const later = target ? undefined : positions().callAt.get(callId);
      if (!target && later !== undefined && last(later) > i && !early.has(callId)) {
        early.set(callId, d);
        continue;
      }
      orphans.push(callId);
      const why = target ? 'a tool call that was already answered' : 'a tool call that is not in the transcript';
      const note: ChatMessage = {
        role: 'user',
        content: `[Tool result for ${why} (id ${callId})]\n${plainText(d.message.content, '\n\n')}`,
      };
      items.push({ ...d, message: note });
      if (d.attachment) items.push(d.attachment);
      step = undefined;
      continue;
    }
    step = undefined;
    items.push(d);
  }

  for (const [callId, d] of early) {
    orphans.push(callId);
    items.push({
      ...d,
      message: {
        role: 'user',
        content: `[Tool result for a tool call that is not in the transcript (id ${callId})]\n${plainText(d.message.content, '\n\n')}`,
      },
    });
  }

  const out: Array<MessageDraft | BoundaryDraft> = [];
  const unanswered: string[] = [];
  for (const item of items) {
    if (item.kind !== 'step') out.push(item);
    else {
      out.push(item.assistant);
      for (const r of item.results) out.push(r);
      if (item.attachments) for (const a of item.attachments) out.push(a);
      for (const id of item.calls) if (!isAnswered(item, id)) unanswered.push(id);
    }
  }
  if (moved) warnings.push(`${moved} tool result(s) were recorded out of place and were moved next to their call`);
  if (orphans.length)
    warnings.push(
      `${orphans.length} tool result(s) match no open tool call and were kept as user text: ${sample(orphans)}`,
    );
  if (duplicates.length)
    warnings.push(
      `${duplicates.length} tool call id(s) occur twice in one step and were made unique: ${sample(duplicates)}`,
    );
  if (unanswered.length)
    warnings.push(`${unanswered.length} tool call(s) have no recorded result: ${sample(unanswered)}`);
  return { items: out, alias, warnings };
}

/**
 * True when {@link repairPairing} would return the drafts as they are, with no warning: every tool result
 * answers an open call of the step right before it, in a run that answers all of that step's calls
 * before the next message or boundary, no step repeats a call id, no assistant draft continues the
 * response before it (same `responseKey`), and no result carries an image attachment. Checked in
 * one pass with only the open step's ids held, so a well-formed recording (the usual case) builds
 * no step records at all.
 */
export function pairedAsRecorded(drafts: readonly Draft[]): boolean {
  let open: string[] = [];
  let responseKey: string | undefined;
  for (const d of drafts) {
    if (d.kind === 'boundary') {
      if (open.length) return false;
      responseKey = undefined;
      continue;
    }
    const role = d.message.role;
    if (role === 'tool') {
      const at = open.indexOf(d.message.tool_call_id);
      if (at < 0 || d.attachment) return false;
      open.splice(at, 1);
      continue;
    }
    if (open.length) return false;
    if (role !== 'assistant') {
      responseKey = undefined;
      continue;
    }
    if (d.responseKey !== undefined && d.responseKey === responseKey) return false;
    responseKey = d.responseKey;
    const calls = toolCallsOf(d.message);
    if (calls.length === 0) continue;
    open = calls.map((c) => c.id);
    for (let k = 1; k < open.length; k++) if (open.indexOf(open[k]) < k) return false;
  }
  return open.length === 0;
}

/** Records `result` as the answer to call `id` of `step`, with the user message of images it carries. */
function answer(step: Step, id: string, result: MessageDraft): void {
  const answered = step.answered;
  if (answered === undefined) step.answered = [id];
  else if (Array.isArray(answered)) {
    answered.push(id);
    if (answered.length > 16) step.answered = new Set(answered);
  } else answered.add(id);
  step.results = append(step.results, result);
  if (result.attachment) step.attachments = append(step.attachments ?? [], result.attachment);
}

/**
 * `list` with `x` appended. An empty list is replaced by a one-element one: a list that grows by
 * `push` from empty reserves room for 16, and a recording has hundreds of thousands of steps with
 * one call and one result each.
 */
function append<T>(list: T[], x: T): T[] {
  if (list.length === 0) return [x];
  list.push(x);
  return list;
}

function isAnswered(step: Step, id: string): boolean {
  const answered = step.answered;
  return answered === undefined ? false : Array.isArray(answered) ? answered.includes(id) : answered.has(id);
}

/** Where each call id is called and answered, and where each draft's run of assistant and tool messages ends. */
function indexPositions(drafts: readonly Draft[]): Positions {
  const resultAt = new Map<string, number | number[]>();
  const callAt = new Map<string, number | number[]>();
  const nextBreak = new Int32Array(drafts.length);
  for (let i = drafts.length - 1, brk = drafts.length; i >= 0; i--) {
    const d = drafts[i];
    nextBreak[i] = brk;
    if (d.kind === 'boundary' || (d.message.role !== 'assistant' && d.message.role !== 'tool')) brk = i;
  }
  for (let i = 0; i < drafts.length; i++) {
    const d = drafts[i];
    if (d.kind !== 'message') continue;
    if (d.message.role === 'tool') push(resultAt, d.message.tool_call_id, i);
    for (const call of toolCallsOf(d.message)) push(callAt, call.id, i);
  }
  return { resultAt, callAt, nextBreak };
}

/**
 * Registers the calls of `d` with `step` (whose assistant message already holds them); claims results
 * met earlier. An id already used inside this step is renamed in the step's assistant message; an id
 * of an earlier step now names this step's call. Returns how many early results it claimed.
 */
function registerCalls(
  step: Step,
  d: MessageDraft,
  owner: Map<string, Step>,
  duplicates: string[],
  early: Map<string, MessageDraft>,
): number {
  let claimed = 0;
  for (const call of toolCallsOf(d.message)) {
    if (step.calls.includes(call.id)) {
      duplicates.push(call.id);
      const unique = uniqueId(call.id, step);
      renameDuplicateCall(step, call.id, unique);
      step.renamed ??= new Map();
      const list = step.renamed.get(call.id) ?? [];
      list.push(unique);
      step.renamed.set(call.id, list);
      step.calls = append(step.calls, unique);
      continue;
    }
    owner.set(call.id, step);
    step.calls = append(step.calls, call.id);
    const result = early.get(call.id);
    if (result) {
      early.delete(call.id);
      answer(step, call.id, result);
      claimed++;
    }
  }
  return claimed;
}

function uniqueId(id: string, step: Step): string {
  let n = 2;
  while (step.calls.includes(`${id}_${n}`)) n++;
  return `${id}_${n}`;
}

/** Renames the second call with id `from` in the step's assistant message (a copy; drafts stay as read). */
function renameDuplicateCall(step: Step, from: string, to: string): void {
  const message = step.assistant.message;
  if (message.role !== 'assistant' || !Array.isArray(message.tool_calls)) return;
  const calls = [...message.tool_calls];
  const first = calls.findIndex((c) => c.id === from);
  const second = calls.findIndex((c, k) => k > first && c.id === from);
  if (second >= 0) calls[second] = { ...calls[second], id: to };
  step.assistant = { ...step.assistant, message: { ...message, tool_calls: calls } };
}

/** Adds position `at` under `key`: a single position is kept as a number, more as an ascending list. */
function push(map: Map<string, number | number[]>, key: string, at: number): void {
  const held = map.get(key);
  if (held === undefined) map.set(key, at);
  else if (typeof held === 'number') map.set(key, [held, at]);
  else held.push(at);
}

function last(held: number | readonly number[]): number {
  return typeof held === 'number' ? held : held[held.length - 1];
}

/** The first position in ascending `held` greater than `i` (binary search). */
function firstAfter(held: number | readonly number[] | undefined, i: number): number | undefined {
  if (held === undefined) return undefined;
  if (typeof held === 'number') return held > i ? held : undefined;
  const list = held;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] > i) hi = mid;
    else lo = mid + 1;
  }
  return lo < list.length ? list[lo] : undefined;
}

/** The tool calls of an assistant message (empty for other roles). */
export function toolCallsOf(message: ChatMessage): ToolCall[] {
  return message.role === 'assistant' && Array.isArray(message.tool_calls) ? message.tool_calls : [];
}

function mergeAssistant(into: MessageDraft, d: MessageDraft): MessageDraft {
  const text = [plainText(into.message.content, '\n\n'), plainText(d.message.content, '\n\n')]
    .filter((t) => t !== '')
    .join('\n\n');
  const calls = [...toolCallsOf(into.message), ...toolCallsOf(d.message)];
  // Provider fields of the first message (e.g. `reasoning_content`) are kept as found.
  const base = into.message.role === 'assistant' ? into.message : { role: 'assistant' as const };
  const { tool_calls: _dropped, ...rest } = base;
  const message: ChatMessage = { ...rest, content: text !== '' ? text : calls.length ? null : '' };
  if (calls.length) message.tool_calls = calls;
  const meta = { ...into.meta };
  meta.reportedPromptTokens ??= d.meta.reportedPromptTokens;
  meta.model ??= d.meta.model;
  meta.timestamp ??= d.meta.timestamp;
  return { ...into, message, meta };
}

function sample(ids: string[]): string {
  const head = ids.slice(0, 5).join(', ');
  return ids.length > 5 ? `${head}, … (${ids.length - 5} more)` : head;
}
