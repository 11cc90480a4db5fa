/**
 * The meter's reading of the service's active context, kept up to date as the context changes
 * instead of recomputed on every event: an append costs the new message's count, a budget read and
 * the usage report cost a few additions, and a compaction or restore adjusts the sums by the items
 * it removed and added (plus a scan of the leading system messages and of the current task, whose
 * bounds may move). The result equals {@link budgetSnapshot} over a meter calibrated the same way
 * (tested over random sequences of appends, compactions, restores, pins and usage reports).
 *
 * Plain Node; relies on two facts of {@link ConversationState}: an append pushes onto the active array,
 * and any rewrite replaces the array (an old array is never changed again).
 */
import type { BudgetConfig, ContextItem, Entry, ToolSchema } from '../../compaction/types';
import {
  judgeReported,
  rejectedSource,
  reportedSource,
  REPLY_PRIMING_TOKENS,
  type CalibrationOutcome,
  type TokenMeter,
} from '../../compaction/meter/meter';
import { fillSnapshot, harnessTokens, startsTask } from './budget-view';
import type { BudgetBreakdown, BudgetSnapshot } from './budget-types';
import { isInstructionsItem } from '../project-instructions';

/** What the meter read when a request was sent, for the usage report that answers it. All in tokens. */
export interface SentReading {
  /** The meter's count of the request (messages, tools, reply priming). */
  tokens: number;
  /** The same request had nothing ever been compacted (every raw entry up to the newest one it carried). */
  withoutCompaction: number;
}

interface Calibration {
  exact: number;
  /** The active array the figure was reported for, and its length then (it may have grown since). */
  items?: readonly ContextItem[];
  /** Instead of `items`, for a calibration restored from disk: the ids of the items it was reported for. */
  ids?: readonly string[];
  length: number;
}

/**
 * A calibration as saved with the session, so a reopened or switched-to session shows the reported
 * figure again instead of falling back to the estimate: the tokens (reported prompt tokens, plus the
 * cached ones added back), the cached tokens added, and the ids of the context items the request
 * carried (it applies while they are still the context's prefix).
 */
export interface SavedCalibration {
  tokens: number;
  cachedAdded: number;
  ids: string[];
}

/** True when `value` has the shape of a {@link SavedCalibration}. */
export function isSavedCalibration(value: unknown): value is SavedCalibration {
  const v = value as Partial<SavedCalibration> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    Number.isFinite(v.tokens) &&
    (v.tokens as number) > 0 &&
    Number.isFinite(v.cachedAdded) &&
    Array.isArray(v.ids) &&
    v.ids.every((id) => typeof id === 'string')
  );
}

function isSystem(item: ContextItem): boolean {
  return item.message.role === 'system' || item.message.role === 'developer';
}

/** The running tally of one service's context. */
export class ContextTally {
  private items: readonly ContextItem[] = [];
  /** Items of `items` already in the sums. */
  private counted = 0;
  /** Tokens of all items (messages only). */
  private messages = 0;
  /** Tokens of the leading system messages, of summary items (anywhere; `leadSummaries` of them in the lead), of the current task (non-summary items from the latest real user message on). */
  private lead = 0;
  private summariesAll = 0;
  private leadSummaries = 0;
  /** Tokens of the project instructions: the leading instructions message, and instruction files re-attached (summary items). */
  private leadInstructions = 0;
  private attachedInstructions = 0;
  private current = 0;
  /** Tokens of `current` that a harness wrote (see {@link harnessTokens}). */
  private harness = 0;
  private leadEnd = 0;
  private lastUser = -1;
  /** Raw transcript: entries counted, and tokens of the first k entries at `rawPrefix[k]`. */
  private rawPrefix: number[] = [0];
  private rawIndex = new Map<string, number>();
  private calibration: Calibration | undefined;
  /** Tokens of the calibrated prefix as the active array holds it now; undefined when the calibration does not apply to it. */
  private calibratedPrefix: number | undefined;
  private sent:
    { items: readonly ContextItem[]; length: number; messages: number; tools: number; entries: number } | undefined;

  /** Bumped by every change of what {@link snapshot} reads from the sums or the calibration. */
  private version = 0;
  private lastSnapshot: { key: readonly unknown[]; snapshot: BudgetSnapshot } | undefined;

  /** False while a sum holds an estimate (counted before the tokenizer's table was loaded), until a full recount. */
  private sumsExact: boolean;

