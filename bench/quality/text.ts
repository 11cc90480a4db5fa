/**
 * Text primitives of the quality benchmark: the plain text of a message, normalization, words, and
 * the "kept" test for a typed message (shared with the checkpoint scorecard). It shares no code with
 * the summarizer, so a defect there cannot hide itself here.
 */
import { createHash } from 'node:crypto';
import { normalize } from '../../src/compaction/retention/presence';

// The presence rules are shared with the checkpoint scorecard (src/compaction/retention/presence.ts).
export {
  containsAtWordBounds,
  keptIn,
  normalize,
  RUN,
  WordIndex,
  words,
  type Kept,
} from '../../src/compaction/retention/presence';

/** A message as it appears in a context: OpenAI chat shape, only the fields read here. */
export interface PlainMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id?: string; function?: { name?: string; arguments?: string } }>;
}

/**
 * The text a message carries: string content, or the `text` (and `refusal`) parts joined with a
 * newline. Other parts (images, files) carry no words and are skipped. Tool calls are not included
 * (see {@link toolCallTexts}).
 */
export function messageText(m: PlainMessage): string {
  const c = m.content;
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return '';
  const parts: string[] = [];
  for (const p of c as Array<Record<string, unknown>>) {
    if (typeof p?.text === 'string') parts.push(p.text);
    else if (typeof p?.refusal === 'string') parts.push(p.refusal);
  }
  return parts.join('\n');
}

/** Name and raw argument string of each tool call of `m`. */
export function toolCallTexts(m: PlainMessage): Array<{ name: string; args: string }> {
  return (m.tool_calls ?? []).map((c) => ({ name: c.function?.name ?? '', args: c.function?.arguments ?? '' }));
}

/**
 * Everything of a context a model would read, as one string: content, then each tool call's name and
 * arguments. JSON arguments are given as their string values, so a command or a path is found as
 * written rather than JSON-escaped.
 */
export function contextText(messages: readonly PlainMessage[]): string {
  const out: string[] = [];
  for (const m of messages) {
    out.push(messageText(m));
    for (const c of toolCallTexts(m)) {
      out.push(c.name);
      try {
        jsonStrings(JSON.parse(c.args), out);
      } catch {
        out.push(c.args);
      }
    }
  }
  return out.join('\n');
}

function jsonStrings(v: unknown, out: string[]): void {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) jsonStrings(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) jsonStrings(x, out);
}

/** SHA-256 (hex) of the normalized text: the locator's fingerprint of a typed message. */
export function fingerprint(text: string): string {
  return createHash('sha256').update(normalize(text)).digest('hex');
}
