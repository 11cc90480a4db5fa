/**
 * The last tiers of a compaction, for a context that still does not fit its window after the usual
 * ones (collapse, summaries of history, clips): what is normally never touched is shortened, in
 * order, and each stage runs only while the context is still over its goal:
 *
 * 1. tool results inside the newest agent steps collapse to one-line records, largest first;
 * 2. the newest steps' messages and then the latest request are clipped in the middle, largest first;
 * 3. earlier summaries and summaries imported from a recording are summarised again (a summary of
 *    summaries), each contiguous run into one, its typed requests kept first in its
 *    "Requests, verbatim" section and its standing rules kept last by the notes' own order.
 *
 * Stages 1 and 2 run only when the protected tail (system prompt, tool schemas, latest request, newest
 * steps, what else is left) is itself too large to fit beside the smallest re-summarised summaries:
 * a long imported summary is shortened before the newest tool output is. Source of the order:
 * DESIGN.md "Compaction pipeline, cheapest first" (no model call before a model call).
 */
import { FirstPositions, firstPositionAt, placeCoverage, wholeCoverage } from '../summary/coverage';
import type { Checkpoint, CheckpointStrategy, CompactionOptions, ContextItem, Summarizer, ToolSchema } from '../types';
import { SummarizerError } from '../types';
import type { TokenMeter } from '../meter/meter';
import { analyzeTable, KIND, REGION } from '../plan/structure';
import { callIndex, collapseItem, describeCollapse } from './collapse';
import { clipMessageToTokens } from '../clip';
import { keepSummaryMark } from '../tool-outcomes';
import { applyCheckpoint } from '../context';
import { tokenHolders } from '../plan/holders';
import { carriedRequests, collectRequests, removeRequestsSection } from '../summary/requests';
import { RULES_ROOM_TOKENS, standingRulesOf, standingRulesTokens } from '../summary/span-scan';
import { collapsedOutputPointer, pointerLine } from '../summary/recall-pointer';
import { backfillIdentifiers } from '../summary/identifiers/backfill';
import { keepEarlierHoldings, SHORTER_HOLDINGS } from '../summary/earlier-holdings';
import { handLinesOf, keepHandLines } from '../summary/hand-lines';
import { maskSecrets } from '../secrets';
import { COLLAPSE_MIN_TOKENS } from '../plan/collapse-plan';
import { renderRequestsSection } from '../summary/requests-section';

/** A degraded clip keeps at least this many tokens of a message. */
export const DEGRADE_CLIP_MIN_TOKENS = 256;
/** Smallest re-summarised summary, in tokens: notes plus the typed requests it keeps. */
export const DEGRADE_SUMMARY_FLOOR = 320;

/** Everything the degrade stages need. */
export interface DegradeInput {
  /** The context after the usual tiers. */
  items: readonly ContextItem[];
  tools?: readonly ToolSchema[];
  meter: TokenMeter;
  summarizer: Summarizer;
  options: CompactionOptions;
  keepRecentSteps: number;
  /** Tokens to get down to (the meter's total). */
  goal: number;
  /** Most tokens a summary's requests section may take. */
  userTokens: number;
  /** A new, empty checkpoint of this compaction run. */
  newCheckpoint: (strategy: CheckpointStrategy) => Checkpoint;
  /** The label that opens a summary of `n` messages. */
  header: (messages: number) => string;
  /** Model calls the compaction may still make; each summary here spends from it (see `maxSummaryCalls`). */
  calls: { left: number };
}

/** What the stages did: checkpoints to apply after the usual ones, and the context they give. */
export interface DegradeResult {
  checkpoints: Checkpoint[];
  items: ContextItem[];
  /** A summarizer failure in stage 3 (the caller discards the whole compaction). */
  error?: SummarizerError;
}

