/**
 * Presence rules: whether an item of a gold set (a typed message, a path, a name, an error) is still
 * in a text, and whether the text presents a resolved error as open. The quality benchmark scores a
 * whole context with them and a checkpoint's scorecard scores the text a compaction wrote, so both
 * judge by the same rules. Written for measurement: no code shared with the summary writer. Pure.
 */
import { commandKey, type ErrorSignature } from './errors';
import { expandFolderLines } from '../summary/ledger/file-names';
import { rootDir } from '../summary/ledger/path-root';
import { stringHash } from '../window-hashes';
import { ownCopy } from '../../tokenizer/own-copy';

export { stringHash, WindowHashes } from '../window-hashes';

/** Unicode NFC, whitespace runs collapsed to one space, trimmed. */
export function normalize(text: string): string {
  return text.normalize('NFC').replace(/\s+/g, ' ').trim();
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
    let known = wordsOfPiece.get(piece);
    if (known === undefined) {
      const read: string[] = [];
      // Kept past the text: copies, not views into it (see ownCopy).
      for (const s of segmenter.segment(piece)) if (s.isWordLike) read.push(ownCopy(s.segment.toLowerCase()));
      if (wordsOfPiece.size >= KEPT_PIECES) wordsOfPiece.clear();
      wordsOfPiece.set(ownCopy(piece), (known = read));
    }
    for (const w of known) out.push(w);
  }
  return out;
}

/**
 * The words of each line (or piece of a long one) segmented lately. A summary is scored against
 * at every compaction, and most of its lines stand unchanged from the summary before (its ledger,
 * the requests it keeps): segmenting it whole again took most of a grown compaction's word index.
 */
const wordsOfPiece = new Map<string, readonly string[]>();
/** Most pieces kept (bounded: dropped all at once when full). */
const KEPT_PIECES = 50_000;

/**
 * Lines of `text`, long ones cut at a space before 2,000 characters. ICU's segmenter slows down
 * badly on long inputs; no word spans a line break or a space, so the words are the same. Each
 * piece is cut again into chunks (see {@link chunks}), the units whose words are kept.
 */
function* pieces(text: string): Generator<string> {
  for (let line of text.split('\n')) {
    while (line.length > 2000) {
      const cut = line.lastIndexOf(' ', 2000);
      const at = cut > 0 ? cut : 2000;
      yield* chunks(line.slice(0, at));
      line = line.slice(at);
    }
    yield* chunks(line);
  }
}

/**
 * `piece` cut before some of its spaces, where the word before the space has a hash with its low
 * three bits clear (and the chunk has {@link CHUNK_MIN} characters): where it is cut depends on the
 * words around the cut only, so a long line that changed in one place (a count, a name added to a
 * list) is segmented again in the chunks that changed, not whole. No word spans a space: the words
 * are the same.
 */
function* chunks(piece: string): Generator<string> {
  if (piece.length < 2 * CHUNK_MIN) {
    yield piece;
    return;
  }
  let start = 0;
  let h = 0;
  for (let i = 0; i < piece.length; i++) {
    const c = piece.charCodeAt(i);
    if (c === 32) {
      if (i - start >= CHUNK_MIN && (h & 7) === 0) {
        yield piece.slice(start, i);
        start = i;
      }
      h = 0;
    } else h = (Math.imul(h, 31) + c) | 0;
  }
  yield piece.slice(start);
}
/** Fewest characters of a chunk cut from a piece (see {@link chunks}). */
const CHUNK_MIN = 64;

/** Length of the word runs that count as "still there" in the 90%-of-words test. */
export const RUN = 8;

/**
 * Index over a text's words: every run of {@link RUN} consecutive words, and the whole word
 * sequence for short messages. Built once per text.
 */
