/**
 * Text primitives of the quality benchmark: the plain text of a message, normalization, words, and
 * the "kept" test for a typed message. Written for the benchmark alone: it shares no code with the
 * summarizer, so a defect there cannot hide itself here.
 */
import { createHash } from 'node:crypto';

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

/** Unicode NFC, whitespace runs collapsed to one space, trimmed. */
export function normalize(text: string): string {
  return text.normalize('NFC').replace(/\s+/g, ' ').trim();
}

/** SHA-256 (hex) of the normalized text: the locator's fingerprint of a typed message. */
export function fingerprint(text: string): string {
  return createHash('sha256').update(normalize(text)).digest('hex');
}

const segmenter = new Intl.Segmenter('en', { granularity: 'word' });

/**
 * Words of `text`, lower-cased: ICU word segments that contain a letter or digit (so Japanese and
 * Chinese are split into dictionary words, not whole sentences; punctuation and markup are not
 * words).
 */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const piece of pieces(text.normalize('NFC'))) {
    for (const s of segmenter.segment(piece)) if (s.isWordLike) out.push(s.segment.toLowerCase());
  }
  return out;
}

/**
 * Lines of `text`, long ones cut at a space before 2,000 characters. ICU's segmenter slows down
 * badly on long inputs; no word spans a line break or a space, so the words are the same.
 */
function* pieces(text: string): Generator<string> {
  for (let line of text.split('\n')) {
    while (line.length > 2000) {
      const cut = line.lastIndexOf(' ', 2000);
      const at = cut > 0 ? cut : 2000;
      yield line.slice(0, at);
      line = line.slice(at);
    }
    yield line;
  }
}

/** Length of the word runs that count as "still there" in the 90%-of-words test. */
export const RUN = 8;

/**
 * Index over a context's words: every run of {@link RUN} consecutive words, and the whole word
 * sequence for short messages. Built once per context.
 */
export class WordIndex {
  private readonly grams = new Set<string>();
  private readonly joined: string;
  constructor(text: string) {
    const w = words(text);
    for (let i = 0; i + RUN <= w.length; i++) this.grams.add(w.slice(i, i + RUN).join(' '));
    this.joined = ` ${w.join(' ')} `;
  }
  /** True when the word sequence `seq` occurs contiguously in the context. */
  hasSequence(seq: readonly string[]): boolean {
    return seq.length === 0 || this.joined.includes(` ${seq.join(' ')} `);
  }
  /**
   * Share (0..1) of `seq`'s words that lie inside some run of {@link RUN} consecutive words found
   * in the context. A message shortened in the middle keeps its head and tail runs; scattered
   * common words do not count.
   */
  coverage(seq: readonly string[]): number {
    if (seq.length === 0) return 1;
    if (seq.length < RUN) return this.hasSequence(seq) ? 1 : 0;
    const covered = new Uint8Array(seq.length);
    for (let i = 0; i + RUN <= seq.length; i++) {
      if (this.grams.has(seq.slice(i, i + RUN).join(' '))) covered.fill(1, i, i + RUN);
    }
    let n = 0;
    for (const c of covered) n += c;
    return n / seq.length;
  }
}

/** How a typed message survived in a context. */
export type Kept = 'verbatim' | 'words' | 'no';

/**
 * The rule of the benchmark: kept when the normalized text occurs verbatim in the normalized context,
 * or when at least 90% of its words lie in runs of {@link RUN} words found in the context.
 */
export function keptIn(message: string, contextNormalized: string, index: WordIndex): Kept {
  const n = normalize(message);
  if (n.length > 0 && containsAtWordBounds(contextNormalized, n)) return 'verbatim';
  return index.coverage(words(message)) >= 0.9 ? 'words' : 'no';
}

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/** True when `needle` occurs in `hay` and is not glued to a letter or digit on either side. */
export function containsAtWordBounds(hay: string, needle: string): boolean {
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) {
    const before = at > 0 ? hay[at - 1] : ' ';
    const after = at + needle.length < hay.length ? hay[at + needle.length] : ' ';
    const glued = (c: string, edge: string) => WORD_CHAR.test(c) && WORD_CHAR.test(edge);
    if (!glued(before, needle[0]) && !glued(after, needle[needle.length - 1])) return true;
  }
  return false;
}
