/**
 * The JSON text of the large parts of the state file, kept per list object: a checkpoint's replaced
 * items (in stored form) and its replaced ids never change once the checkpoint is made, so each
 * list is written out once in its life, not at every save of the state. The compaction worker
 * writes the text of the lists it made and hands it over ({@link noteStoredText}), so the editor's
 * thread never writes out a large span; it sends the large texts as UTF-8 bytes, kept and written
 * as they are, so the editor's thread never copies them either. No I/O; no dependencies (the
 * worker bundles it).
 */
import type { ContextItem } from '../../compaction/types';

/** A kept JSON text: characters, or their UTF-8 bytes (from the compaction worker). */
export type StoredText = string | Uint8Array;

const decoder = new TextDecoder();

/** `text` as characters (bytes decoded: only the synchronous readers need them). */
export function asString(text: StoredText): string {
  return typeof text === 'string' ? text : decoder.decode(text);
}

/** An active-context item as stored: raw items by reference, derived items whole. */
export type StoredItem = { ref: string; pinned?: boolean } | (ContextItem & { ref?: undefined });

/** The stored form of an item: a raw item by reference (with its pin), a derived item whole. */
export function toStored(item: ContextItem): StoredItem {
  if (item.kind === 'raw') return item.pinned ? { ref: item.id, pinned: true } : { ref: item.id };
  return item;
}

const itemsText = new WeakMap<readonly ContextItem[], StoredText>();
const idsText = new WeakMap<readonly string[], StoredText>();

/** Elements of a list written out at a time by the piecewise writers (about a millisecond of work). */
export const PIECE_ELEMENTS = 2048;

/**
 * The JSON text of a list whose elements have the JSON texts `text(x)`, in pieces of
 * {@link PIECE_ELEMENTS} elements, in order: their concatenation is that text (as `JSON.stringify`
 * writes an array). Lets a caller stop between pieces (see `SessionStore.stateTextSliced`). An
 * element whose text is bytes is a piece of its own.
 */
export function* jsonListPieces<T>(list: readonly T[], text: (x: T) => StoredText): Generator<StoredText> {
  yield '[';
  for (let at = 0; at < list.length; at += PIECE_ELEMENTS) {
    const end = Math.min(list.length, at + PIECE_ELEMENTS);
    // `parts` are the texts from element `from` on; every element but the list's first comes after a comma.
    let parts: string[] = [];
    let from = at;
    for (let k = at; k < end; k++) {
      const part = text(list[k]);
      if (typeof part === 'string') {
        parts.push(part);
        continue;
      }
      if (parts.length) yield `${from > 0 ? ',' : ''}${parts.join(',')}`;
      if (k > 0) yield ',';
      yield part;
      parts = [];
      from = k + 1;
    }
    if (parts.length) yield `${from > 0 ? ',' : ''}${parts.join(',')}`;
  }
  yield ']';
}

const itemText = new WeakMap<ContextItem, StoredText>();

/**
 * `JSON.stringify(toStored(item))`. A derived item (a summary of 100k messages is over a megabyte
 * of text) is written out once in its life and kept with the item (items are never changed); a raw
 * item is a reference, made at once.
 */
export function storedItemText(item: ContextItem): string {
  return asString(storedItemPiece(item));
}

/** {@link storedItemText}, as kept (bytes when the compaction worker wrote it). */
export function storedItemPiece(item: ContextItem): StoredText {
  if (item.kind === 'raw') return `{"ref":${JSON.stringify(item.id)}${item.pinned ? ',"pinned":true' : ''}}`;
  let text = itemText.get(item);
  if (text === undefined) itemText.set(item, (text = JSON.stringify(item)));
  return text;
}

/** Takes the text of `item` written elsewhere (the compaction worker): it must equal {@link storedItemText}. */
export function noteStoredItemText(item: ContextItem, text: StoredText): void {
  if (item.kind !== 'raw') itemText.set(item, text);
}

