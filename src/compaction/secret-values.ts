/**
 * The secret values a span of messages holds, for text made from that span by pieces: a name cut out
 * of a command (`?api-key=0000…` gives the identifier `0000…`) or a clipped command no longer shows
 * the assignment that makes {@link maskSecrets} recognise its value, so each value recognised
 * anywhere in the span is masked wherever it appears again (scorecard names, identifier lists).
 *
 * Pure: no I/O. Each message is scanned once in its life (messages are never mutated).
 */
import { findSecrets, maskLabel, maskSecrets } from './secrets';
import { textWithPlaceholders } from './content-text';
import { messageMemosKept } from './message-memo';

/**
 * Shortest value masked wherever it appears: a shorter one (`password=test`) would mask ordinary
 * words of the text; such values stay masked where their assignment is shown.
 */
const SHORTEST_VALUE = 8;

/** Secret values of each message (its text and its tool calls' arguments). */
const valuesOf = new WeakMap<object, readonly string[]>();

/** The values recognised as secrets in `text`, long and specific enough to look for elsewhere. */
export function secretValuesIn(text: string): string[] {
  const out: string[] = [];
  for (const s of findSecrets(text)) {
    const v = text.slice(s.start, s.end).trim();
    // A word of letters alone under 16 characters is likely a word of the text too (`password: development`).
    if (v.length >= SHORTEST_VALUE && (/[^A-Za-z]/.test(v) || v.length >= 16)) out.push(v);
  }
  return out;
}

function messageValues(message: { content?: unknown; tool_calls?: unknown }): readonly string[] {
  return messageSecretValues(message, true);
}

/**
 * The secret values of one message (its text and its tool calls' arguments: see {@link secretValuesIn}),
 * in the order the message holds them, repeats included. Read once per message while kept: with
 * `keep` false, a message read before gives what was kept and one not read before is read without
 * being kept. A reading of a whole transcript at once (after a load or an import) reads each message
 * once in any case; keeping its values would grow the weak table by one entry per message, and each
 * growth past a power of two copies the whole table in one stretch of the thread (about 30 ms at 300k
 * messages, on the extension host).
 */
