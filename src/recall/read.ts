/**
 * Reading a range of the raw transcript, a checkpoint's replaced messages or any messages, whole and
 * masked, inside a character cap that says where to continue.
 */
import { indexSource, maskedTextOf, scopeOf, type RecallIndex } from './messages';
import {
  RECALL_LIMITS,
  RecallError,
  type ReadMessage,
  type ReadResult,
  type RecallLimits,
  type RecallSource,
} from './types';

/** Options of {@link readHistory}. Positions are 1-based positions in the raw transcript (as search cites them). */
export interface ReadOptions {
  /** Read only messages this checkpoint replaced. */
  checkpoint?: string;
  /** First position; default the checkpoint's first replaced message, else 1. */
  from?: number;
  /** Last position; default as far as `limits.readMessages` messages reach. */
  to?: number;
  /** Characters of the first message to skip (to continue a long message). Default 0. */
  offset?: number;
  limits?: RecallLimits;
}

/**
 * Returns the messages from `from` to `to` (those of `checkpoint` only, when given), at most
 * `limits.readMessages` of them and `limits.readChars` characters of text; a message cut by the cap
 * ends the read, and `next` says where to go on.
 * @throws RecallError for an unknown checkpoint, positions outside the transcript or `to < from`,
 *   a negative offset, or a checkpoint with no message in the range
 */
export function readHistory(source: RecallSource | RecallIndex, options: ReadOptions = {}): ReadResult {
  const index = 'messages' in source ? source : indexSource(source);
  const limits = options.limits ?? RECALL_LIMITS;
  const total = index.messages.length;
  const scope = scopeOf(index, options.checkpoint);
  if (scope.length === 0) throw new RecallError('there is no message to read');
  const from = options.from ?? scope[0] + 1;
  for (const [name, value] of [
    ['from', from],
    ['to', options.to],
  ] as const) {
    if (value !== undefined && (!Number.isInteger(value) || value < 1 || value > total))
      throw new RecallError(`${name} ${value} is outside the transcript (messages 1-${total})`);
  }
  const offset = options.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) throw new RecallError(`offset ${offset} must be a whole number ≥ 0`);
  if (options.to !== undefined && options.to < from) throw new RecallError(`to ${options.to} is before from ${from}`);
  const inRange = scope.filter((i) => i + 1 >= from && (options.to === undefined || i + 1 <= options.to));
  if (inRange.length === 0)
    throw new RecallError(
      `checkpoint ${options.checkpoint} replaced no message in ${from}-${options.to ?? total}; it replaced messages ${spans(scope)}`,
    );
  const chosen = inRange.slice(0, limits.readMessages);
  const to = options.to ?? chosen[chosen.length - 1] + 1;

  const messages: ReadMessage[] = [];
  let left = limits.readChars;
  let next: ReadResult['next'];
  for (const [k, at] of chosen.entries()) {
    const whole = maskedTextOf(index.source.entries[at]);
    const skip = k === 0 ? Math.min(offset, whole.length) : 0;
    const rest = whole.slice(skip);
    if (rest.length > left && messages.length > 0) {
      next = { from: at + 1, offset: 0 };
      break;
    }
    const text = rest.slice(0, left);
    messages.push({ ...index.messages[at], text, offset: skip, length: whole.length });
    left -= text.length;
    if (text.length < rest.length) {
      next = { from: at + 1, offset: skip + text.length };
      break;
    }
  }
  if (!next && inRange.length > chosen.length) next = { from: inRange[chosen.length] + 1, offset: 0 };
  return {
    ...(options.checkpoint !== undefined ? { checkpoint: options.checkpoint } : {}),
    total,
    from,
    to,
    messages,
    ...(next ? { next } : {}),
  };
}

/** `2-40, 45-50`: runs of 0-based positions written 1-based. */
export function spans(positions: readonly number[]): string {
  const out: string[] = [];
  for (let k = 0; k < positions.length; k++) {
    let e = k;
    while (e + 1 < positions.length && positions[e + 1] === positions[e] + 1) e++;
    out.push(e === k ? `${positions[k] + 1}` : `${positions[k] + 1}-${positions[e] + 1}`);
    k = e;
  }
  return out.join(', ');
}