/** Item indices `[start, end)` of the units that are the latest request or the newest steps. */
function tailUnits(
  items: readonly ContextItem[],
  keepRecentSteps: number,
): { steps: Array<[number, number]>; request?: [number, number] } {
  const t = analyzeTable(items, keepRecentSteps);
  const steps: Array<[number, number]> = [];
  let request: [number, number] | undefined;
  for (let k = 0; k < t.count; k++) {
    if (t.kind[k] === KIND.request) request = [t.start[k], t.end[k]];
    else if (t.kind[k] === KIND.step && t.region[k] === REGION.current && !t.eligible[k])
      steps.push([t.start[k], t.end[k]]);
  }
  return { steps, request };
}

/** Contiguous runs of summary items `[start, end)` (a user summary and its assistant pair form one run). */
function summaryRuns(items: readonly ContextItem[]): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (let i = 0; i < items.length; i++) {
    if (items[i].kind !== 'summary' || items[i].pinned) continue;
    let j = i + 1;
    while (j < items.length && items[j].kind === 'summary' && !items[j].pinned) j++;
    runs.push([i, j]);
    i = j - 1;
  }
  return runs;
}

/**
 * Runs the degrade stages on `input.items` until the meter's total is at most `input.goal` or
 * nothing is left to shorten. Never throws for summarizer failures (returned as `error`).
 */
export async function degradeToFit(input: DegradeInput): Promise<DegradeResult> {
  const { meter, tools, goal, keepRecentSteps } = input;
  let items = [...input.items];
  const checkpoints: Checkpoint[] = [];
  const apply = (cp: Checkpoint) => {
    if (cp.replaced.length === 0) return;
    checkpoints.push(cp);
    items = applyCheckpoint(items, cp);
  };
  // How far the part that is not a summary is over the goal, with each summary run at its floor.
  const tailExcess = () => {
    const h = tokenHolders(items, meter, tools, keepRecentSteps);
    const floor = summaryRuns(items).reduce(
      (s, [a, b]) =>
        s +
        Math.min(
          DEGRADE_SUMMARY_FLOOR,
          items.slice(a, b).reduce((x, it) => x + meter.countMessage(it.message), 0),
        ),
      0,
    );
    return h.total - h.summaries + floor - goal;
  };

  // Stage 1: collapse tool results of the newest steps.
  let excess = tailExcess();
  if (excess > 0) {
    const cp = input.newCheckpoint('collapse');
    const calls = callIndex(items);
    const { steps } = tailUnits(items, keepRecentSteps);
    const candidates: Array<{ i: number; tokens: number }> = [];
    for (const [a, b] of steps) {
      for (let i = a; i < b; i++) {
        const it = items[i];
        const tokens = meter.countMessage(it.message);
        if (it.kind === 'raw' && !it.pinned && it.message.role === 'tool' && tokens >= COLLAPSE_MIN_TOKENS)
          candidates.push({ i, tokens });
      }
    }
    candidates.sort((x, y) => y.tokens - x.tokens);
    const named: Array<{ name: string; arguments: string } | undefined> = [];
    const positions = new FirstPositions(items);
    for (const { i, tokens } of candidates) {
      if (excess <= 0) break;
      named.push(calls.get(i));
      const pointer = collapsedOutputPointer(input.options.recallPointer, positions.at(i));
      const collapsed = collapseItem(items[i], calls.get(i), cp.id, pointer);
      cp.replaced.push(items[i]);
      cp.inserted.push(collapsed);
      excess -= tokens - meter.countMessage(collapsed.message);
    }
    cp.summary = `${describeCollapse(`Collapsed ${cp.replaced.length} tool result${cp.replaced.length === 1 ? '' : 's'} of the newest agent steps`, named)} The context did not fit its window otherwise.`;
    apply(cp);
  }

  // Stage 2: clip the newest steps' messages, then the latest request.
  excess = tailExcess();
  if (excess > 0) {
    const cp = input.newCheckpoint('clip');
    const { steps, request } = tailUnits(items, keepRecentSteps);
    const sized = (ranges: Array<[number, number]>) => {
      const out: Array<{ i: number; tokens: number }> = [];
      for (const [a, b] of ranges) {
        for (let i = a; i < b; i++) {
          const it = items[i];
          const tokens = meter.countMessage(it.message);
          if ((it.kind === 'raw' || it.kind === 'clipped') && !it.pinned && tokens > DEGRADE_CLIP_MIN_TOKENS)
            out.push({ i, tokens });
        }
      }
      return out.sort((x, y) => y.tokens - x.tokens);
    };
    // The user's own words are clipped last.
    for (const { i, tokens } of [...sized(steps), ...sized(request ? [request] : [])]) {
      if (excess <= 0) break;
      const it = items[i];
      const maxTokens = Math.max(DEGRADE_CLIP_MIN_TOKENS, tokens - excess);
      const message = clipMessageToTokens(
        it.message,
        maxTokens,
        (m) => meter.countMessage(m),
        (t) => meter.countText(t),
        64,
      );
      if (message === it.message) continue;
      keepSummaryMark(it.message, message);
      cp.replaced.push(it);
      cp.inserted.push({ id: `${it.id}~k`, kind: 'clipped', message, covers: [...it.covers], checkpointId: cp.id });
      excess -= tokens - meter.countMessage(message);
    }
    cp.summary = `Clipped the middle of ${cp.replaced.length} message${cp.replaced.length === 1 ? '' : 's'} of the newest agent steps or the latest request: the context did not fit its window otherwise.`;
    apply(cp);
  }

  // Stage 3: summaries of summaries, each run within its share of the room left.
  const total = meter.measure(items, tools).total;
  if (total <= goal) return { checkpoints, items };
  const runs = summaryRuns(items).map(([a, b]) => ({
    a,
    b,
    tokens: items.slice(a, b).reduce((s, it) => s + meter.countMessage(it.message), 0),
  }));
  const summaryTotal = runs.reduce((s, r) => s + r.tokens, 0);
  const room = goal - (total - summaryTotal);
  // Newest first: indices stay valid while earlier runs are replaced later. The runs are disjoint, so
  // their checkpoints are recorded oldest first, as they stand in the conversation (the divider, the
  // history and the preview list a run's summaries in that order).
  const resummarized: Checkpoint[] = [];
  const inOrder = () => [...checkpoints, ...[...resummarized].reverse()];
  for (const run of [...runs].reverse()) {
    const budget = Math.max(DEGRADE_SUMMARY_FLOOR, Math.floor((room * run.tokens) / Math.max(1, summaryTotal)));
    if (budget >= run.tokens * 0.8) continue;
    const spanItems = items.slice(run.a, run.b);
    const done = await resummarize(input, spanItems, budget, items[run.b], firstPositionAt(items, run.a));
    if ('error' in done) return { checkpoints: inOrder(), items, error: done.error };
    const inserted = done.cp.inserted.reduce((s, it) => s + meter.countMessage(it.message), 0);
    if (inserted >= run.tokens) continue;
    resummarized.push(done.cp);
    items = [...items.slice(0, run.a), ...done.cp.inserted, ...items.slice(run.b)];
  }
  return { checkpoints: inOrder(), items };
}

