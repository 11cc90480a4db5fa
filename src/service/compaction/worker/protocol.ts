/**
 * The messages between the extension host and the compaction worker, and the encoding of a
 * prepared compaction for the way back. Pure: no `worker_threads`, no I/O.
 *
 * A prepared compaction's checkpoints hold the items they replace; those are (almost always) the
 * very items the worker was sent. They travel back as their index in that list and are put back as
 * the caller's own objects, so the result is the one an inline run gives (same objects, same ids)
 * and the way back costs the new items only. Lists of items go as runs of consecutive numbers (a
 * summary of 300k messages replaces one run), and the ids a made item covers as the items sent
 * whose ids they are: a structured clone of 300k ids or numbers costs the receiving thread tens of
 * milliseconds of copying and garbage collection, a few runs nothing.
 */
import type { EncodingName } from '../../../tokenizer/tokenizer';
import type { Checkpoint, CompactionOptions, ContextItem, ToolSchema } from '../../../compaction/types';
import {
  keepApplied,
  noteReplaced,
  type AppliedCompaction,
  type PreparedCompaction,
} from '../../../compaction/rewrite/commit';
import type { CompactionResult } from '../../../compaction/outcome';
import type { TokenMeter } from '../../../compaction/meter/meter';
import { coveredIds } from '../../../compaction/context';
import {
  noteStoredItemText,
  noteStoredText,
  storedIdsText,
  storedItemText,
  storedItemsText,
  type StoredText,
} from '../../session/stored-text';
import { TimeSlices } from '../../../lifecycle/time-slices';

/** The options of a run that can cross a thread (no signal, clock or callbacks). */
export type WorkerCompactionOptions = Omit<CompactionOptions, 'signal' | 'now' | 'onDelta'>;

/**
 * Host → worker: items the worker has not seen yet, each with the key the host gave it (`keys[k]`
 * names `items[k]`). A large batch is sent in several messages, one per turn of the host's loop.
 */
export interface ItemsMessage {
  type: 'items';
  keys: number[];
  items: ContextItem[];
  /**
   * `marks[k]`: what the recording says of `items[k]`'s message (success flag, a person's reply, a
   * harness's text; `compaction/tool-outcomes.ts` marksOf). The clone the worker gets has none.
   */
  marks: number[];
}

/**
 * Host → worker: run job `job` over the items named by `order` (keys, in context order) with the
 * extractive summarizer. The worker forgets every item not in `order`. `cancel[0]` becomes 1 when
 * the host no longer wants the answer (checked before each summarized span).
 */
export interface RunMessage {
  type: 'run';
  job: number;
  /** Transferred, not copied: one number per item of the context. */
  order: Uint32Array;
  encoding: EncodingName;
  tools: ToolSchema[] | undefined;
  options: WorkerCompactionOptions;
  cancel: Int32Array;
}

export type ToWorker = ItemsMessage | RunMessage;

/** Worker → host: `done` messages of the span summarized so far out of `total` (both in messages). */
export interface ProgressMessage {
  type: 'progress';
  job: number;
  message: string;
  done: number;
  total: number;
}

/**
 * Worker → host: items the run made (summaries, collapsed records), in the order numbered (see
 * {@link encodeResult}); a large batch comes in several messages, so each is taken in its own turn.
 */
export interface ResultItemsMessage {
  type: 'result-items';
  job: number;
  /** The items; where `covers[k]` is set, `items[k].covers` is empty and made from it. */
  items: ContextItem[];
  /**
   * `covers[k]`: the items sent whose covered ids, one item after another, are `items[k]`'s (as
   * {@link RefRuns}); null when its ids travel with it.
   */
  covers: Array<RefRuns | null>;
  /** `coverIds[k]`: how many ids `covers[k]` stands for (0 where it is null). */
  coverIds: number[];
}

/** Worker → host: the result (see {@link encodeResult}); every item in it is a number. */
export interface DoneMessage {
  type: 'done';
  job: number;
  result: EncodedResult;
}

/** Worker → host: the run threw (a defect, not a summarizer failure); `message` says what. */
export interface ErrorMessage {
  type: 'error';
  job: number;
  message: string;
}

export type FromWorker = ProgressMessage | ResultItemsMessage | DoneMessage | ErrorMessage;

/**
 * An item of the result by number: below the count of items sent, its index in them (the caller's
 * own object comes back); from there on, an item the run made, in the order of the
 * {@link ResultItemsMessage}s.
 */
