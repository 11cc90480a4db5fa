/**
 * The last step of a compaction: applying a prepared one to the context as it stands now, with the
 * checks that keep a bad rewrite out (stale span, no shrink, broken tool pairing), and the
 * not-applied results the pipeline returns. See `compactor.ts` for the pipeline.
 *
 * Pure: no I/O, no model calls.
 */
import type { Checkpoint, CompactionResult, ContextItem, ToolSchema } from './types';
import { SummarizerError } from './types';
import type { TokenMeter } from './meter';
import { summarizerFailed, type CompactionStatus } from './outcome';
import { applyCheckpoint } from './context';
import { checkToolPairing } from './invariants';
import { describeHolders } from './holders';
import type { PreparedCompaction } from './compactor';

/** A result that leaves `items` as they are, with the outcome, reason and status given. */
export function notApplied(items: readonly ContextItem[], tokens: number, outcome: CompactionResult['outcome'], reason: string, status: CompactionStatus, error?: SummarizerError): CompactionResult {
  return { applied: false, outcome, reason, status, tokensBefore: tokens, tokensAfter: tokens, checkpoints: [], context: [...items], error };
}

/** A not-applied result for a summarizer failure. */
export function failed(items: readonly ContextItem[], tokens: number, reason: string, e: SummarizerError): CompactionResult {
  return notApplied(items, tokens, 'failed', reason, summarizerFailed(e), e);
}

/**
 * Applies a prepared compaction to `items` as they stand now (they may have grown since it was
 * prepared). Not applied when any replaced item is gone or moved (stale), when the result would
 * not be smaller (invariant 5), or when it would break tool pairing (invariant 1).
 */
export function commitPrepared(items: readonly ContextItem[], prepared: PreparedCompaction, meter: TokenMeter, tools?: readonly ToolSchema[]): CompactionResult {
  const before = meter.measure(items, tools).total;
  let current = [...items];
  let tokens = before;
  const applied: Checkpoint[] = [];
  for (const cp of prepared.checkpoints) {
    let next: ContextItem[];
    try {
      next = applyCheckpoint(current, cp);
    } catch {
      return notApplied(items, before, 'stale', 'the prepared compaction is stale: the messages it replaces have changed', { kind: 'stale' });
    }
    const after = meter.measure(next, tools).total;
    applied.push({ ...cp, replacedIds: coversOf(cp.replaced), tokensBefore: tokens, tokensAfter: after });
    current = next;
    tokens = after;
  }
  if (tokens >= before) {
    const e = new SummarizerError(`the compaction would not shrink the context (${before} → ${tokens} tokens)`, 'no-shrink');
    return failed(items, before, `compaction not applied: ${e.message}`, e);
  }
  const broken = checkToolPairing(current.map((i) => i.message), true);
  if (broken.length > 0) {
    return notApplied(items, before, 'failed', `compaction not applied: it would break tool pairing (${broken[0].message})`, { kind: 'would-break-pairing', detail: broken[0].message });
  }
  const durationMs = Date.now() - prepared.startedAt;
  for (const cp of applied) cp.durationMs = durationMs;
  const n = (x: number) => x.toLocaleString('en-US');
  const parts = applied.map((c) => `${c.strategy} ${n(c.tokensBefore)} → ${n(c.tokensAfter)}`).join(', ');
  const anchored = prepared.anchoredTokens;
  const target = prepared.targetTokens;
  // Honest about a target that cannot be met: what may never be summarised alone exceeds it.
  const over = anchored !== undefined && target !== undefined && anchored > target ? `; the part that is never summarised (system prompt, tool schemas, latest request, newest steps) alone holds ${n(anchored)} tokens, over the target of ${n(target)}` : '';
  // Does not fit even after the degrade tiers: say what holds the tokens, with figures.
  const holders = prepared.holders && prepared.inputBudget !== undefined && tokens > prepared.inputBudget ? prepared.holders : undefined;
  const noFit = holders ? `; does not fit: ${n(tokens)} tokens against a budget of ${n(prepared.inputBudget!)}; ${describeHolders(holders, prepared.inputBudget)}` : over;
  const status: CompactionStatus = {
    kind: 'applied',
    tokensBefore: before,
    tokensAfter: tokens,
    checkpoints: applied.length,
    ...(prepared.anchored ? { anchored: prepared.anchored } : {}),
    ...(target !== undefined ? { targetTokens: target } : {}),
  };
  return { applied: true, outcome: 'applied', reason: `compacted ${n(before)} → ${n(tokens)} tokens (${parts})${noFit}`, status, tokensBefore: before, tokensAfter: tokens, checkpoints: applied, context: current, ...(anchored !== undefined ? { anchoredTokens: anchored } : {}), ...(holders ? { holders } : {}) };
}

/** The raw entry ids `items` cover, in order (a loop: any number of items and ids). */
export function coversOf(items: readonly ContextItem[]): string[] {
  const out: string[] = [];
  for (const it of items) for (const id of it.covers) out.push(id);
  return out;
}
