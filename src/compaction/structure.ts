/**
 * Splits an active context into the units compaction may replace, without ever splitting an agent
 * step (invariant 1) and marking the anchors that are never summarized (invariant 3).
 *
 * Terms (DESIGN.md): a turn starts at a real user message; an agent step is one assistant message
 * plus the tool results that answer its tool calls. History is everything between the leading
 * system messages and the latest real user message; the current task is that message and what
 * follows.
 */
import type { ChatMessage, ContextItem } from './types';

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

/** A user message written by the user (not a summary standing for earlier messages). */
export function isRealUserMessage(item: ContextItem): boolean {
  return item.message.role === 'user' && item.kind !== 'summary';
}

function isSystem(item: ContextItem): boolean {
  return item.message.role === 'system' || item.message.role === 'developer';
}

/**
 * Analyses `items`. `keepRecentSteps` newest agent steps of the current task are anchors.
 * Runs in O(items + tool calls).
 */
export function analyze(items: readonly ContextItem[], keepRecentSteps = 1): Structure {
  let leadEnd = 0;
  while (leadEnd < items.length && isSystem(items[leadEnd])) leadEnd++;
  let lastUserIndex = -1;
  for (let i = items.length - 1; i >= leadEnd; i--) {
    if (isRealUserMessage(items[i])) {
      lastUserIndex = i;
      break;
    }
  }
  const units: Unit[] = [];
  if (leadEnd > 0) units.push({ start: 0, end: leadEnd, kind: 'system', region: 'lead', eligible: false, reason: 'leading system messages' });

  // History: one unit per summary item, per agent step (assistant + its tool results) and per run
  // of other messages (a user message with what follows it up to the next assistant message).
  // Step granularity lets a compaction stop close to its target inside a long turn.
  const historyEnd = lastUserIndex < 0 ? leadEnd : lastUserIndex;
  let i = leadEnd;
  while (i < historyEnd) {
    if (items[i].kind === 'summary') {
      units.push({ start: i, end: i + 1, kind: 'summary', region: 'history', eligible: true });
      i++;
      continue;
    }
    let j = i + 1;
    if (items[i].message.role === 'assistant') {
      while (j < historyEnd && items[j].message.role === 'tool') j++;
    } else {
      while (j < historyEnd && items[j].kind !== 'summary' && items[j].message.role !== 'assistant') j++;
    }
    units.push({ start: i, end: j, kind: 'turn', region: 'history', eligible: true });
    i = j;
  }

  // Current task: the latest user message, then agent steps.
  const steps: Unit[] = [];
  i = historyEnd;
  if (lastUserIndex >= 0) {
    units.push({ start: i, end: i + 1, kind: 'request', region: 'current', eligible: false, reason: 'latest user message' });
    i++;
  }
  while (i < items.length) {
    const item = items[i];
    if (item.message.role === 'assistant') {
      const ids = new Set(toolCallIds(item.message));
      let j = i + 1;
      while (j < items.length && items[j].message.role === 'tool') {
        ids.delete((items[j].message as { tool_call_id?: string }).tool_call_id ?? '');
        j++;
      }
      const step: Unit = { start: i, end: j, kind: 'step', region: 'current', eligible: true };
      if (ids.size > 0) {
        step.eligible = false;
        step.reason = 'tool calls still waiting for results';
      }
      units.push(step);
      steps.push(step);
      i = j;
    } else {
      const kind: UnitKind = item.kind === 'summary' ? 'summary' : 'other';
      units.push({ start: i, end: i + 1, kind, region: 'current', eligible: kind === 'summary' });
      i++;
    }
  }
  for (let k = Math.max(0, steps.length - keepRecentSteps); k < steps.length; k++) {
    if (steps[k].eligible) {
      steps[k].eligible = false;
      steps[k].reason = 'recent agent step';
    }
  }
  for (const u of units) {
    if (!u.eligible) continue;
    for (let k = u.start; k < u.end; k++) {
      if (items[k].pinned) {
        u.eligible = false;
        u.reason = 'pinned';
        break;
      }
    }
  }
  return { leadEnd, lastUserIndex, units };
}