  constructor(private readonly meter: TokenMeter) {
    this.sumsExact = meter.exact;
  }

  /** Brings the sums up to `items` (the session's active array): appended items are counted. */
  sync(items: readonly ContextItem[]): void {
    if (items !== this.items) {
      this.rewrite(items);
      return;
    }
    for (; this.counted < items.length; this.counted++) this.add(this.counted);
  }

  /** Counts raw entries appended since the last call (the transcript only grows). */
  syncEntries(entries: readonly Entry[]): void {
    for (let k = this.rawPrefix.length - 1; k < entries.length; k++) {
      this.rawPrefix.push(this.rawPrefix[k] + this.meter.countMessage(entries[k].message));
      this.rawIndex.set(entries[k].id, k);
    }
  }

  /** Recounts the active context `items` and the raw transcript `entries` (a load, an import, exact counts). */
  recount(items: readonly ContextItem[], entries: readonly Entry[]): void {
    this.resetEntries();
    this.rewrite(items);
    this.syncEntries(entries);
  }

  /** Forgets the counted raw entries (the transcript was replaced by a load or an import). */
  resetEntries(): void {
    this.rawPrefix = [0];
    this.rawIndex.clear();
    this.sent = undefined;
  }

  /**
   * Takes over a rewritten context. With `change` (what the rewrite removed and added, e.g. a
   * checkpoint's replaced and inserted items, or the reverse for a restore) the sums move by the
   * difference; without it (a load, an import) they are rebuilt from the messages' cached counts.
   * `change.messages`, when the caller has it (a compaction's tokens after minus before, as this
   * meter counts), is the change of the messages' sum: then only the summaries of `removed` and
   * `added` are read (the lists may hold just those), so a compaction that replaced 300k messages
   * does not look each one up again.
   */
  rewrite(
    items: readonly ContextItem[],
    change?: { removed: readonly ContextItem[]; added: readonly ContextItem[]; messages?: number },
  ): void {
    for (; this.counted < this.items.length; this.counted++) this.add(this.counted);
    this.version++;
    if (!change) {
      this.items = items;
      this.counted = 0;
      this.sumsExact = this.meter.exact;
      this.messages = this.lead = this.summariesAll = this.leadSummaries = this.current = this.harness = 0;
      this.leadInstructions = this.attachedInstructions = 0;
      this.leadEnd = 0;
      this.lastUser = -1;
      for (; this.counted < items.length; this.counted++) this.add(this.counted);
    } else {
      if (change.messages !== undefined) {
        this.messages += change.messages;
        for (const it of change.removed) if (it.kind === 'summary') this.moveSummary(it, -1);
        for (const it of change.added) if (it.kind === 'summary') this.moveSummary(it, 1);
      } else {
        for (const it of change.removed) this.move(it, -1);
        for (const it of change.added) this.move(it, 1);
      }
      this.items = items;
      this.counted = items.length;
      this.rescanEnds();
    }
    this.recheckCalibration();
  }

  /** Records what the next request carries (call when its messages are taken). */
  markSent(tools: readonly ToolSchema[]): void {
    const last = this.items[this.items.length - 1]?.covers.at(-1);
    const entries = last === undefined ? 0 : (this.rawIndex.get(last) ?? -1) + 1;
    this.sent = {
      items: this.items,
      length: this.items.length,
      messages: this.messages,
      tools: this.meter.countTools(tools),
      entries,
    };
  }

  /** The reading of the last request marked sent (zeros when none). */
  sentReading(): SentReading {
    const s = this.sent;
    if (!s) return { tokens: 0, withoutCompaction: 0 };
    return {
      tokens: s.messages + s.tools + REPLY_PRIMING_TOKENS,
      withoutCompaction:
        this.rawPrefix[Math.min(s.entries, this.rawPrefix.length - 1)] + s.tools + REPLY_PRIMING_TOKENS,
    };
  }

