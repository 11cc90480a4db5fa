/**
 * The messages between the extension host and the compaction worker, and the encoding of a
 * prepared compaction for the way back. Pure: no `worker_threads`, no I/O.
 *
 * A prepared compaction's checkpoints hold the items they replace; those are (almost always) the
 * very items the worker was sent. They travel back as their index in that list and are put back as
 * the caller's own objects, so the result is the one an inline run gives (same objects, same ids)
 * and the way back costs the new items only.
 */
import type { EncodingName } from '../../../tokenizer/tokenizer';
import type { Checkpoint, CompactionOptions, ContextItem, ToolSchema } from '../../../compaction/types';
import { noteReplaced, type PreparedCompaction } from '../../../compaction/rewrite/commit';
import type { CompactionResult } from '../../../compaction/outcome';
import type { TokenMeter } from '../../../compaction/meter/meter';
import { coveredIds } from '../../../compaction/context';
import { noteStoredText, storedIdsText, storedItemsText } from '../../session/stored-text';

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
}

/**
 * Host → worker: run job `job` over the items named by `order` (keys, in context order) with the
 * extractive summarizer. The worker forgets every item not in `order`. `cancel[0]` becomes 1 when
 * the host no longer wants the answer (checked before each summarized span).
 */
export interface RunMessage {
  type: 'run';
  job: number;
  order: number[];
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

/** Worker → host: the result (see {@link encodeResult}). */
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

export type FromWorker = ProgressMessage | DoneMessage | ErrorMessage;

/** A replaced item: its index in the items sent, or the item itself when it was made during the run. */
type ItemRef = number | ContextItem;

interface EncodedCheckpoint extends Omit<Checkpoint, 'replaced'> {
  replaced: ItemRef[];
  /** Tokens of each inserted item's message, as the worker's meter counted them. */
  insertedTokens: number[];
  /**
   * What committing and saving need of the replaced items, made in the worker so the caller's
   * thread does not read them all again: their tokens (the worker's counts, summed), and the JSON
   * text of their stored form and of the ids they cover (see session/stored-text.ts).
   */
  replacedTokens: number;
  replacedText: string;
  replacedIdsText: string;
}

/** A prepared compaction or a not-applied result, as it crosses the thread boundary. */
export type EncodedResult =
  | { prepared: Omit<PreparedCompaction, 'checkpoints'> & { checkpoints: EncodedCheckpoint[] } }
  | { notApplied: Omit<CompactionResult, 'context'> };

/**
 * Encodes what `prepareCompaction` returned for `items` (the worker's copy of the context). A
 * not-applied result leaves the context as it was, so its `context` is not sent back.
 */
export function encodeResult(
  result: PreparedCompaction | CompactionResult,
  items: readonly ContextItem[],
  countMessage: (message: ContextItem['message']) => number,
): EncodedResult {
  if ('status' in result) {
    const { context: _context, ...rest } = result;
    void _context;
    return { notApplied: rest };
  }
  const index = new Map<ContextItem, number>();
  items.forEach((it, k) => index.set(it, k));
  const checkpoints = result.checkpoints.map((cp) => {
    let replacedTokens = 0;
    for (const it of cp.replaced) replacedTokens += countMessage(it.message);
    return {
      ...cp,
      replaced: cp.replaced.map((it): ItemRef => index.get(it) ?? it),
      insertedTokens: cp.inserted.map((it) => countMessage(it.message)),
      replacedTokens,
      replacedText: storedItemsText(cp.replaced),
      replacedIdsText: storedIdsText(coveredIds(cp.replaced)),
    };
  });
  return { prepared: { ...result, checkpoints } };
}

/**
 * The result an inline run over `items` (the caller's objects) would have returned. `remember` gets
 * each inserted message with the worker's count of it (to spare the caller counting it again). With
 * `meter` (the caller's, counting as the worker's does), what the worker made of each checkpoint's
 * replaced items is kept for the commit (their tokens and ids, see `noteReplaced`) and the save
 * (their stored text, see `noteStoredText`), so neither reads the span again.
 * @throws Error when a replaced item's index is outside `items` (worker and caller disagree).
 */
export function decodeResult(
  encoded: EncodedResult,
  items: readonly ContextItem[],
  remember?: (message: ContextItem['message'], tokens: number) => void,
  meter?: TokenMeter,
): PreparedCompaction | CompactionResult {
  if ('notApplied' in encoded) return { ...encoded.notApplied, context: [...items] };
  const checkpoints: Checkpoint[] = encoded.prepared.checkpoints.map(
    ({ insertedTokens, replacedTokens, replacedText, replacedIdsText, ...cp }) => {
      const replaced = new Array<ContextItem>(cp.replaced.length);
      for (let k = 0; k < replaced.length; k++) {
        const ref = cp.replaced[k];
        const item = typeof ref === 'number' ? items[ref] : ref;
        if (item === undefined)
          throw new Error(
            `compaction worker: replaced item ${typeof ref === 'number' ? ref : '?'} is not one of the ${items.length} items sent`,
          );
        replaced[k] = item;
      }
      if (meter) {
        const ids = coveredIds(replaced);
        noteReplaced({ replaced }, meter, replacedTokens, ids);
        noteStoredText(replaced, replacedText, ids, replacedIdsText);
      }
      return {
        ...cp,
        inserted: cp.inserted.map((item, k) => {
          if (insertedTokens[k] !== undefined) remember?.(item.message, insertedTokens[k]);
          return item;
        }),
        replaced,
      };
    },
  );
  return { ...encoded.prepared, checkpoints };
}