type ItemRef = number;

/**
 * A list of item numbers as runs of consecutive ones: `[first, count, first, count, …]` (the 300k
 * items a summary replaces are one run: two numbers instead of 300k).
 */
export type RefRuns = number[];

/** `refs` as {@link RefRuns}. */
export function refRuns(refs: readonly ItemRef[]): RefRuns {
  const runs: RefRuns = [];
  for (const ref of refs) {
    const last = runs.length - 2;
    if (last >= 0 && runs[last] + runs[last + 1] === ref) runs[last + 1]++;
    else runs.push(ref, 1);
  }
  return runs;
}

/** The items a made item's covered ids come from, and the batches of made items, as sent. */
export interface MadeBatch {
  items: ContextItem[];
  covers: Array<RefRuns | null>;
  /** How many ids each of `covers` stands for (see {@link ResultItemsMessage.coverIds}). */
  coverIds: number[];
}

/** Made items covering at least this many ids have them sent as the items sent that hold them. */
export const COVERS_BY_REF_MIN = 64;

/**
 * Texts for the save of at least this many characters travel as their UTF-8 bytes, transferred:
 * the caller's thread neither copies them (the texts of a 300k-message span are about 17M
 * characters) nor holds them on its heap; the save writes the bytes as they are.
 */
export const BYTES_MIN_CHARS = 64 * 1024;

const encoder = new TextEncoder();

interface EncodedCheckpoint extends Omit<Checkpoint, 'replaced' | 'inserted'> {
  replaced: RefRuns;
  inserted: RefRuns;
  /** Tokens of each inserted item's message, as the worker's meter counted them. */
  insertedTokens: number[];
  /**
   * What committing and saving need of the replaced items, made in the worker so the caller's
   * thread does not read them all again: their tokens (the worker's counts, summed), and the JSON
   * text of their stored form and of the ids they cover (see session/stored-text.ts). Large texts
   * travel as their UTF-8 bytes, transferred (see {@link BYTES_MIN_CHARS}).
   */
  replacedTokens: number;
  /**
   * The number of an inserted item the run made whose covered ids are exactly the replaced items'
   * ids (a summary's: the caller copies that list instead of reading every replaced item again);
   * else undefined, and {@link replacedIdCount} says how many there are.
   */
  replacedIdsOf?: ItemRef;
  /** How many ids the replaced items cover. */
  replacedIdCount: number;
  replacedText: StoredText;
  replacedIdsText: StoredText;
  /**
   * The JSON text of each inserted item's stored form (a collapse inserts one item per result; a
   * summary of 100k messages is over a megabyte of text): the list's text is made of them, and the
   * context after the compaction holds the same items.
   */
  insertedTexts: StoredText[];
  /** The checkpoint's tokens before and after, as applied to the items sent. */
  applied: { tokensBefore: number; tokensAfter: number };
}

/**
 * The compaction applied to the items sent, as the worker applied it when preparing it: the
 * context after it and its tokens. The caller commits it to the same items (grown at their end
 * since, at most) without applying the checkpoints again.
 */
interface EncodedApplication {
  /** How many items were sent. */
  length: number;
  context: RefRuns;
  tokensBefore: number;
  tokensAfter: number;
}

/** A prepared compaction or a not-applied result, as it crosses the thread boundary. */
export type EncodedResult =
  | {
      prepared: Omit<PreparedCompaction, 'checkpoints'> & { checkpoints: EncodedCheckpoint[] };
      /** How many items were sent: numbers from there on are items the run made. */
      sent: number;
      applied?: EncodedApplication;
    }
  | { notApplied: Omit<CompactionResult, 'context'> };

/** Most characters of message content in one {@link ResultItemsMessage} (about 25k tokens). */
export const RESULT_ITEMS_CHARS = 100_000;

/**
 * Encodes what `prepareCompaction` returned for `items` (the worker's copy of the context), with
 * its application to them (`applied`, when the run kept it). A not-applied result leaves the
 * context as it was, so its `context` is not sent back. Returns the result and the items the run
 * made, in batches of about {@link RESULT_ITEMS_CHARS} characters, to be sent first.
 */
