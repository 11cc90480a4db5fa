/**
 * The next-steps evaluation: at each compaction point of every shared recording (the recording's own
 * compactions, and where the prompt first passes 80% of each window), the product compacts the
 * context as `context-keeper compact` does (same function, extractive summarizer, the CLI's
 * defaults), and the result is scored against gold sets read from the recording (what the span held,
 * what the agent needed next) beside three baselines: same-size truncation, observation masking and
 * the agent's own summary where it made one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadSession, type LoadedSession } from '../../../src/cli/load';
import { compactSession } from '../../../src/cli/commands';
import { itemsFromEntries, toMessages } from '../../../src/compaction/context';
import { applyRecordedCompactions } from '../../../src/compaction/rewrite/imported';
import { textWithPlaceholders } from '../../../src/compaction/content-text';
import {
  agentCalls,
  constraintSentences,
  retentionGold,
  typedRequests,
  type RetentionGold,
} from '../../../src/compaction/retention';
import type { ChatMessage, ContextItem } from '../../../src/compaction/types';
import type { PlainMessage } from '../text';
import { resolveTyped, type TypedTranscript } from '../typed';
import { neededTokens, openTodoItems } from './needed';
import { scoreContext, type PointGold, type Scores } from './score';
import { describeCompaction } from '../../../src/compaction/outcome-text';

/** Windows of the evaluation, in tokens. */
export const NEXT_WINDOWS = [8_000, 32_000, 128_000];
/** The CLI's defaults (src/cli.ts): compact at 0.8, to 0.5, one kept step, no reserve, extractive. */
export const DEFAULTS = { at: 0.8, to: 0.5, keepSteps: 1, summarizer: 'extractive' } as const;
/** Label of the point after the recording's last message. */
export const END_POINT = 'end of recording';
/** Tool outputs newer than this many stay whole under observation masking. */
export const MASK_KEEP = 10;

export type Method = 'product' | 'truncation' | 'masking' | 'agent';

/** One scored context. */
export interface MethodResult {
  method: Method;
  tokens: number;
  /** Tokens of the text the method wrote (its summary); 0 for truncation and masking. */
  summaryTokens: number;
  scores: Scores;
}

/** One point of one recording at one window. */
export interface PointResult {
  transcript: string;
  window: number;
  /** `80% of window` or `agent compaction N`. */
  point: string;
  /** Message index of the model call the point is before. */
  index: number;
  tokensBefore: number;
  target: number;
  /** Messages the product's compaction replaced. */
  replaced: number;
  outcome: string;
  gold: Record<keyof PointGold, number>;
  methods: MethodResult[];
}

/** A recorded compaction's position: the context the agent had just before it is messages [0, at). */
interface RecordedAt {
  k: number;
  at: number;
  /** The agent's context right after it is messages [0, ownAt) with compactions ≤ k applied. */
  ownAt: number;
}

function recordedPoints(s: LoadedSession, file: string): RecordedAt[] {
  const byId = new Map(s.entries.map((e, i) => [e.id, i]));
  let eventOrder: Map<string, number> | undefined;
  let condensations: number[] = [];
  if (s.transcript.format === 'openhands') {
    // The Condensation event's place in the event list; the importer keeps no entry for it.
    const events = JSON.parse(fs.readFileSync(file, 'utf8')) as Array<{ id?: string; kind?: string }>;
    eventOrder = new Map(events.map((e, i) => [String(e.id), i]));
    condensations = events.flatMap((e, i) => (e.kind === 'Condensation' ? [i] : []));
  }
  return s.transcript.compactions.map((c, k) => {
    if (c.summaryEntryId !== undefined && byId.has(c.summaryEntryId)) {
      const at = byId.get(c.summaryEntryId)!;
      return { k, at, ownAt: at + 1 };
    }
    if (eventOrder && condensations[k] !== undefined) {
      const at = s.entries.findIndex((e) => (eventOrder.get(e.meta?.source?.recordId ?? '') ?? -1) > condensations[k]);
      const p = at < 0 ? s.entries.length : at;
      return { k, at: p, ownAt: p };
    }
    const last = Math.max(...c.replacedIds.map((id) => byId.get(id) ?? -1));
    return { k, at: last + 1, ownAt: last + 1 };
  });
}

/** The session as it stood before message `at`, with the recorded compactions `applied` (indexes). */
function sessionAt(s: LoadedSession, at: number, applied: readonly number[]): LoadedSession {
  const entries = s.entries.slice(0, at);
  const rawItems = itemsFromEntries(entries);
  const compactions = applied.map((k) => s.transcript.compactions[k]);
  const a = applyRecordedCompactions(rawItems, compactions, s.meter, s.transcript.tools);
  return {
    ...s,
    transcript: { ...s.transcript, entries, compactions },
    entries,
    rawItems,
    items: a.items,
    importCheckpoints: a.checkpoints,
  };
}

const appliedBefore = (rec: readonly RecordedAt[], at: number) => rec.filter((r) => r.at < at).map((r) => r.k);

function tokensOf(s: LoadedSession, items: readonly ContextItem[]): number {
  return s.meter.measure(items, s.transcript.tools).total;
}

