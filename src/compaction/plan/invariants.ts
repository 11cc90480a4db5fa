/**
 * Checks of DESIGN.md's invariants on an active context. Used by tests, by `replay` on every
 * context it would send, and as a last guard before a compaction commits.
 */
import type { ChatMessage, ContextItem, Entry } from '../types';
import { rawItem } from '../context';
import { analyze, analyzeTable, isRealUserMessage, toolCallIds, UNIT_REASONS } from './structure';

/** One broken invariant, for people: `invariant` is the number in DESIGN.md. */
export interface Violation {
  invariant: 1 | 2 | 3 | 4 | 5 | 6;
  index?: number;
  message: string;
}

/** DESIGN.md's short name of each invariant a {@link Violation} can name. */
const INVARIANT_NAMES: Record<Violation['invariant'], string> = {
  1: 'tool pairing',
  2: 'order',
  3: 'anchors',
  4: 'no loss',
  5: 'shrink',
  6: 'role',
};

/**
 * One line for people naming the broken invariant (its DESIGN.md number and name) and what broke it,
 * e.g. `invariant 3 (anchors): anchor message m2 (user) is not in the context verbatim`.
 */
export function describeViolation(v: Violation): string {
  return `invariant ${v.invariant} (${INVARIANT_NAMES[v.invariant]}): ${v.message}`;
}

/**
 * Invariant 1 on a message array: each tool message answers a tool call of the assistant message
 * right before its run of tool messages, and each tool call is answered exactly once before the
 * next non-tool message. With `allowPendingTail`, the calls of a final assistant message may still
 * be waiting for results (a step in progress).
 *
 * Pairing is a property of one agent step: ids must be unique inside one assistant message, not
 * across the conversation. Several OpenAI-compatible servers number calls per reply (`call_0` in
 * every step) and the Chat Completions API accepts that, since a result can only answer the
 * assistant message right before its run.
 */
export function checkToolPairing(messages: readonly ChatMessage[], allowPendingTail = false): Violation[] {
  const out: Violation[] = [];
  let open: Set<string> | undefined;
  let openAt = -1;
  const close = (at: number) => {
    if (open && open.size > 0) {
      out.push({
        invariant: 1,
        index: openAt,
        message: `tool calls ${[...open].join(', ')} of message ${openAt} are not answered before message ${at}`,
      });
    }
    open = undefined;
  };
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m.role === 'tool') {
      const id = (m as { tool_call_id?: string }).tool_call_id ?? '';
      if (!open || !open.has(id)) {
        out.push({
          invariant: 1,
          index: i,
          message: `tool message ${i} (tool_call_id ${JSON.stringify(id)}) does not answer a call of the assistant message before it`,
        });
      } else open.delete(id);
      continue;
    }
    close(i);
    const ids = toolCallIds(m);
    if (ids.length > 0) {
      const seen = new Set<string>();
      for (const id of ids) {
        if (seen.has(id))
          out.push({ invariant: 1, index: i, message: `tool call id ${id} appears twice in message ${i}` });
        seen.add(id);
      }
      open = new Set(ids);
      openAt = i;
    }
  }
  if (!(allowPendingTail && openAt === lastAssistantIndex(messages))) close(messages.length);
  return out;
}

function lastAssistantIndex(messages: readonly ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--)
    if (messages[i].role !== 'tool') return messages[i].role === 'assistant' ? i : -1;
  return -1;
}

/** Options of {@link checkContext}. */
export interface CheckOptions {
  keepRecentSteps?: number;
  allowPendingTail?: boolean;
  /**
   * `raw` as `raw` items (one per entry, in order, as `itemsFromEntries` makes them), when the
   * caller holds them already: the check then does not build them again (300k items are about 34 MB).
   */
  rawItems?: readonly ContextItem[];
}

/**
 * Checks invariants 1-4 and 6 of `items` against the raw transcript `raw`:
 * 1 pairing; 2 and 4 together as "the covered raw ids, in item order, are exactly the raw ids in
 * order" (a summary stands at its oldest message, nothing is lost or covered twice); 3 anchors
 * (leading system messages, the latest real user message and the newest `keepRecentSteps` steps
 * are the raw messages themselves); 6 no summary enters as a system message.
 */
