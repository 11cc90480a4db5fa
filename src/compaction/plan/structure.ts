/**
 * Splits an active context into the units compaction may replace, without ever splitting an agent
 * step (invariant 1) and marking the anchors that are never summarized (invariant 3).
 *
 * Terms (DESIGN.md): a turn starts at a real user message; an agent step is one assistant message
 * plus the tool results that answer its tool calls. History is everything between the leading
 * system messages and the latest real user message; the current task is that message and what
 * follows.
 */
import type { ChatMessage, ContextItem } from '../types';
import { isToolOutputText } from '../text';
import { isRecordedHarnessText, isRecordedSummary } from '../tool-outcomes';
import { userTextAuthor } from '../harness-text';
import { textWithPlaceholders } from '../content-text';
import { MessageMemo } from '../message-memo';

/** What a unit is. */
/** `turn`: a piece of history (a step, or user messages); `step`: a current-task agent step. */
export type UnitKind = 'system' | 'turn' | 'summary' | 'request' | 'step' | 'other';

/** A run of items `[start, end)` that is replaced whole or not at all. */
export interface Unit {
  start: number;
  end: number;
  kind: UnitKind;
  region: 'lead' | 'history' | 'current';
  /** False for anchors, pinned units and steps with unanswered tool calls. */
  eligible: boolean;
  /** Why a unit is not eligible. */
  reason?: string;
}

/** The shape of a context. */
export interface Structure {
  /** Index after the leading system/developer messages. */
  leadEnd: number;
  /** Index of the latest real user message, or -1 when there is none. */
  lastUserIndex: number;
  units: Unit[];
}

/** Tool-call ids of an assistant message (empty for other roles). */
export function toolCallIds(message: ChatMessage): string[] {
  if (message.role !== 'assistant') return [];
  const calls = (message as { tool_calls?: Array<{ id: string }> }).tool_calls;
  return Array.isArray(calls) ? calls.map((c) => c.id) : [];
}

/**
 * A user message written by the user: not a summary standing for earlier messages, not tool output
 * sent in the user role, and not a message a harness or an IDE wrote alone ({@link isHarnessMessage}).
 * A summary an earlier compaction wrote and the recording holds as a plain user message (the
 * recording agent's own compaction replayed message by message, ContextKeeper's read back from a
 * `compact --out` file) is no such message, in whatever item it stands: DESIGN.md's invariant 3
 * anchors what the user typed.
 */
export function isRealUserMessage(item: ContextItem): boolean {
  return item.message.role === 'user' && !isSummaryItem(item) && !isToolOutputMessage(item) && !isHarnessMessage(item);
}

const harnessMessages = new MessageMemo<object, boolean>();

/**
 * A user-role message that holds only what a harness or an IDE wrote (`userTextAuthor` in
 * harness-text.ts: Cline's environment details or task resumption notice with no new words, Claude
 * Code's reminders, command wrappers and records marked `isMeta`, Codex's environment context, IDE
 * selections): nobody typed it. Read once per message object.
 */
export function isHarnessMessage(item: ContextItem): boolean {
  const m = item.message;
  if (m.role !== 'user') return false;
  const hit = harnessMessages.get(m);
  if (hit !== undefined) return hit;
  const harness = userTextAuthor(textWithPlaceholders(m.content), isRecordedHarnessText(m)).by === 'harness';
  harnessMessages.set(m, harness);
  return harness;
}

/**
 * A summary: an item a compaction wrote, or the message (raw, or clipped from it) of a summary an
 * earlier compaction wrote that the recording holds ({@link isRecordedSummary}). Either stands for
 * earlier messages, so either may be summarised again (invariant 10 carries its requests forward).
 */
export function isSummaryItem(item: ContextItem): boolean {
  return item.kind === 'summary' || isRecordedSummary(item.message);
}

/**
 * A user message that carries the result of the previous assistant action rather than a request:
 * agents without native tool calls (SWE-agent observations, Cline results) send tool output in the
 * user role. Such a message belongs to the agent step before it.
 */
export function isToolOutputMessage(item: ContextItem): boolean {
  if (item.message.role !== 'user' || isSummaryItem(item)) return false;
  const content = (item.message as { content?: unknown }).content;
  const head =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? textOf((content[0] as { text?: unknown } | undefined)?.text)
        : '';
  return isToolOutputText(head);
}

function isSystem(item: ContextItem): boolean {
  return item.message.role === 'system' || item.message.role === 'developer';
}

/** Unit kinds and regions as small integers, for the table form. */
const KINDS: readonly UnitKind[] = ['system', 'turn', 'summary', 'request', 'step', 'other'];
const REGIONS: readonly Unit['region'][] = ['lead', 'history', 'current'];
/** Reasons a unit is not eligible (index 0: none). */
export const UNIT_REASONS = [
  '',
  'leading system messages',
  'latest user message',
  'tool calls still waiting for results',
  'recent agent step',
  'pinned',
] as const;

/**
 * The units of a context as parallel typed arrays (unit `k` is `[start[k], end[k])`). The planner
 * reads this form: at 100k messages, one object per unit made garbage collection dominate planning.
 */
export interface UnitTable {
  leadEnd: number;
  lastUserIndex: number;
  count: number;
  start: Int32Array;
  end: Int32Array;
  /** Index into `['system', 'turn', 'summary', 'request', 'step', 'other']`. */
  kind: Uint8Array;
  /** Index into `['lead', 'history', 'current']`. */
  region: Uint8Array;
  /** 1 when the unit may be replaced. */
  eligible: Uint8Array;
  /** Index into {@link UNIT_REASONS} (0 when eligible). */
  reason: Uint8Array;
}