  /**
   * The provider's `usage.prompt_tokens` for the last request marked sent: anchors the reading when
   * plausible (same rule and reason as {@link TokenMeter.calibrate}); otherwise readings are estimates.
   */
  calibrate(promptTokens: number, cachedTokens = 0): CalibrationOutcome {
    const s = this.sent;
    this.version++;
    if (!(promptTokens > 0)) return { accepted: false, reason: 'no prompt tokens reported' };
    const estimate = s ? s.messages + s.tools + REPLY_PRIMING_TOKENS : REPLY_PRIMING_TOKENS;
    const judged = judgeReported(promptTokens, estimate, cachedTokens);
    this.rejected = judged.accepted ? undefined : rejectedSource(promptTokens, estimate, cachedTokens);
    if (!judged.accepted || !s) {
      this.calibration = undefined;
      this.calibratedPrefix = undefined;
      return judged.accepted ? { accepted: true } : judged;
    }
    this.cachedAdded = judged.reported - promptTokens;
    this.calibration = { exact: judged.reported, items: s.items, length: s.length };
    this.calibratedPrefix = s.items === this.items ? s.messages : undefined;
    if (s.items !== this.items) this.recheckCalibration();
    return { accepted: true, cachedAdded: this.cachedAdded };
  }

  /**
   * The calibration in force now, to be put in its saved form later (undefined when readings are
   * estimates): O(1) here, the ids (one per calibrated item) are listed when the result is called, so
   * a usage report costs the same at any context size. Exact at any later time: the calibrated items are a prefix of an array that is only
   * ever appended to (see the module comment), and a new calibration replaces the object captured.
   */
  calibrationSaver(): () => SavedCalibration | undefined {
    const c = this.calibration;
    const cachedAdded = this.cachedAdded;
    if (!c) return () => undefined;
    return () => ({
      tokens: c.exact,
      cachedAdded,
      ids: c.ids ? [...c.ids] : c.items!.slice(0, c.length).map((item) => item.id),
    });
  }

  /** Takes over a saved calibration (a reopened session); it applies while its items are the context's prefix. */
  restoreCalibration(saved: SavedCalibration): void {
    this.version++;
    this.calibration = { exact: saved.tokens, ids: saved.ids, length: saved.ids.length };
    this.cachedAdded = saved.cachedAdded;
    this.rejected = undefined;
    this.recheckCalibration();
  }

  /** Why the last reported figure was not used (the gauge's sentence), while readings are counts. */
  private rejected: string | undefined;
  /** Cached tokens the last accepted calibration added back to the reported prompt tokens. */
  private cachedAdded = 0;

  /**
   * Prompt tokens of the next request with `tools`: exact (plus what was added since) when calibrated
   * on this context; `source` names the figure for the gauge (see `reportedSource`).
   */
  read(tools: readonly ToolSchema[]): {
    total: number;
    exact: boolean;
    estimate: number;
    source: string;
    cachedAdded: number;
  } {
    const toolTokens = this.meter.countTools(tools);
    const estimate = this.messages + toolTokens + REPLY_PRIMING_TOKENS;
    const c = this.calibration;
    if (c && this.calibratedPrefix !== undefined && c.length <= this.items.length) {
      const added = this.messages - this.calibratedPrefix;
      return {
        total: c.exact + added,
        exact: true,
        estimate,
        source: reportedSource(c.exact, this.cachedAdded, added),
        cachedAdded: this.cachedAdded,
      };
    }
    return {
      total: estimate,
      exact: false,
      estimate,
      source: this.rejected ?? 'counted locally; exact after the next model reply',
      cachedAdded: 0,
    };
  }

  /**
   * The gauge's snapshot: as {@link budgetSnapshot} computes it, from the sums. The same object is
   * returned until the sums, the calibration or an argument change (an append and the sidebar's read
   * of the budget it announces cost one snapshot); callers must not change it.
   */
  snapshot(
    tools: readonly ToolSchema[],
    budget: BudgetConfig,
    model: string,
    extraWarnings: readonly string[] = [],
  ): BudgetSnapshot {
    const key = [this.version, this.meter.exact, tools, budget, model, ...extraWarnings];
    const last = this.lastSnapshot;
    if (last && last.key.length === key.length && last.key.every((k, i) => k === key[i])) return last.snapshot;
    const snapshot = this.computeSnapshot(tools, budget, model, extraWarnings);
    // Shared by every reader until the next change: frozen, so a reader that changed it would throw.
    for (const part of [snapshot.breakdown, snapshot.warnings, snapshot.compactAt, snapshot.compactTo, snapshot])
      Object.freeze(part);
    this.lastSnapshot = { key, snapshot };
    return snapshot;
  }