export function checkContext(
  items: readonly ContextItem[],
  raw: readonly Entry[],
  options: CheckOptions = {},
): Violation[] {
  const out = checkToolPairing(
    items.map((i) => i.message),
    options.allowPendingTail ?? true,
  );
  // The covered ids are compared as they are read: no list of every id (it runs while memory peaks).
  let covered = 0;
  let difference = -1;
  for (const it of items) {
    for (const id of it.covers) {
      if (difference < 0 && raw[covered]?.id !== id) difference = covered;
      covered++;
    }
  }
  if (difference >= 0 || covered !== raw.length) {
    out.push({
      invariant: 4,
      message: `covered raw ids differ from the raw transcript (${covered} covered, ${raw.length} raw, first difference at ${difference < 0 ? covered : difference})`,
    });
  }
  // Raw items as the context builds them: a summary the recording holds (`meta.importedSummary`) is
  // marked on its message, so it is no latest-request anchor here either.
  const rawItems: readonly ContextItem[] = options.rawItems ?? raw.map(rawItem);
  // The unit table, not unit objects: only the anchors are needed.
  const rawShape = analyzeTable(rawItems, options.keepRecentSteps ?? 1);
  const mustKeep: number[] = [];
  for (let k = 0; k < rawShape.leadEnd; k++) mustKeep.push(k);
  if (rawShape.lastUserIndex >= 0) mustKeep.push(rawShape.lastUserIndex);
  for (let u = 0; u < rawShape.count; u++)
    if (rawShape.reason[u] === RECENT_STEP) for (let k = rawShape.start[u]; k < rawShape.end[u]; k++) mustKeep.push(k);
  const rawFirst = raw.findIndex((e) => e.message.role !== 'system' && e.message.role !== 'developer');
  checkAnchorsAndRoles(items, raw, mustKeep, rawFirst, out);
  return out;
}

const RECENT_STEP = UNIT_REASONS.indexOf('recent agent step');

/**
 * Invariants 3 (anchors verbatim), 6 (a summary is never a system message) and the first-message half
 * of 2, shared by the full and the incremental check.
 * @param mustKeep raw indices of the anchors
 * @param rawFirst raw index of the first message that is not system/developer (-1 when none)
 */
function checkAnchorsAndRoles(
  items: readonly ContextItem[],
  raw: readonly Entry[],
  mustKeep: readonly number[],
  rawFirst: number,
  out: Violation[],
): void {
  if (mustKeep.length > 0) {
    const byRawId = new Map<string, ContextItem>();
    const wanted = new Set(mustKeep.map((k) => raw[k].id));
    for (const it of items)
      for (const id of it.covers.length === 1 ? it.covers : []) if (wanted.has(id)) byRawId.set(id, it);
    for (const k of mustKeep) {
      // A clipped or collapsed anchor is allowed: that happens only when the request could not be
      // sent at all otherwise (the degrade tiers, degrade.ts).
      const it = byRawId.get(raw[k].id);
      if (
        !it ||
        it.covers.length !== 1 ||
        it.kind === 'summary' ||
        (it.kind === 'raw' && it.message !== raw[k].message)
      ) {
        out.push({
          invariant: 3,
          index: k,
          message: `anchor message ${raw[k].id} (${raw[k].message.role}) is not in the context verbatim`,
        });
      }
    }
  }
  items.forEach((it, k) => {
    if (it.kind === 'summary' && (it.message.role === 'system' || it.message.role === 'developer')) {
      out.push({ invariant: 6, index: k, message: `summary ${it.id} is a ${it.message.role} message` });
    }
  });
  const firstItem = items.findIndex((it) => it.message.role !== 'system' && it.message.role !== 'developer');
  if (
    firstItem >= 0 &&
    rawFirst >= 0 &&
    raw[rawFirst].message.role === 'user' &&
    items[firstItem].message.role !== 'user'
  ) {
    out.push({
      invariant: 2,
      index: firstItem,
      message: `first non-system message is ${items[firstItem].message.role}, not user`,
    });
  }
}

/**
 * {@link checkContext} for a transcript that only grows (replay, a live session): the raw side is kept
 * incrementally, so one check costs O(items + newest steps) instead of O(raw). Each item's `covers`
 * is verified once per item object (items are immutable), then only its position is checked.
 * Reports the same violations as `checkContext(items, raw, options)` (a property test compares them).
 */