export function encodeResult(
  result: PreparedCompaction | CompactionResult,
  items: readonly ContextItem[],
  countMessage: (message: ContextItem['message']) => number,
  applied?: AppliedCompaction,
): { result: EncodedResult; made: MadeBatch[]; transfer: ArrayBuffer[] } {
  if ('status' in result) {
    const { context: _context, ...rest } = result;
    void _context;
    return { result: { notApplied: rest }, made: [], transfer: [] };
  }
  const transfer: ArrayBuffer[] = [];
  const bytes = (text: string): StoredText => {
    if (text.length < BYTES_MIN_CHARS) return text;
    const encoded = encoder.encode(text);
    transfer.push(encoded.buffer);
    return encoded;
  };
  const index = new Map<ContextItem, number>();
  items.forEach((it, k) => index.set(it, k));
  const made: MadeBatch[] = [];
  let batch: MadeBatch = { items: [], covers: [], coverIds: [] };
  let chars = 0;
  let next = items.length;
  const byFirstId = lazyFirstIds(items);
  const ref = (it: ContextItem): ItemRef => {
    let k = index.get(it);
    if (k === undefined) {
      index.set(it, (k = next++));
      const size = sizeOf(it);
      if (batch.items.length > 0 && chars + size > RESULT_ITEMS_CHARS) {
        made.push(batch);
        batch = { items: [], covers: [], coverIds: [] };
        chars = 0;
      }
      const covers = it.covers.length >= COVERS_BY_REF_MIN ? coversAsRuns(it.covers, items, byFirstId()) : null;
      // The same fields in the same order (the saved text of the item depends on it), its ids left to the caller.
      batch.items.push(covers ? { ...it, covers: [] } : it);
      batch.covers.push(covers);
      batch.coverIds.push(covers ? it.covers.length : 0);
      chars += size;
    }
    return k;
  };
  const checkpoints = result.checkpoints.map((cp, k) => {
    let replacedTokens = 0;
    for (const it of cp.replaced) replacedTokens += countMessage(it.message);
    const done = applied?.checkpoints[k];
    const replaced = refRuns(cp.replaced.map(ref));
    const inserted = cp.inserted.map(ref);
    const ids = coveredIds(cp.replaced);
    const sameIds = cp.inserted.findIndex((it, j) => inserted[j] >= items.length && sameList(it.covers, ids));
    return {
      ...cp,
      replaced,
      inserted: refRuns(inserted),
      insertedTokens: cp.inserted.map((it) => countMessage(it.message)),
      replacedTokens,
      replacedIdsOf: sameIds >= 0 ? inserted[sameIds] : undefined,
      replacedIdCount: ids.length,
      replacedText: bytes(storedItemsText(cp.replaced)),
      replacedIdsText: bytes(storedIdsText(ids)),
      insertedTexts: cp.inserted.map((it) => bytes(storedItemText(it))),
      applied: { tokensBefore: done?.tokensBefore ?? NaN, tokensAfter: done?.tokensAfter ?? NaN },
    };
  });
  const application: EncodedApplication | undefined = applied && {
    length: items.length,
    context: refRuns(applied.context.map(ref)),
    tokensBefore: applied.tokensBefore,
    tokensAfter: applied.tokensAfter,
  };
  if (batch.items.length > 0) made.push(batch);
  return {
    result: { prepared: { ...result, checkpoints }, sent: items.length, applied: application },
    made,
    transfer,
  };
}

/** True when `a` and `b` hold the same strings in the same order. */
function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** A getter of the index of `items` by the first id each covers, built on first use. */
function lazyFirstIds(items: readonly ContextItem[]): () => Map<string, number> {
  let map: Map<string, number> | undefined;
  return () => {
    if (!map) {
      map = new Map();
      for (let k = 0; k < items.length; k++) if (items[k].covers.length > 0) map.set(items[k].covers[0], k);
    }
    return map;
  };
}

/**
 * `covers` as the items of `items` whose covered ids, one item after another, are exactly these
 * ids (as {@link RefRuns}), or null when they are not (the ids then travel as they are).
 */
function coversAsRuns(
  covers: readonly string[],
  items: readonly ContextItem[],
  byFirstId: Map<string, number>,
): RefRuns | null {
  const refs: ItemRef[] = [];
  for (let at = 0; at < covers.length;) {
    const k = byFirstId.get(covers[at]);
    if (k === undefined) return null;
    const own = items[k].covers;
    if (at + own.length > covers.length) return null;
    for (let j = 0; j < own.length; j++) if (own[j] !== covers[at + j]) return null;
    refs.push(k);
    at += own.length;
  }
  return refRuns(refs);
}