  private computeSnapshot(
    tools: readonly ToolSchema[],
    budget: BudgetConfig,
    model: string,
    extraWarnings: readonly string[],
  ): BudgetSnapshot {
    const reading = this.read(tools);
    const summaries = this.summariesAll - this.leadSummaries;
    const history = this.messages - this.lead - summaries - this.current;
    const breakdown: BudgetBreakdown = {
      system: this.lead - this.leadInstructions,
      instructions: this.leadInstructions + this.attachedInstructions,
      tools: this.meter.countTools(tools),
      history,
      summaries: summaries - this.attachedInstructions,
      currentTask: this.current - this.harness,
      harness: this.harness,
    };
    // Counting goes on until the sums are recounted exactly (see the service's recount in slices).
    return fillSnapshot(breakdown, reading, this.meter.exact && this.sumsExact, budget, model, extraWarnings);
  }

  /** Adds item `i` (the next one after the counted ones) to the sums. */
  private add(i: number): void {
    this.version++;
    const item = this.items[i];
    const n = this.meter.countMessage(item.message);
    if (!this.meter.exact) this.sumsExact = false;
    this.messages += n;
    if (item.kind === 'summary') this.summariesAll += n;
    if (item.kind === 'summary' && isInstructionsItem(item)) this.attachedInstructions += n;
    if (i === this.leadEnd && isSystem(item)) {
      this.leadEnd++;
      this.lead += n;
      if (isInstructionsItem(item)) this.leadInstructions += n;
      if (item.kind === 'summary') this.leadSummaries += n;
    } else if (item.kind === 'summary') {
      // Summaries count as summaries wherever they stand.
    } else if (startsTask(item)) {
      // A new request: the task before it becomes history.
      this.lastUser = i;
      this.current = n;
      this.harness = harnessTokens(item, n, this.meter);
    } else if (this.lastUser >= 0) {
      this.current += n;
      this.harness += harnessTokens(item, n, this.meter);
    }
  }

  /** Adds (`sign` 1) or removes (-1) an item's tokens from the totals that do not depend on its position. */
  private move(item: ContextItem, sign: 1 | -1): void {
    this.messages += this.meter.countMessage(item.message) * sign;
    if (item.kind === 'summary') this.moveSummary(item, sign);
  }

  /** The summaries' sums moved by one summary item. */
  private moveSummary(item: ContextItem, sign: 1 | -1): void {
    const n = this.meter.countMessage(item.message) * sign;
    this.summariesAll += n;
    if (isInstructionsItem(item)) this.attachedInstructions += n;
  }

  /** Recomputes the lead and the current task after a rewrite (their bounds may have moved). */
  private rescanEnds(): void {
    const items = this.items;
    this.leadEnd = 0;
    this.lead = this.leadSummaries = this.leadInstructions = 0;
    while (this.leadEnd < items.length && isSystem(items[this.leadEnd])) {
      const it = items[this.leadEnd++];
      const n = this.meter.countMessage(it.message);
      this.lead += n;
      if (isInstructionsItem(it)) this.leadInstructions += n;
      if (it.kind === 'summary') this.leadSummaries += n;
    }
    this.lastUser = -1;
    this.current = this.harness = 0;
    for (let i = items.length - 1; i >= this.leadEnd; i--) {
      if (startsTask(items[i])) {
        this.lastUser = i;
        break;
      }
    }
    if (this.lastUser < 0) return;
    for (let i = this.lastUser; i < items.length; i++) {
      if (items[i].kind === 'summary') continue;
      const n = this.meter.countMessage(items[i].message);
      this.current += n;
      this.harness += harnessTokens(items[i], n, this.meter);
    }
  }

  /**
   * After the active array changed: the calibration applies while the calibrated items (by id) are
   * still the prefix of the context, as {@link TokenMeter.read} decides; the prefix is re-summed.
   */
  private recheckCalibration(): void {
    const c = this.calibration;
    this.calibratedPrefix = undefined;
    if (!c || c.length > this.items.length) return;
    if (c.items === this.items) {
      this.calibratedPrefix = this.prefixTokens(c.length);
      return;
    }
    for (let i = 0; i < c.length; i++) if (this.items[i].id !== (c.ids ? c.ids[i] : c.items![i].id)) return;
    this.calibratedPrefix = this.prefixTokens(c.length);
  }

  private prefixTokens(length: number): number {
    let sum = 0;
    for (let i = 0; i < length; i++) sum += this.meter.countMessage(this.items[i].message);
    return sum;
  }
}