export class IncrementalChecker {
  private readonly raw: Entry[] = [];
  private readonly position = new Map<string, number>();
  /** Item object -> raw index of its first covered id, once its covers were found contiguous. */
  private readonly verified = new WeakMap<ContextItem, number>();
  private leadEnd = 0;
  private leadOpen = true;
  private firstReal = -1;
  private lastUser = -1;
  /** Raw indices of the assistant messages after {@link lastUser}, oldest first. */
  private assistants: number[] = [];

  constructor(private readonly options: CheckOptions = {}) {}

  /** Appends raw entries (transcript order). */
  append(...entries: Entry[]): void {
    for (const e of entries) {
      const k = this.raw.length;
      this.raw.push(e);
      this.position.set(e.id, k);
      const role = e.message.role;
      const system = role === 'system' || role === 'developer';
      if (this.leadOpen && system) this.leadEnd = k + 1;
      else this.leadOpen = false;
      if (!system && this.firstReal < 0) this.firstReal = k;
      if (!this.leadOpen && isRealUserMessage(rawItem(e))) {
        this.lastUser = k;
        this.assistants = [];
      } else if (!this.leadOpen && role === 'assistant') {
        this.assistants.push(k);
        // Only the newest steps matter; keep a bounded list.
        if (this.assistants.length > 64 + (this.options.keepRecentSteps ?? 1)) this.assistants.splice(0, 32);
      }
    }
  }

  /** Raw entries appended so far. */
  get entries(): readonly Entry[] {
    return this.raw;
  }

  /** The violations of `items` against the raw entries appended so far. */
  check(items: readonly ContextItem[]): Violation[] {
    const raw = this.raw;
    const out = checkToolPairing(
      items.map((i) => i.message),
      this.options.allowPendingTail ?? true,
    );
    // Invariants 2 and 4: the covered ids, in item order, are exactly the raw ids in order.
    let next = 0;
    let firstDifference = -1;
    for (const it of items) {
      const start = this.coveredStart(it);
      if (start !== next) {
        firstDifference = next;
        break;
      }
      next += it.covers.length;
    }
    if (firstDifference < 0 && next !== raw.length) firstDifference = Math.min(next, raw.length);
    if (firstDifference >= 0) {
      const covered = items.reduce((n, it) => n + it.covers.length, 0);
      out.push({
        invariant: 4,
        message: `covered raw ids differ from the raw transcript (${covered} covered, ${raw.length} raw, first difference at ${firstDifference})`,
      });
    }
    // Invariant 3: leading system messages, the latest real user message, the newest complete steps.
    const mustKeep: number[] = [];
    for (let k = 0; k < this.leadEnd; k++) mustKeep.push(k);
    if (this.lastUser >= 0) mustKeep.push(this.lastUser);
    for (const k of this.recentStepIndices()) mustKeep.push(k);
    checkAnchorsAndRoles(items, raw, mustKeep, this.firstReal, out);
    return out;
  }

  /** Raw index of the first id `item` covers when its covers are contiguous raw ids; else -1. */
  private coveredStart(item: ContextItem): number {
    const known = this.verified.get(item);
    if (known !== undefined) return known;
    const start = item.covers.length > 0 ? this.position.get(item.covers[0]) : undefined;
    if (start === undefined) return -1;
    if (start + item.covers.length > this.raw.length) return -1;
    // Ids are unique, so comparing with the raw ids in place is enough (and cheaper than lookups).
    for (let k = 1; k < item.covers.length; k++) if (this.raw[start + k].id !== item.covers[k]) return -1;
    this.verified.set(item, start);
    return start;
  }

  /**
   * Raw indices of the newest `keepRecentSteps` complete agent steps of the current task, found the
   * way {@link analyze} finds them, on the raw slice from the oldest of those steps' assistant messages.
   */
  private recentStepIndices(): number[] {
    const keep = this.options.keepRecentSteps ?? 1;
    if (keep <= 0 || this.assistants.length === 0) return [];
    const from = this.assistants[Math.max(0, this.assistants.length - keep)];
    const slice = this.raw.slice(from).map(rawItem);
    const shape = analyze(slice, keep);
    const out: number[] = [];
    for (const u of shape.units)
      if (u.reason === 'recent agent step') for (let k = u.start; k < u.end; k++) out.push(from + k);
    return out;
  }
}