/** Characters of an item's message content and tool calls, roughly. */
export function sizeOf(item: ContextItem): number {
  const m = item.message as { content?: unknown; tool_calls?: Array<{ function?: { arguments?: string } }> };
  let n = 64;
  if (typeof m.content === 'string') n += m.content.length;
  else if (Array.isArray(m.content)) {
    for (const part of m.content as Array<{ text?: string; image_url?: { url?: string } }>)
      n += (part.text?.length ?? 0) + (part.image_url?.url?.length ?? 0) + 32;
  }
  for (const call of m.tool_calls ?? []) n += (call.function?.arguments?.length ?? 0) + 64;
  return n;
}

/** Milliseconds of the caller's thread one turn of taking a result over may take (see {@link decodeResult}). */
export const DECODE_SLICE_MS = 8;

/**
 * Steps of a loop in {@link decodeResult} between two looks at the clock: copying an element is a
 * few nanoseconds, so this is well under a millisecond.
 */
const STEPS = 4096;

/** The items sent (the caller's objects, the first `sent` of `items`) and made, as the worker numbered them. */
interface Numbered {
  items: readonly ContextItem[];
  sent: number;
  made: readonly ContextItem[];
  slices: TimeSlices;
}

/** The items `runs` number; in slices of bounded time. */
async function listOf(runs: RefRuns, { items, sent, made, slices }: Numbered): Promise<ContextItem[]> {
  let length = 0;
  for (let r = 1; r < runs.length; r += 2) length += runs[r];
  const out = new Array<ContextItem>(length);
  let at = 0;
  for (let r = 0; r < runs.length; r += 2)
    for (let from = runs[r], end = from + runs[r + 1]; from < end; from += STEPS) {
      if (slices.due()) await slices.turn();
      for (let ref = from, to = Math.min(end, from + STEPS); ref < to; ref++) {
        const item = ref < sent ? items[ref] : made[ref - sent];
        if (item === undefined)
          throw new Error(
            `compaction worker: item ${ref} is neither one of the ${sent} items sent nor one of the ${made.length} made`,
          );
        out[at++] = item;
      }
    }
  return out;
}

/**
 * Fills in the ids of made items sent without them (the caller's own id strings, in order), in
 * slices of bounded time, reading each item sent once (`counts[k]`: how many ids `covers[k]` stands
 * for, from the worker). Each list is made at its full length at once: grown by pushes, a list of
 * 300k ids is copied over and over, garbage the collector then stops the thread for.
 * @throws Error when the items sent cover another number of ids (worker and caller disagree).
 */
async function fillCovers(
  covers: ReadonlyArray<RefRuns | null>,
  counts: readonly number[],
  numbered: Numbered,
): Promise<void> {
  const { items, sent, made, slices } = numbered;
  for (let k = 0; k < made.length; k++) {
    const runs = covers[k];
    if (!runs) continue;
    const length = counts[k];
    const ids = new Array<string>(length);
    let at = 0;
    for (let r = 0; r < runs.length; r += 2) {
      const end = runs[r] + runs[r + 1];
      if (end > sent) throw new Error(`compaction worker: item ${end - 1} is not one of the ${sent} items sent`);
      for (let from = runs[r]; from < end; from += STEPS) {
        if (slices.due()) await slices.turn();
        for (let ref = from, to = Math.min(end, from + STEPS); ref < to; ref++) {
          const own = items[ref].covers;
          if (at + own.length > length) throw disagree(length);
          for (let j = 0; j < own.length; j++) ids[at++] = own[j];
        }
      }
    }
    if (at !== length) throw disagree(length);
    // The same field: the item's fields keep their order (its stored text depends on it).
    made[k].covers = ids;
  }
}

/** The error of ids that do not add up to the count the worker gave. */
function disagree(count: number): Error {
  return new Error(`compaction worker: the items sent do not cover the ${count} ids it counted`);
}

/**
 * `coveredIds(list)`, in slices of bounded time, reading each item once: `length` is how many ids
 * they cover (from the worker); the list made at its full length at once (see {@link fillCovers}).
 * @throws Error when they cover another number of ids.
 */
async function idsOf(list: readonly ContextItem[], length: number, { slices }: Numbered): Promise<string[]> {
  const out = new Array<string>(length);
  let at = 0;
  for (let from = 0; from < list.length; from += STEPS) {
    if (slices.due()) await slices.turn();
    for (let k = from, to = Math.min(list.length, from + STEPS); k < to; k++) {
      const covers = list[k].covers;
      if (at + covers.length > length) throw disagree(length);
      for (let j = 0; j < covers.length; j++) out[at++] = covers[j];
    }
  }
  if (at !== length) throw disagree(length);
  return out;
}