/**
 * One summary of the summary run `spanItems`, within `budget` tokens; requests get their section
 * first. `first`: position of the run's first raw message in the conversation (for its coverage).
 */
async function resummarize(
  input: DegradeInput,
  spanItems: ContextItem[],
  budget: number,
  next: ContextItem | undefined,
  first: number,
): Promise<{ cp: Checkpoint } | { error: SummarizerError }> {
  const { meter, summarizer, options } = input;
  const requests = collectRequests(spanItems);
  // The standing rules the earlier summaries carry are set aside first: every later summary reads
  // them back from this one, so rules left out here would be gone from all of them.
  const rulesTokens = standingRulesTokens(standingRulesOf(spanItems, requests), (t) => meter.countText(t));
  // The user's words come next: up to 60% of what is left (within the user-message budget).
  const section = renderRequestsSection(
    requests,
    Math.max(64, Math.min(input.userTokens, Math.floor(Math.max(0, budget - rulesTokens) * 0.6))),
    (t) => meter.countText(t),
    false,
    undefined,
    rulesTokens > 0,
  );
  // The header and the pointer line that ends the summary (its id drawn later: ids all cost the same
  // tokens, see `newId`) come out of the budget, with a few tokens for the blank lines between.
  const covered = spanItems.reduce((n, i) => n + i.covers.length, 0);
  const planned = pointerLine(options.recallPointer, 'ck-00000000', first, covered);
  const frame = meter.countText(input.header(covered)) + (planned ? meter.countText(planned) : 0) + 8;
  const notesBudget = Math.max(64, budget - section.tokens - frame, rulesTokens ? rulesTokens + RULES_ROOM_TOKENS : 0);
  let result;
  try {
    result = await summarizer.summarize({
      items: spanItems,
      userRequests: requests,
      approximateSummaryTokens: notesBudget,
      maxCalls: input.calls.left,
      compactionRun: input.calls,
      focus: options.focus,
      signal: options.signal,
      onDelta: options.onDelta,
    });
  } catch (err) {
    return {
      error:
        err instanceof SummarizerError
          ? err
          : new SummarizerError(`summarizer failed: ${(err as Error)?.message ?? String(err)}`, 'invalid', {
              cause: err,
            }),
    };
  }
  input.calls.left = Math.max(0, input.calls.left - result.usage.calls);
  if (!result.text?.trim()) return { error: new SummarizerError('the summarizer returned an empty summary', 'empty') };
  const plain = backfillIdentifiers(
    removeRequestsSection(result.text.trim()),
    spanItems,
    Math.min(600, notesBudget),
  ).text;
  // The earlier summaries' files, commits and root causes stay named where the notes' budget holds
  // them: this stage runs because the context does not fit its window, and fitting comes first.
  // In the fullest of their forms that the budget holds (see `keepEarlierHoldings`).
  let notes = plain;
  for (let level = 0; level <= SHORTER_HOLDINGS; level++) {
    const rich = keepEarlierHoldings(plain, spanItems, level);
    if (rich === plain) break;
    if (meter.countText(rich) <= notesBudget) {
      notes = rich;
      break;
    }
  }
  // Lines the user added by hand to an earlier summary are kept whole, whatever the budget.
  notes = keepHandLines(notes, spanItems);
  const handLines = handLinesOf(spanItems);
  const cp = input.newCheckpoint(summarizer.name === 'extractive' ? 'extractive' : 'summary');
  const covers = spanItems.flatMap((i) => i.covers);
  const masked = maskSecrets(section.text ? `${notes}\n\n${section.text}` : notes);
  const pointer = pointerLine(options.recallPointer, cp.id, first, covers.length);
  const text = pointer === undefined ? masked : `${masked}\n\n${pointer}`;
  const carried = carriedRequests(requests, section);
  cp.replaced = spanItems;
  cp.inserted = [
    {
      id: `${cp.id}~s`,
      kind: 'summary',
      message: { role: 'user', content: `${input.header(covers.length)}\n\n${text}` },
      covers,
      checkpointId: cp.id,
      ...(carried ? { requests: carried } : {}),
      ...(handLines.length ? { handLines } : {}),
    },
  ];
  if (options.summaryAsPair && next && next.message.role !== 'assistant')
    cp.inserted.push(summaryAcknowledgement(cp.id));
  cp.summary = text;
  cp.cause = 'the context did not fit its window: earlier summaries were summarized again';
  cp.requests = { whole: section.whole, shortened: section.shortened, omitted: section.omitted };
  cp.summarizerModel = result.model;
  cp.usage = result.usage;
  cp.coverage = placeCoverage(
    result.coverage ??
      wholeCoverage(covers.length, result.model === 'extractive' ? 'extractive' : 'model', result.usage.calls),
    first,
    options.maxSummaryCalls ?? 4,
  );
  return { cp };
}

/**
 * The assistant message that follows a summary sent as a user message when the summary is written as
 * a pair (`summaryAsPair`): it keeps roles alternating where the next kept message is not the assistant's.
 */
export function summaryAcknowledgement(checkpointId: string): ContextItem {
  return {
    id: `${checkpointId}~a`,
    kind: 'summary',
    message: { role: 'assistant', content: 'Noted. I will continue from this summary.' },
    covers: [],
    checkpointId,
  };
}
