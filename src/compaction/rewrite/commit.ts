/**
 * The last step of a compaction: applying a prepared one to the context as it stands now, with the
 * checks that keep a bad rewrite out (stale span, no shrink, broken tool pairing), and the
 * not-applied results the pipeline returns. See `compactor.ts` for the pipeline.
 *
 * Pure: no I/O, no model calls.
 */
import type { Checkpoint, ContextItem, ToolSchema } from '../types';
import { SummarizerError } from '../types';
import type { TokenMeter } from '../meter/meter';
import { summarizerFailed, type CompactionStatus, type CompactionResult } from '../outcome';
import { applyCheckpoint, coveredIds } from '../context';
import { checkToolPairing } from '../plan/invariants';
import type { AnchoredTokens, SmallSpans } from '../outcome';
import type { TokenHolders } from '../plan/holders';

/** A compaction computed but not applied (preview, or a summary prepared ahead of the threshold). */
export interface PreparedCompaction {
  checkpoints: Checkpoint[];
  tokensBefore: number;
  /** Estimated tokens after applying to the context it was prepared on. */
  tokensAfter: number;
  /** When preparing started, in milliseconds since the epoch. */
  startedAt: number;
  /**
   * When preparing ended (summarizer calls done), in milliseconds since the epoch; a preview's wait
   * for the user comes after it and is not the compaction's duration.
   */
  preparedAt?: number;
  /** Tokens no compaction may summarise, by what holds them, when the result is above the target. */
  anchored?: AnchoredTokens;
  /** The target the compaction aimed at, in tokens. */
  targetTokens?: number;
  /** What holds the tokens, when the result is over the input budget (does not fit the window). */
  holders?: TokenHolders;
  /** The input budget (`contextWindow - reservedOutput`), in tokens. */
  inputBudget?: number;
  /** Spans left as they were: their summaries would free too little for a context that cannot fit. */
  smallSpans?: SmallSpans;
}

/** A result that leaves `items` as they are, with the status given. */
export function notApplied(items: readonly ContextItem[], tokens: number, status: CompactionStatus): CompactionResult {
  return { status, tokensBefore: tokens, tokensAfter: tokens, checkpoints: [], context: [...items] };
}

/** A not-applied result for a summarizer failure. */
export function failed(items: readonly ContextItem[], tokens: number, e: SummarizerError): CompactionResult {
  return notApplied(items, tokens, summarizerFailed(e));
}

/** A prepared compaction applied to a context: the checks passed, the result not yet described. */
export interface AppliedCompaction {
  /** The context after every checkpoint. */
  context: ContextItem[];
  /** Prompt tokens of the context before and after, as the meter counts them. */
  tokensBefore: number;
  tokensAfter: number;
  /** The checkpoints with their replaced ids and token figures filled in. */
  checkpoints: Checkpoint[];
}

/**
 * Applies the checkpoints of `prepared` to `items` once, with the checks of {@link commitPrepared}.
 * Token figures are kept up to date from what each checkpoint removes and inserts (the meter's
 * total is a sum over messages, so this equals measuring the whole context again, at the cost of
 * the span). `before`: the meter's total of `items`, when the caller has it.
 * Returns the applied compaction, or a not-applied result saying why.
 */
export function applyPrepared(
  items: readonly ContextItem[],
  prepared: PreparedCompaction,
  meter: TokenMeter,
  tools?: readonly ToolSchema[],
  before = meter.measure(items, tools).total,
): AppliedCompaction | CompactionResult {
  let current: ContextItem[] = [...items];
  let tokens = before;
  const applied: Checkpoint[] = [];
  for (const cp of prepared.checkpoints) {
    let next: ContextItem[];
    try {
      next = applyCheckpoint(current, cp);
    } catch {
      return notApplied(items, before, { kind: 'stale' });
    }
    let after = tokens;
    const known = knownReplaced.get(cp.replaced);
    if (known && known.meter === meter) after -= known.tokens;
    else for (const it of cp.replaced) after -= meter.countMessage(it.message);
    for (const it of cp.inserted) after += meter.countMessage(it.message);
    applied.push({
      ...cp,
      // Shared, not copied: a list of ids is never changed once made (its saved text is kept with it).
      replacedIds: known ? (known.ids as string[]) : coversOf(cp.replaced),
      tokensBefore: tokens,
      tokensAfter: after,
    });
    current = next;
    tokens = after;
  }
  if (tokens >= before) {
    const e = new SummarizerError(
      `the compaction would not shrink the context (${before} → ${tokens} tokens)`,
      'no-shrink',
    );
    return failed(items, before, e);
  }
  const broken = checkToolPairing(
    current.map((i) => i.message),
    true,
  );
  if (broken.length > 0) {
    return notApplied(items, before, { kind: 'would-break-pairing', detail: broken[0].message });
  }
  return { context: current, tokensBefore: before, tokensAfter: tokens, checkpoints: applied };
}

/**
 * What the compactor (or the compaction worker) already has of a checkpoint's replaced items, by
 * the list object (copies of a checkpoint share it): their tokens as `meter` counts them and the ids
 * they cover. {@link applyPrepared} then does not read every replaced message again (a summary of
 * 100k messages replaces 100k).
 */
const knownReplaced = new WeakMap<
  readonly ContextItem[],
  { meter: TokenMeter; tokens: number; ids: readonly string[] }
>();