/** Same-size truncation: the leading system messages and the newest messages that fit `size` tokens (never starting on a tool result). */
function truncation(s: LoadedSession, items: readonly ContextItem[], size: number): ContextItem[] {
  let lead = 0;
  while (lead < items.length && items[lead].message.role === 'system') lead++;
  let best: ContextItem[] = items.slice(0, lead);
  let lo = lead;
  let hi = items.length;
  // Binary search on the first kept index: tokens fall as it rises.
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    let start = mid;
    while (start < items.length && items[start].message.role === 'tool') start++;
    const cand = [...items.slice(0, lead), ...items.slice(start)];
    if (tokensOf(s, cand) <= size) {
      best = cand;
      hi = mid;
    } else lo = mid + 1;
  }
  return best;
}

/** Observation masking: every message kept, tool outputs older than the newest {@link MASK_KEEP} replaced by a one-line placeholder. */
function masking(items: readonly ContextItem[]): ContextItem[] {
  const outputs = new Set<number>();
  const calls = agentCalls(items);
  for (const c of calls) if (c.resultIndex !== undefined) outputs.add(c.resultIndex);
  items.forEach((it, i) => it.message.role === 'tool' && outputs.add(i));
  const order = [...outputs].sort((a, b) => a - b);
  const masked = new Set(order.slice(0, Math.max(0, order.length - MASK_KEEP)));
  return items.map((it, i) => {
    if (!masked.has(i)) return it;
    const text = textWithPlaceholders(it.message.content);
    const placeholder = `[tool output omitted: ${text.length} characters]`;
    const message = (
      it.message.role === 'tool'
        ? { ...it.message, content: placeholder }
        : { role: it.message.role, content: placeholder }
    ) as ChatMessage;
    return { ...it, id: `masked:${it.id}`, kind: 'collapsed' as const, message };
  });
}

/** The reviewed typed messages of the recording, else the retention rule's (named in the result). */
function typedOf(
  s: LoadedSession,
  reviewed: TypedTranscript | undefined,
): { source: string; typed: Array<{ index: number; text: string }> } {
  if (reviewed) {
    try {
      return { source: 'reviewed list', typed: resolveTyped(reviewed, s.entries) };
    } catch (e) {
      return { source: `rule (${(e as Error).message})`, typed: typedRequests(s.entries) };
    }
  }
  return { source: 'rule (no reviewed list)', typed: typedRequests(s.entries) };
}

function runsOf(indexes: readonly number[]): Array<[number, number]> {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const out: Array<[number, number]> = [];
  for (const i of sorted) {
    const last = out[out.length - 1];
    if (last && last[1] === i) last[1] = i + 1;
    else out.push([i, i + 1]);
  }
  return out;
}

/** Gold sets of the span (possibly several runs of messages) at `point`. */
function goldOf(
  s: LoadedSession,
  typed: ReadonlyArray<{ index: number; text: string }>,
  allReplaced: ReadonlySet<number>,
  readReplaced: readonly number[],
  point: number,
  lead: string,
): PointGold {
  const parts: RetentionGold[] = runsOf(readReplaced).map(([a, b]) => retentionGold(s.entries, a, b, point));
  const uniq = <T>(xs: T[]) => [...new Set(xs)];
  const spanTyped = typed.filter((t) => allReplaced.has(t.index)).map((t) => t.text);
  const latest = [...typed].reverse().find((t) => t.index < point);
  const modified = uniq(parts.flatMap((p) => p.modified.map((m) => m.path)));
  return {
    typed: spanTyped,
    constraints: uniq(spanTyped.flatMap((t) => constraintSentences(t))),
    modified,
    read: uniq(parts.flatMap((p) => p.read)).filter((r) => !modified.includes(r)),
    codeNames: uniq(parts.flatMap((p) => p.codeNames)),
    needed: neededTokens(s.entries, point, readReplaced, lead),
    latestRequest: latest?.text,
    todoOpen: openTodoItems(s.entries, point),
    errors: parts.flatMap((p) => p.errors),
    neverFailed: uniq(parts.flatMap((p) => p.neverFailed)),
  };
}

const count = (g: PointGold): PointResult['gold'] => ({
  typed: g.typed.length,
  constraints: g.constraints.length,
  modified: g.modified.length,
  read: g.read.length,
  codeNames: g.codeNames.length,
  needed: g.needed.length,
  latestRequest: g.latestRequest ? 1 : 0,
  todoOpen: g.todoOpen.length,
  errors: g.errors.length,
  neverFailed: g.neverFailed.length,
});

const plain = (items: readonly ContextItem[]) => toMessages(items) as unknown as PlainMessage[];

/**
 * Evaluates one recording at every point and window. `log` gets one line per point. `golds` holds
 * each point's gold sets (in memory only: they quote the recording).
 */