/**
 * The result an inline run over `items` (the caller's objects) would have returned; `made` holds
 * the {@link ResultItemsMessage}s' batches, in order (the ids of made items sent
 * without them are filled in here, from the caller's items). Taken over in slices of about
 * {@link DECODE_SLICE_MS} on the caller's thread (a 300k-message span is read in a few turns).
 * `remember` gets each inserted message with the worker's count of it (to spare the caller counting
 * it again). With `meter` (the caller's, counting as the worker's does), what the worker made of
 * each checkpoint's replaced items is kept for the commit (their tokens and ids, see `noteReplaced`)
 * and the save (their stored text, see `noteStoredText`), and so is the worker's application of the
 * compaction to `items` (see `keepApplied`): the commit that follows takes it over instead of
 * applying it again.
 * @throws Error when an item's number is outside what was sent and made (worker and caller disagree).
 */
export async function decodeResult(
  encoded: EncodedResult,
  items: readonly ContextItem[],
  made: readonly MadeBatch[] = [],
  remember?: (message: ContextItem['message'], tokens: number) => void,
  meter?: TokenMeter,
): Promise<PreparedCompaction | CompactionResult> {
  if ('notApplied' in encoded) return { ...encoded.notApplied, context: [...items] };
  const sent = encoded.sent;
  if (sent > items.length)
    throw new Error(`compaction worker: it was sent ${sent} items, the context has ${items.length}`);
  // Receiving the result (copying it onto this thread) was this turn's work: the slices start in a turn of their own.
  const slices = new TimeSlices(DECODE_SLICE_MS);
  await slices.turn();
  const madeItems: ContextItem[] = [];
  const covers: Array<RefRuns | null> = [];
  const coverIds: number[] = [];
  for (const batch of made)
    for (let k = 0; k < batch.items.length; k++) {
      madeItems.push(batch.items[k]);
      covers.push(batch.covers[k] ?? null);
      coverIds.push(batch.coverIds[k] ?? 0);
    }
  const numbered: Numbered = { items, sent, made: madeItems, slices };
  await fillCovers(covers, coverIds, numbered);
  const applied: Checkpoint[] = [];
  const checkpoints: Checkpoint[] = [];
  for (const encodedCheckpoint of encoded.prepared.checkpoints) {
    const {
      insertedTokens,
      replacedTokens,
      replacedIdsOf,
      replacedIdCount,
      replacedText,
      replacedIdsText,
      insertedTexts,
      applied: figures,
      ...cp
    } = encodedCheckpoint;
    const replaced = await listOf(cp.replaced, numbered);
    const inserted = await listOf(cp.inserted, numbered);
    for (let k = 0; k < inserted.length; k++)
      if (insertedTokens[k] !== undefined) remember?.(inserted[k].message, insertedTokens[k]);
    // A summary covers exactly the ids of what it replaced: its list (filled in above) is copied.
    const same = replacedIdsOf === undefined ? undefined : madeItems[replacedIdsOf - sent]?.covers;
    const ids = same?.length === replacedIdCount ? same.slice() : await idsOf(replaced, replacedIdCount, numbered);
    if (meter) {
      noteReplaced({ replaced }, meter, replacedTokens, ids);
      noteStoredText(replaced, replacedText, ids, replacedIdsText);
      for (let k = 0; k < inserted.length; k++) noteStoredItemText(inserted[k], insertedTexts[k]);
      // Kept whole as characters only; with bytes among them, the save joins the items' own texts.
      if (insertedTexts.every((text) => typeof text === 'string'))
        noteStoredText(inserted, `[${insertedTexts.join(',')}]`);
    }
    const checkpoint = { ...cp, inserted, replaced };
    applied.push({ ...checkpoint, replacedIds: ids, ...figures });
    checkpoints.push(checkpoint);
  }
  const prepared: PreparedCompaction = { ...encoded.prepared, checkpoints };
  const application = encoded.applied;
  if (meter && application && application.length <= items.length)
    keepApplied(
      prepared,
      items,
      {
        context: await listOf(application.context, numbered),
        tokensBefore: application.tokensBefore,
        tokensAfter: application.tokensAfter,
        checkpoints: applied,
      },
      application.length,
    );
  return prepared;
}