/** `JSON.stringify(items.map(toStored))`, kept for the list object (a list that is never changed). */
export function storedItemsText(items: readonly ContextItem[]): string {
  let text = itemsText.get(items);
  if (text === undefined) itemsText.set(items, (text = `[${items.map(storedItemText).join(',')}]`));
  return asString(text);
}

/** `JSON.stringify(ids)`, kept for the list object (a list that is never changed). */
export function storedIdsText(ids: readonly string[]): string {
  let text = idsText.get(ids);
  if (text === undefined) idsText.set(ids, (text = JSON.stringify(ids)));
  return asString(text);
}

/**
 * {@link storedItemsText} in pieces (the kept text whole when there is one; else written out piece
 * by piece, see {@link jsonListPieces}, and kept once complete).
 */
function* storedItemsPieces(items: readonly ContextItem[]): Generator<StoredText> {
  yield* keptPieces(itemsText, items, storedItemPiece);
}

/** {@link storedIdsText} in pieces, as {@link storedItemsPieces}. */
function* storedIdsPieces(ids: readonly string[]): Generator<StoredText> {
  yield* keptPieces(idsText, ids, (id) => JSON.stringify(id));
}

function* keptPieces<T>(
  kept: WeakMap<readonly T[], StoredText>,
  list: readonly T[],
  form: (x: T) => StoredText,
): Generator<StoredText> {
  const text = kept.get(list);
  if (text !== undefined) {
    yield text;
    return;
  }
  const pieces: string[] = [];
  let whole = true;
  for (const piece of jsonListPieces(list, form)) {
    if (typeof piece === 'string') pieces.push(piece);
    // A list holding bytes (an item the worker wrote) is not kept whole: its pieces are kept per item.
    else whole = false;
    yield piece;
  }
  if (whole) kept.set(list, pieces.join(''));
}

/**
 * Takes the texts of `items` and `ids` written elsewhere (the compaction worker, over its copies of
 * the same items): they must equal {@link storedItemsText} and {@link storedIdsText} of these lists.
 */
export function noteStoredText(
  items: readonly ContextItem[],
  text: StoredText,
  ids?: readonly string[],
  idsJson?: StoredText,
): void {
  itemsText.set(items, text);
  if (ids && idsJson !== undefined) idsText.set(ids, idsJson);
}

/**
 * The JSON text of a checkpoint as stored: its fields, then `inserted` and `replaced` in stored
 * form and `replacedIds`, from the kept texts (see {@link storedItemsText}).
 */
export function storedCheckpointText(cp: {
  replaced: readonly ContextItem[];
  inserted: readonly ContextItem[];
  replacedIds?: readonly string[];
}): string {
  const { replaced, replacedIds, inserted, ...rest } = cp;
  const head = JSON.stringify(rest);
  const ids = replacedIds === undefined ? '' : `,"replacedIds":${storedIdsText(replacedIds)}`;
  const lists = `"inserted":${storedItemsText(inserted)},"replaced":${storedItemsText(replaced)}${ids}}`;
  return head === '{}' ? `{${lists}` : `${head.slice(0, -1)},${lists}`;
}

/** {@link storedCheckpointText} in pieces, in order (their concatenation is that text). */
export function* storedCheckpointPieces(cp: {
  replaced: readonly ContextItem[];
  inserted: readonly ContextItem[];
  replacedIds?: readonly string[];
}): Generator<StoredText> {
  const { replaced, replacedIds, inserted, ...rest } = cp;
  const head = JSON.stringify(rest);
  yield head === '{}' ? '{"inserted":' : `${head.slice(0, -1)},"inserted":`;
  yield* storedItemsPieces(inserted);
  yield ',"replaced":';
  yield* storedItemsPieces(replaced);
  if (replacedIds !== undefined) {
    yield ',"replacedIds":';
    yield* storedIdsPieces(replacedIds);
  }
  yield '}';
}