export async function evaluateRecording(
  file: string,
  name: string,
  reviewed: TypedTranscript | undefined,
  log: (line: string) => void,
  windows: readonly number[] = NEXT_WINDOWS,
): Promise<{ points: PointResult[]; typedSource: string; golds: Map<PointResult, PointGold> }> {
  const s = await loadSession(file);
  const rec = recordedPoints(s, file);
  const { source, typed } = typedOf(s, reviewed);
  const lead =
    s.entries
      .filter((e) => e.message.role === 'system')
      .map((e) => textWithPlaceholders(e.message.content))
      .join('\n') + JSON.stringify(s.transcript.tools ?? []);
  // Prompt tokens before each model call (an assistant message), with the recorded compactions made by then.
  const calls: Array<{ at: number; tokens: number }> = [];
  for (let i = 1; i < s.entries.length; i++) {
    if (s.entries[i].message.role !== 'assistant') continue;
    const p = sessionAt(s, i, appliedBefore(rec, i));
    calls.push({ at: i, tokens: tokensOf(p, p.items) });
  }
  const points: PointResult[] = [];
  const golds = new Map<PointResult, PointGold>();
  for (const window of windows) {
    const wanted: Array<{ label: string; at: number; applied: number[]; own?: RecordedAt }> = [];
    const first = calls.find((c) => c.tokens > DEFAULTS.at * window);
    if (first) wanted.push({ label: `80% of window`, at: first.at, applied: appliedBefore(rec, first.at) });
    for (const r of rec)
      wanted.push({ label: `agent compaction ${r.k + 1}`, at: r.at, applied: appliedBefore(rec, r.at), own: r });
    // Where `compact FILE` runs: after the last message. No call follows, so no needed tokens; the
    // span is the deepest, which is where failures and their fixes lie. Reported apart, not in the targets.
    wanted.push({ label: END_POINT, at: s.entries.length, applied: rec.map((r) => r.k) });
    for (const w of wanted) {
      const before = sessionAt(s, w.at, w.applied);
      const tokensBefore = tokensOf(before, before.items);
      const target = Math.floor(window * DEFAULTS.to);
      if (tokensBefore <= target) continue;
      const result = await compactSession(before, { window, ...DEFAULTS });
      const at = new Map(s.entries.map((e, i) => [e.id, i]));
      const replacedIds = result.checkpoints.flatMap((c) => c.replacedIds);
      const all = new Set(replacedIds.map((id) => at.get(id)).filter((i): i is number => i !== undefined));
      // Messages behind a recorded summary were not in the context this compaction read.
      const hidden = new Set(before.importCheckpoints.flatMap((c) => c.replacedIds));
      const read = [...all].filter((i) => !hidden.has(s.entries[i].id));
      const gold = goldOf(s, typed, all, read, w.at, lead);
      const newIds = new Set(result.checkpoints.map((c) => c.id));
      const written = result.context.filter(
        (it) => it.checkpointId && newIds.has(it.checkpointId) && it.kind === 'summary',
      );
      const writtenText = written.map((it) => textWithPlaceholders(it.message.content)).join('\n');
      const methods: MethodResult[] = [
        {
          method: 'product',
          tokens: result.tokensAfter,
          summaryTokens: writtenText ? s.meter.countText(writtenText) : 0,
          scores: scoreContext(gold, plain(result.context), writtenText),
        },
      ];
      const trunc = truncation(before, before.items, result.tokensAfter);
      methods.push({
        method: 'truncation',
        tokens: tokensOf(before, trunc),
        summaryTokens: 0,
        scores: scoreContext(gold, plain(trunc), undefined),
      });
      const masked = masking(before.items);
      methods.push({
        method: 'masking',
        tokens: tokensOf(before, masked),
        summaryTokens: 0,
        scores: scoreContext(gold, plain(masked), undefined),
      });
      if (w.own) {
        const own = sessionAt(s, w.own.ownAt, [...w.applied, w.own.k]);
        const ownCp = own.importCheckpoints.filter((c) => c.summary && c.replacedIds.length);
        const ownText = ownCp.length ? ownCp[ownCp.length - 1].summary : '';
        methods.push({
          method: 'agent',
          tokens: tokensOf(own, own.items),
          summaryTokens: ownText ? s.meter.countText(ownText) : 0,
          scores: scoreContext(gold, plain(own.items), ownText),
        });
      }
      const p: PointResult = {
        transcript: name,
        window,
        point: w.label,
        index: w.at,
        tokensBefore,
        target,
        replaced: all.size,
        outcome: result.status.kind === 'applied' ? 'applied' : `not applied: ${describeCompaction(result.status)}`,
        gold: count(gold),
        methods,
      };
      points.push(p);
      golds.set(p, gold);
      log(
        `next steps: ${name} at ${window / 1000}k, ${w.label} (message ${w.at}): ${tokensBefore} → ${result.tokensAfter} tokens, ${all.size} messages replaced`,
      );
    }
  }
  return { points, typedSource: source, golds };
}

/** Path of the results file (figures only: no text of any recording). */
export function nextStepsResultsPath(root: string): string {
  return path.join(root, 'bench/results-next-steps.json');
}

/** Path of the details file (missed items and false-open lines, quoting the recordings): under out/, never committed. */
export function nextStepsDetailsPath(root: string): string {
  return path.join(root, 'out/bench/next-steps-details.json');
}