/** Kind codes of {@link UnitTable.kind}. */
export const KIND = { system: 0, turn: 1, summary: 2, request: 3, step: 4, other: 5 } as const;
/** Region codes of {@link UnitTable.region}. */
export const REGION = { lead: 0, history: 1, current: 2 } as const;

/**
 * Analyses `items` into a {@link UnitTable}. `keepRecentSteps` newest agent steps of the current
 * task are anchors. O(items + tool calls), with no allocation per unit.
 */
export function analyzeTable(items: readonly ContextItem[], keepRecentSteps = 1): UnitTable {
  const n = items.length;
  let leadEnd = 0;
  while (leadEnd < n && isSystem(items[leadEnd])) leadEnd++;
  let lastUserIndex = -1;
  for (let i = n - 1; i >= leadEnd; i--) {
    if (isRealUserMessage(items[i])) {
      lastUserIndex = i;
      break;
    }
  }
  // At most one unit per item, plus the lead.
  const cap = n + 1;
  const t: UnitTable = {
    leadEnd,
    lastUserIndex,
    count: 0,
    start: new Int32Array(cap),
    end: new Int32Array(cap),
    kind: new Uint8Array(cap),
    region: new Uint8Array(cap),
    eligible: new Uint8Array(cap),
    reason: new Uint8Array(cap),
  };
  const push = (a: number, b: number, kind: number, region: number, eligible: boolean, reason = 0) => {
    const k = t.count++;
    t.start[k] = a;
    t.end[k] = b;
    t.kind[k] = kind;
    t.region[k] = region;
    t.eligible[k] = eligible ? 1 : 0;
    t.reason[k] = eligible ? 0 : reason;
  };
  if (leadEnd > 0) push(0, leadEnd, KIND.system, REGION.lead, false, 1);

  // History: one unit per summary item, per agent step (assistant + its tool results) and per run
  // of other messages (a user message with what follows it up to the next assistant message).
  // Step granularity lets a compaction stop close to its target inside a long turn.
  const historyEnd = lastUserIndex < 0 ? leadEnd : lastUserIndex;
  let i = leadEnd;
  while (i < historyEnd) {
    if (isSummaryItem(items[i])) {
      push(i, i + 1, KIND.summary, REGION.history, true);
      i++;
      continue;
    }
    let j = i + 1;
    if (items[i].message.role === 'assistant') {
      while (j < historyEnd && items[j].message.role === 'tool') j++;
    } else {
      while (j < historyEnd && !isSummaryItem(items[j]) && items[j].message.role !== 'assistant') j++;
    }
    push(i, j, KIND.turn, REGION.history, true);
    i = j;
  }

  // Current task: the latest user message, then agent steps.
  i = historyEnd;
  if (lastUserIndex >= 0) {
    push(i, i + 1, KIND.request, REGION.current, false, 2);
    i++;
  }
  let steps = 0;
  const firstStepUnit = t.count;
  while (i < n) {
    const item = items[i];
    if (item.message.role === 'assistant') {
      const ids = toolCallIds(item.message);
      let j = i + 1;
      let answered = 0;
      while (j < n && items[j].message.role === 'tool') {
        if (ids.includes((items[j].message as { tool_call_id?: string }).tool_call_id ?? '')) answered++;
        j++;
      }
      // Tool output sent in the user role (agents without native tool calls) ends the step too, and
      // so does what a harness sends after the results (Cline's environment details): nobody typed it.
      while (j < n && (isToolOutputMessage(items[j]) || isHarnessMessage(items[j]))) j++;
      // Every call answered (ids are unique within a message, results answer each once).
      push(i, j, KIND.step, REGION.current, answered >= ids.length, 3);
      steps++;
      i = j;
    } else {
      const summary = isSummaryItem(item);
      push(i, i + 1, summary ? KIND.summary : KIND.other, REGION.current, summary, 0);
      i++;
    }
  }
  // The newest steps are anchors.
  let keep = keepRecentSteps;
  for (let k = t.count - 1; k >= firstStepUnit && keep > 0 && steps > 0; k--) {
    if (t.kind[k] !== KIND.step) continue;
    keep--;
    if (t.eligible[k]) {
      t.eligible[k] = 0;
      t.reason[k] = 4;
    }
  }
  for (let k = 0; k < t.count; k++) {
    if (!t.eligible[k]) continue;
    for (let x = t.start[k]; x < t.end[k]; x++) {
      if (items[x].pinned) {
        t.eligible[k] = 0;
        t.reason[k] = 5;
        break;
      }
    }
  }
  return t;
}

/**
 * Analyses `items` into unit objects (see {@link analyzeTable} for the planner's form).
 * `keepRecentSteps` newest agent steps of the current task are anchors. O(items + tool calls).
 */
export function analyze(items: readonly ContextItem[], keepRecentSteps = 1): Structure {
  const t = analyzeTable(items, keepRecentSteps);
  const units: Unit[] = [];
  for (let k = 0; k < t.count; k++) {
    const u: Unit = {
      start: t.start[k],
      end: t.end[k],
      kind: KINDS[t.kind[k]],
      region: REGIONS[t.region[k]],
      eligible: t.eligible[k] === 1,
    };
    if (!u.eligible && t.reason[k]) u.reason = UNIT_REASONS[t.reason[k]];
    units.push(u);
  }
  return { leadEnd: t.leadEnd, lastUserIndex: t.lastUserIndex, units };
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
