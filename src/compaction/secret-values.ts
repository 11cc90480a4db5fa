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
  let hit = valuesOf.get(message);
  if (hit) return hit;
  const parts = [textWithPlaceholders(message.content)];
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
  valuesOf.set(message, hit);
  return hit;
}

/** Every string in `value` (a parsed JSON value), into `out`; arrays and objects at any depth. */
function stringsOf(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) stringsOf(v, out);
}

/**
 * Every secret value of the messages of `items` (see the module comment), longest first (a value
 * that holds another is masked whole).
 */
export function spanSecretValues(items: ReadonlyArray<{ message: object }>): string[] {
  const all = new Set<string>();
  for (const it of items) for (const v of messageValues(it.message)) all.add(v);
  return [...all].sort((a, b) => b.length - a.length);
}

/**
 * `text` with {@link maskSecrets} applied and every one of `values` (from {@link spanSecretValues})
 * replaced by `[masked secret]`. Idempotent.
 */
export function maskSecretValues(text: string, values: readonly string[]): string {
  let out = maskSecrets(text);
  for (const v of values) if (out.includes(v)) out = out.split(v).join(maskLabel('secret'));
  return out;
}

/** `value` is, or holds, one of `values`: a name that must not be listed. */
export function holdsSecretValue(value: string, values: readonly string[]): boolean {
  return values.some((v) => value.includes(v));
}