/** Records what the compactor has of `cp`'s replaced items (see {@link knownReplaced}); `ids` is not changed later. */
export function noteReplaced(
  cp: Pick<Checkpoint, 'replaced'>,
  meter: TokenMeter,
  tokens: number,
  ids: readonly string[],
): void {
  knownReplaced.set(cp.replaced, { meter, tokens, ids });
}

/**
 * The result of an applied compaction: its checkpoints (with their duration: the time to prepare it,
 * without a preview's wait for the user) and the status, with
 * what `prepared` knows about anchored tokens and, when the result is over the input budget, holders.
 */
export function appliedResult(done: AppliedCompaction, prepared: PreparedCompaction): CompactionResult {
  const { tokensBefore: before, tokensAfter: tokens } = done;
  const durationMs = (prepared.preparedAt ?? Date.now()) - prepared.startedAt;
  const applied = done.checkpoints.map((cp) => ({ ...cp, durationMs }));
  const target = prepared.targetTokens;
  // Does not fit even after the degrade tiers: the status says what holds the tokens.
  const budget = prepared.inputBudget;
  const overBudget =
    prepared.holders && budget !== undefined && tokens > budget
      ? { inputBudget: budget, holders: prepared.holders }
      : undefined;
  const status: CompactionStatus = {
    kind: 'applied',
    tokensBefore: before,
    tokensAfter: tokens,
    checkpoints: applied.length,
    steps: applied.map((c) => ({
      strategy: c.strategy,
      tokensBefore: c.tokensBefore,
      tokensAfter: c.tokensAfter,
      ...(c.editedByHand ? { editedByHand: true } : {}),
    })),
    ...(prepared.anchored ? { anchored: prepared.anchored } : {}),
    ...(target !== undefined ? { targetTokens: target } : {}),
    ...(overBudget ? { overBudget } : {}),
    ...(prepared.smallSpans ? { smallSpans: prepared.smallSpans } : {}),
  };
  return { status, tokensBefore: before, tokensAfter: tokens, checkpoints: applied, context: [...done.context] };
}

/**
 * What preparing a compaction already applied, per prepared object: committing it on the same
 * context (the same array, same length and last item, the same checkpoints) uses it once instead of
 * applying the checkpoints again. Outside the prepared object, so it never travels with it (worker
 * messages, copies).
 */
const appliedWhenPrepared = new WeakMap<
  PreparedCompaction,
  {
    items: readonly ContextItem[];
    length: number;
    last: ContextItem | undefined;
    checkpoints: readonly Checkpoint[];
    done: AppliedCompaction;
  }
>();

/**
 * Keeps `done` (the application of `prepared` to the first `length` items of `items`) for the
 * commit that follows on the same context, as it is then or grown at its end.
 */
export function keepApplied(
  prepared: PreparedCompaction,
  items: readonly ContextItem[],
  done: AppliedCompaction,
  length = items.length,
): void {
  appliedWhenPrepared.set(prepared, {
    items,
    length,
    last: items[length - 1],
    checkpoints: prepared.checkpoints,
    done,
  });
}

/** The application kept for `prepared` (see {@link keepApplied}), if any. */
export function keptApplication(prepared: PreparedCompaction): AppliedCompaction | undefined {
  return appliedWhenPrepared.get(prepared)?.done;
}

/**
 * Applies a prepared compaction to `items` as they stand now (they may have grown since it was
 * prepared). Not applied when any replaced item is gone or moved (stale), when the result would
 * not be smaller (invariant 5), or when it would break tool pairing (invariant 1).
 */
export function commitPrepared(
  items: readonly ContextItem[],
  prepared: PreparedCompaction,
  meter: TokenMeter,
  tools?: readonly ToolSchema[],
): CompactionResult {
  const kept = appliedWhenPrepared.get(prepared);
  if (kept) {
    appliedWhenPrepared.delete(prepared);
    if (
      kept.items === items &&
      kept.length <= items.length &&
      kept.last === items[kept.length - 1] &&
      kept.checkpoints === prepared.checkpoints
    ) {
      if (kept.length === items.length) return appliedResult(kept.done, prepared);
      const grown = grownApplication(kept.done, items.slice(kept.length), meter);
      if (grown) return appliedResult(grown, prepared);
    }
  }
  const done = applyPrepared(items, prepared, meter, tools);
  return 'status' in done ? done : appliedResult(done, prepared);
}

/**
 * `done` for the same context with `appended` after it (messages sent while the compaction ran): what
 * {@link applyPrepared} gives on the grown context, since every replaced item lies before them, at
 * the cost of the appended items and the context after it. Undefined when the appended items would
 * break tool pairing (the full application then says so).
 */
function grownApplication(
  done: AppliedCompaction,
  appended: readonly ContextItem[],
  meter: TokenMeter,
): AppliedCompaction | undefined {
  let added = 0;
  for (const it of appended) added += meter.countMessage(it.message);
  const context = done.context.concat(appended);
  const broken = checkToolPairing(
    context.map((i) => i.message),
    true,
  );
  if (broken.length > 0) return undefined;
  return {
    context,
    tokensBefore: done.tokensBefore + added,
    tokensAfter: done.tokensAfter + added,
    checkpoints: done.checkpoints.map((cp) => ({
      ...cp,
      tokensBefore: (cp.tokensBefore ?? 0) + added,
      tokensAfter: (cp.tokensAfter ?? 0) + added,
    })),
  };
}

/** The raw entry ids `items` cover, in order (a loop: any number of items and ids). */
export function coversOf(items: readonly ContextItem[]): string[] {
  return coveredIds(items);
}