export class WordIndex {
  /** The text's words. */
  private readonly w: readonly string[];
  /**
   * Where the runs of the text start, by their hash (see {@link gramHashes}), in an open-addressing
   * table: `keys[s]` a hash (-1: free slot), `first[s]` the first run with it, `next[i]` the next run
   * after run i with the same hash (-1: none). A run whose hash is not here is not in the text; one
   * whose hash is is compared word by word (words hold no space, so equal words are equal joined runs).
   */
  private readonly keys: Int32Array;
  private readonly first: Int32Array;
  private readonly next: Int32Array;
  /** log2 of the table's size. */
  private readonly bits: number;
  private joined: string | undefined;
  constructor(text: string) {
    const w = (this.w = words(text));
    const hashes = gramHashes(w);
    let bits = 4;
    while (1 << bits < 2 * hashes.length) bits++;
    this.bits = bits;
    this.keys = new Int32Array(1 << bits).fill(-1);
    this.first = new Int32Array(1 << bits);
    this.next = new Int32Array(hashes.length).fill(-1);
    for (let i = hashes.length - 1; i >= 0; i--) {
      const s = this.slot(hashes[i]);
      if (this.keys[s] !== -1) this.next[i] = this.first[s];
      this.keys[s] = hashes[i];
      this.first[s] = i;
    }
  }
  /** The slot of hash `h`: where it is, or the free slot where it would go. */
  private slot(h: number): number {
    const mask = (1 << this.bits) - 1;
    let s = Math.imul(h, 0x9e3779b1) >>> (32 - this.bits);
    while (this.keys[s] !== -1 && this.keys[s] !== h) s = (s + 1) & mask;
    return s;
  }
  /**
   * False when no run of {@link RUN} words with one of `hashes` (see {@link gramHashes}) is in the
   * text, so `coverage` of those words is 0; true when one may be (a hash can collide).
   */
  mayCover(hashes: Int32Array): boolean {
    for (const h of hashes) if (this.keys[this.slot(h)] === h) return true;
    return false;
  }
  /** True when the word sequence `seq` occurs contiguously in the text. */
  hasSequence(seq: readonly string[]): boolean {
    this.joined ??= ` ${this.w.join(' ')} `;
    return seq.length === 0 || this.joined.includes(` ${seq.join(' ')} `);
  }
  /**
   * `coverage(seq) > 0`, where `hashes` is `gramHashes(seq)`: only the runs whose hash the text has
   * are compared word by word (a run of the text has its hash here), and the first found answers.
   */
  coversAny(seq: readonly string[], hashes: Int32Array): boolean {
    if (seq.length < RUN) return this.coverage(seq) > 0;
    for (let i = 0; i < hashes.length; i++) if (this.hasRun(seq, i, hashes[i])) return true;
    return false;
  }
  /**
   * Share (0..1) of `seq`'s words that lie inside some run of {@link RUN} consecutive words found
   * in the text. A message shortened in the middle keeps its head and tail runs; scattered common
   * words do not count.
   */
  coverage(seq: readonly string[]): number {
    if (seq.length === 0) return 1;
    if (seq.length < RUN) return this.hasSequence(seq) ? 1 : 0;
    const hashes = gramHashes(seq);
    const covered = new Uint8Array(seq.length);
    for (let i = 0; i + RUN <= seq.length; i++) {
      if (this.hasRun(seq, i, hashes[i])) covered.fill(1, i, i + RUN);
    }
    let n = 0;
    for (const c of covered) n += c;
    return n / seq.length;
  }
  /** Whether the run of {@link RUN} words of `seq` at `at` (whose hash is `hash`) is a run of the text. */
  private hasRun(seq: readonly string[], at: number, hash: number): boolean {
    const s = this.slot(hash);
    if (this.keys[s] !== hash) return false;
    for (let j = this.first[s]; j !== -1; j = this.next[j]) if (this.runAt(j, seq, at)) return true;
    return false;
  }
  private runAt(j: number, seq: readonly string[], at: number): boolean {
    for (let k = 0; k < RUN; k++) if (this.w[j + k] !== seq[at + k]) return false;
    return true;
  }
}

/**
 * A 30-bit hash of each run of {@link RUN} consecutive words of `seq` (empty when shorter): equal runs
 * have equal hashes, so a run whose hash a text lacks is not in the text (see `WordIndex.mayCover`).
 */