export function messageSecretValues(
  message: { content?: unknown; tool_calls?: unknown },
  keep: boolean,
): readonly string[] {
  let hit = valuesOf.get(message);
  if (hit) return hit;
  const text = textWithPlaceholders(message.content);
  const parts = [text];
  // A tool's result may be JSON (Codex keeps a command's output as `{"output":"…\\n…"}`): its escaped
  // line breaks hide an assignment at a line's start, so the decoded strings are read too.
  if (/^\s*[[{]/.test(text)) {
    try {
      stringsOf(JSON.parse(text), parts);
    } catch {
      // Not JSON: the raw text was read.
    }
  }
  const calls = message.tool_calls as Array<{ function?: { arguments?: unknown } }> | undefined;
  for (const c of Array.isArray(calls) ? calls : []) {
    const args = c.function?.arguments;
    if (typeof args !== 'string') continue;
    parts.push(args);
    // Arguments are JSON: a value with quotes or backslashes is escaped there; read the decoded strings too.
    try {
      stringsOf(JSON.parse(args), parts);
    } catch {
      // Not JSON: the raw text was read.
    }
  }
  hit = parts.flatMap(secretValuesIn);
  if (keep) valuesOf.set(message, hit);
  return hit;
}

/** Whether the secret values of `message` are kept (see {@link messageSecretValues}). */
export function secretValuesKept(message: object): boolean {
  return valuesOf.has(message);
}

/** Every string in `value` (a parsed JSON value), into `out`; arrays and objects at any depth. */
function stringsOf(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) stringsOf(v, out);
}

/**
 * Every secret value of the messages of `items` (see the module comment), longest first (a value
 * that holds another is masked whole); values of one length in the order the span first holds them.
 * A span that grew at its end since the last call continues that call's reading (see
 * {@link keptValues}): only its new messages are visited. Returns a new array.
 */
export function spanSecretValues(items: ReadonlyArray<{ message: object }>): string[] {
  let k = keptValues;
  if (!messageMemosKept()) k = keptValues = undefined;
  if (k && (k.count > items.length || !sameMessages(k.items, items, k.count))) k = undefined;
  if (k && k.count === items.length) return k.sorted.slice();
  // A copy: the kept set stays the reading of the span it was read for until replaced.
  const all = new Set<string>(k?.all);
  for (let i = k ? k.count : 0; i < items.length; i++) for (const v of messageValues(items[i].message)) all.add(v);
  // Stable: values of one length stay in the order the span first holds them.
  const sorted = [...all].sort((a, b) => b.length - a.length);
  if (messageMemosKept() && items.length >= KEEP_FROM) keptValues = { items, count: items.length, all, sorted };
  return sorted.slice();
}

/**
 * The span {@link spanSecretValues} read last: its items, how many of them the values cover, the
 * values in the order the span first holds them, and the same sorted longest first.
 *
 * Why continuing it equals a reading of the whole span: the values of a span are the union of its
 * messages' values (each message's are fixed, messages are never mutated), and a set keeps the order
 * of first insertion, so the set of a span whose first `count` items are the same messages, continued
 * over the items after them, holds the same values in the same order as a set filled from the start.
 * The sort is stable, so the result is the same too. A span that does not start with those items is
 * read from its start. Nothing is kept while the per-message memos are off (one compaction per
 * process).
 */
let keptValues:
  { items: ReadonlyArray<{ message: object }>; count: number; all: Set<string>; sorted: string[] } | undefined;

/** Spans shorter than this are read whole (cheap), so they do not push a long span's reading out. */
const KEEP_FROM = 256;

/** Whether `a` and `b` hold the same messages in their first `n` places. */
function sameMessages(
  a: ReadonlyArray<{ message: object }>,
  b: ReadonlyArray<{ message: object }>,
  n: number,
): boolean {
  if (a === b) return true;
  for (let i = 0; i < n; i++) if (a[i].message !== b[i].message) return false;
  return true;
}

/**
 * `text` with {@link maskSecrets} applied and every one of `values` (from {@link spanSecretValues})
 * replaced by `[masked secret]`. Idempotent.
 */
export function maskSecretValues(text: string, values: readonly string[]): string {
  return maskValues(maskSecrets(text), values);
}

/**
 * `masked` (a text {@link maskSecrets} was applied to) with every one of `values` replaced by
 * `[masked secret]`, in their order: the second step of {@link maskSecretValues}, for a caller that
 * keeps the first step's result of a text it masks again with other values.
 */
export function maskValues(masked: string, values: readonly string[]): string {
  let out = masked;
  for (const v of values) if (out.includes(v)) out = out.split(v).join(maskLabel('secret'));
  for (const v of values)
    for (const piece of valuePieces(v))
      if (out.includes(piece)) out = out.replace(wholeToken(piece), maskLabel('secret'));
  return out;
}

/**
 * The pieces of a secret value a list may show without the rest: a name read out of the text stops
 * at punctuation, so `password: 'DevPass2024!'` gives the code name `DevPass2024`. A piece is a run
 * of letters, digits and `_` (or also `.` and `-`) of {@link SHORTEST_VALUE}+ characters that either
 * is most of the value (two thirds of its characters) or is specific on its own (letters and digits
 * mixed, or 16+ characters), the rule {@link secretValuesIn} keeps values by. The value itself is
 * no piece (it is masked as it is). Kept per value: a span's values are masked again and again.
 */
export function valuePieces(value: string): readonly string[] {
  let hit = piecesOf.get(value);
  if (hit) return hit;
  const out = new Set<string>();
  for (const piece of [...value.split(/[^A-Za-z0-9_]+/), ...value.split(/[^A-Za-z0-9_.-]+/)]) {
    if (piece.length < SHORTEST_VALUE || piece === value || out.has(piece)) continue;
    const specific = (/\d/.test(piece) && /[A-Za-z]/.test(piece)) || piece.length >= 16;
    if (specific || piece.length * 3 >= value.length * 2) out.add(piece);
  }
  hit = [...out].sort((a, b) => b.length - a.length);
  if (piecesOf.size > 4096) piecesOf.clear();
  piecesOf.set(value, hit);
  return hit;
}

const piecesOf = new Map<string, readonly string[]>();

/** `piece` where it is a whole token (no letter, digit or `_` either side), every occurrence. */
function wholeToken(piece: string): RegExp {
  return new RegExp(`(?<![A-Za-z0-9_])${piece.replace(/[.-]/g, '\\$&')}(?![A-Za-z0-9_])`, 'g');
}

/**
 * Whether `maskValues(masked, now)` is sure to equal `maskValues(masked, before)`, told without masking
 * again: `now` is `before` with values added (the others in the same order), and no added value can be
 * replaced in `masked`. An added value that does not occur in `masked`, holds no bracket and is no
 * piece of the label cannot occur later in the masking either: the text between the labels an
 * earlier value put in is the text's own, and an occurrence that reaches into a label holds one of
 * its brackets or lies inside it. A grown span's values mostly add values its older messages do not
 * hold: a text masked with the values before is then masked alike with the new ones.
 */
export function sameMasking(masked: string, before: readonly string[], now: readonly string[]): boolean {
  if (before === now) return true;
  const added = addedValues(before, now);
  if (added === undefined) return false;
  for (const v of added) if (masked.includes(v) || valuePieces(v).some((p) => masked.includes(p))) return false;
  return true;
}

/**
 * The values of `now` not in `before` when `now` holds all of `before` in the same order and each added
 * value is one {@link sameMasking} may judge by its occurrence alone; else undefined. The last answer is
 * kept: one compaction asks about the same two lists for every request.
 */
function addedValues(before: readonly string[], now: readonly string[]): readonly string[] | undefined {
  if (lastAdded?.before === before && lastAdded.now === now) return lastAdded.added;
  const had = new Set(before);
  const added: string[] = [];
  let k = 0;
  let ok = true;
  for (const v of now) {
    if (!had.has(v)) {
      added.push(v);
      if (v.includes('[') || v.includes(']') || maskLabel('secret').includes(v)) ok = false;
    } else if (before[k++] !== v) ok = false;
  }
  if (k !== before.length) ok = false;
  lastAdded = { before, now, added: ok ? added : undefined };
  return lastAdded.added;
}

let lastAdded: { before: readonly string[]; now: readonly string[]; added: readonly string[] | undefined } | undefined;

/** `value` is, or holds, one of `values` or a whole piece of one ({@link valuePieces}): a name that must not be listed. */
export function holdsSecretValue(value: string, values: readonly string[]): boolean {
  return values.some(
    (v) => value.includes(v) || valuePieces(v).some((p) => value.includes(p) && wholeToken(p).test(value)),
  );
}