export function gramHashes(seq: readonly string[]): Int32Array {
  const out = new Int32Array(Math.max(0, seq.length - RUN + 1));
  if (out.length === 0) return out;
  const wh = new Int32Array(seq.length);
  for (let i = 0; i < seq.length; i++) wh[i] = stringHash(seq[i], 0, seq[i].length);
  for (let i = 0; i < out.length; i++) {
    let g = 0;
    for (let j = i; j < i + RUN; j++) g = (Math.imul(g, 1_000_003) ^ wh[j]) | 0;
    // 30 bits: a small integer to V8 (a map keyed by it then holds no boxed numbers).
    out[i] = g & 0x3fffffff;
  }
  return out;
}

/** How a typed message survived in a text. */
export type Kept = 'verbatim' | 'words' | 'no';

/**
 * The benchmark's rule: kept when the normalized message occurs verbatim in the normalized text,
 * or when at least 90% of its words lie in runs of {@link RUN} words found in the text.
 */
export function keptIn(message: string, textNormalized: string, index: WordIndex): Kept {
  const n = normalize(message);
  if (n.length > 0 && containsAtWordBounds(textNormalized, n)) return 'verbatim';
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

/**
 * Folder names a summary defines (`$A = /home/u/app`, `$B = c:\\Apps\\app`; earlier summaries wrote
 * them with their last separator, `$A = /home/u/app/`), expanded in place so `$A/src/x.ts` and
 * `$B\\src\\x.ts` read as the full paths.
 */
export function expandRoots(text: string): string {
  const roots = [...text.matchAll(/(\$[A-Z]) = ((?:~?\/|[A-Za-z]:\\)[^\s,]*|[^\s,]*[\\/])(?=[,\s]|$)/g)].flatMap(
    (m) => {
      const dir = rootDir(m[2]);
      return dir === undefined ? [] : [{ name: m[1], dir }];
    },
  );
  let out = text;
  for (const r of roots) out = out.split(`${r.name}${r.dir.charAt(r.dir.length - 1)}`).join(r.dir);
  return out;
}

/**
 * A text with backslashes turned into forward slashes, as {@link hasPathIn} reads it; a files line
 * naming files by folder (`- in src/api/: a.ts, b.ts`) reads as the full paths it names.
 */
export function slashed(text: string): string {
  return expandFolderLines(text).replace(/\\\\/g, '/').replace(/\\/g, '/');
}

/**
 * Whether the path `p` is named in `slashedText` (see {@link slashed}): its full form, or (for a path
 * of more than three components) its last three components at a folder boundary, so a summary may
 * name files relative to the workspace.
 */
export function hasPathIn(slashedText: string, p: string): boolean {
  const k = p.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '');
  if (slashedText.includes(k)) return true;
  const parts = k.split('/').filter(Boolean);
  if (parts.length <= 3) return false;
  const tail = parts.slice(-3).join('/');
  for (let at = slashedText.indexOf(tail); at >= 0; at = slashedText.indexOf(tail, at + 1)) {
    if (at === 0 || /[\s/'"`(:=[]/.test(slashedText[at - 1])) return true;
  }
  return false;
}

/**
 * Whether an open error is still named in a text: its command key (first 40 characters), or its
 * failure line (first 40 characters; either at least 8 characters long) occurs there. A command is
 * also named when the text quotes it in full (in backticks or after a `$ `/`> ` prompt) with what
 * {@link commandKey} leaves out: `cd /x && npm run build 2>&1 | tail -5` names `npm run build`.
 * `normalized` is the text normalized.
 */
export function errorNamedIn(e: ErrorSignature, text: string, normalized: string): boolean {
  if (e.key.length >= 8) {
    const key = e.key.slice(0, 40);
    if (text.includes(key) || quotedCommandKeys(text).includes(key)) return true;
  }
  return e.line.length >= 8 && normalized.includes(normalize(e.line).slice(0, 40));
}

/**
 * The {@link commandKey} of every command quoted in `text` (a backticked span, a `$ ` or `> `
 * prompt line), one a line; kept for the last text asked about (one text is asked about for every
 * open error of a span).
 */
function quotedCommandKeys(text: string): string {
  if (quotedKeys?.text === text) return quotedKeys.keys;
  const keys: string[] = [];
  for (const m of text.matchAll(/`([^`\n]{4,})`|^\s*[$>] (.+)$/gm)) keys.push(commandKey(m[1] ?? m[2]));
  quotedKeys = { text, keys: keys.join('\n') };
  return quotedKeys.keys;
}
let quotedKeys: { text: string; keys: string } | undefined;

/** Cues that a line presents something as still open or failing. */
const OPEN_CUE =
  /\b(?:open|unresolved|fail(?:s|ed|ing|ure)?|errors?|broken|next step|resolve|todo|still|pending|blocked)\b|✗|❌/i;
/** Cues that a line presents it as done. */
const DONE_CUE = /\b(?:resolved|fixed|pass(?:es|ed)?|now (?:works|succeeds)|succeeded|ok|works)\b|✓|✅/i;

/** Lines of `written` that mention `needle` (case-sensitive, whitespace collapsed); none for a needle under 8 characters. */
function linesMentioning(lines: readonly string[], needle: string): string[] {
  return needle.length < 8 ? [] : lines.filter((l) => l.includes(needle));
}

/**
 * Lines that name the command `key` as a whole command: not as part of a longer one (`terraform init`
 * inside `terraform init && terraform plan`, `node -e` inside `npx ts-node -e`).
 */
export function linesNamingCommand(lines: readonly string[], key: string): string[] {
  if (key.length < 8) return [];
  return lines.filter((l) => {
    for (let at = l.indexOf(key); at >= 0; at = l.indexOf(key, at + 1)) {
      const before = l.slice(0, at);
      const after = l.slice(at + key.length);
      if (/(?:&&|\|\||\||;)\s*$|[\w./-]$/.test(before)) continue;
      if (/^\s*(?:&&|\|\||\||;)|^[\w./-]/.test(after)) continue;
      return true;
    }
    return false;
  });
}

/** How much of a command or failure line must appear for a line to mention it, in characters. */
const MENTION = 100;

/** What {@link falseOpens} found. */
export interface FalseOpens {
  /** Resolved errors the text presents as open. */
  falseOpen: number;
  /** Commands that never failed, shown as failing. */
  neverFailedShownFailing: number;
  /** The lines behind the two counts (at most 10), each prefixed with why. */
  lines: string[];
  /** The resolved errors counted in `falseOpen`, in order. */
  resolvedShownOpen: ErrorSignature[];
  /** The commands that never failed and are shown as failing, in the order counted. */
  neverFailedShown: string[];
}

/**
 * False-open count of `written` (the text a compaction wrote: its summary) against the errors of the
 * span: a resolved error whose command key or failure line (first {@link MENTION} characters)
 * appears on a line with an open cue and no done cue; and a command that never failed appearing on
 * such a line. Each line is charged to one command at most (the longest key it holds).
 */
export function falseOpens(
  written: string,
  errors: readonly ErrorSignature[],
  neverFailed: readonly string[],
): FalseOpens {
  const lines = written
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' '))
    .filter((l) => OPEN_CUE.test(l) && !DONE_CUE.test(l));
  const out: string[] = [];
  const resolvedShownOpen: ErrorSignature[] = [];
  for (const e of errors) {
    if (e.state !== 'resolved') continue;
    const hits = [
      ...(e.tool === 'command' ? linesNamingCommand(lines, e.key.slice(0, MENTION)) : linesMentioning(lines, e.key)),
      ...linesMentioning(lines, e.line.replace(/\s+/g, ' ').slice(0, MENTION)),
    ];
    if (hits.length) {
      resolvedShownOpen.push(e);
      out.push(`resolved (${e.resolvedBy}): ${hits[0].slice(0, 240)}`);
    }
  }
  const neverFailedShown: string[] = [];
  const used = new Set<string>();
  for (const c of [...neverFailed].sort((a, b) => b.length - a.length)) {
    const hits = linesNamingCommand(lines, commandKey(c).slice(0, MENTION)).filter((l) => !used.has(l));
    if (hits.length) {
      neverFailedShown.push(c);
      for (const h of hits) used.add(h);
      out.push(`never failed: ${hits[0].slice(0, 240)}`);
    }
  }
  return {
    falseOpen: resolvedShownOpen.length,
    neverFailedShownFailing: neverFailedShown.length,
    lines: out.slice(0, 10),
    resolvedShownOpen,
    neverFailedShown,
  };
}
