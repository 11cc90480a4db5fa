/**
 * The pre-tokenizer split of cl100k_base and o200k_base without running the regular expression on
 * ASCII text: the end of the piece that starts at a position, decided by a hand-written scan that
 * follows the pattern's alternatives in order, exactly as the regex engine does (JavaScript
 * semantics, js-tiktoken's `pat_str`). A scan returns -1 when its decision would look at any
 * character above U+007F (letters, marks, digits and spaces of other scripts): the caller then runs
 * the pattern itself, anchored at that position, for that one piece. Every piece starts where the
 * previous one ended (the patterns match at every position), so mixing the two gives the regex's split.
 * Tested against the pattern on every class of text and on random ASCII and mixed strings.
 */

/** How a scan finds the end of the piece at `i` of `text`: an index, or -1 when it cannot decide. */
export type PieceScan = (text: string, i: number) => number;

/** js-tiktoken's pattern of cl100k_base (its case-insensitive contractions spelled out). */
const CL100K =
  "('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const CONTRACTION = "('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?";
/** js-tiktoken's pattern of o200k_base. */
const O200K =
  `[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+${CONTRACTION}` +
  `|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*${CONTRACTION}` +
  '|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+';

/** The scan for `pattern` when it is one of the two above, character for character; else undefined. */
export function scanFor(pattern: string): PieceScan | undefined {
  if (pattern === CL100K) return cl100kEnd;
  if (pattern === O200K) return o200kEnd;
  return undefined;
}

// Classes of ASCII characters, as the patterns see them (JavaScript's \s is 9-13 and 32 in ASCII).
const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;
/** Whitespace other than CR and LF: may start a word as its one leading character. */
const BLANK = 4;
const NEWLINE = 5;
/** Neither letter, digit nor whitespace. */
const PUNCT = 6;
const KIND = new Uint8Array(128).fill(PUNCT);
for (let c = 97; c <= 122; c++) KIND[c] = LOWER;
for (let c = 65; c <= 90; c++) KIND[c] = UPPER;
for (let c = 48; c <= 57; c++) KIND[c] = DIGIT;
for (const c of [9, 11, 12, 32]) KIND[c] = BLANK;
KIND[10] = NEWLINE;
KIND[13] = NEWLINE;

/** Kind of the character at `i`, 0 past the end, -1 above U+007F. */
function kindAt(text: string, i: number): number {
  if (i >= text.length) return 0;
  const c = text.charCodeAt(i);
  return c < 128 ? KIND[c] : -1;
}

/** End of the run of letters from `i` (a letter), or -1 when it reaches a character above U+007F. */
function lettersEnd(text: string, i: number): number {
  let k = kindAt(text, i);
  while (k === LOWER || k === UPPER) k = kindAt(text, ++i);
  return k < 0 ? -1 : i;
}

/** `\p{N}{1,3}` from a digit at `i`. */
function digitsEnd(text: string, i: number): number {
  const stop = i + 3;
  let k = DIGIT;
  while (k === DIGIT && i < stop) k = kindAt(text, ++i);
  // A digit of another script would extend the run: the regex decides.
  return k < 0 && i < stop ? -1 : i;
}

/** ` ?[^\s\p{L}\p{N}]+` from the first punctuation character at `i`, then the trailing newlines (and slashes when `slash`). */
function punctEnd(text: string, i: number, slash: boolean): number {
  let k = PUNCT;
  while (k === PUNCT) k = kindAt(text, ++i);
  if (k < 0) return -1;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13 || (slash && c === 47)) i++;
    else return i;
  }
}

/**
 * The whitespace alternatives from `i` (whitespace): `\s*[\r\n]+` ends after the last CR or LF of the
 * run; else `\s+(?!\S)` ends before its last character unless the run ends the text; else `\s+`.
 */
function spaceEnd(text: string, i: number): number {
  const start = i;
  let lastNewline = -1;
  let k = kindAt(text, i);
  while (k === BLANK || k === NEWLINE) {
    if (k === NEWLINE) lastNewline = i;
    k = kindAt(text, ++i);
  }
  if (k < 0) return -1;
  if (lastNewline >= 0) return lastNewline + 1;
  if (k === 0) return i;
  return i - start >= 2 ? i - 1 : i;
}

/** cl100k_base's contraction at `i` (an apostrophe): its end, or -1 when there is none. */
function contractionEnd(text: string, i: number): number {
  const a = text.charCodeAt(i + 1) | 32;
  if (a === 115 || a === 116 || a === 109 || a === 100) return i + 2; // s t m d
  const b = text.charCodeAt(i + 2) | 32;
  if ((a === 114 || a === 118) && b === 101) return i + 3; // re ve
  if (a === 108 && b === 108) return i + 3; // ll
  return -1;
}

/** The piece of cl100k_base's pattern at `i`. */
function cl100kEnd(text: string, i: number): number {
  const k = kindAt(text, i);
  if (k === LOWER || k === UPPER) return lettersEnd(text, i);
  if (k === DIGIT) return digitsEnd(text, i);
  if (k === NEWLINE) return spaceEnd(text, i);
  if (k < 0) return -1;
  // BLANK or PUNCT: a contraction, then one leading character of a word, then punctuation.
  if (text.charCodeAt(i) === 39) {
    const e = contractionEnd(text, i);
    if (e >= 0) return e;
  }
  const next = kindAt(text, i + 1);
  if (next < 0) return -1;
  if (next === LOWER || next === UPPER) return lettersEnd(text, i + 1);
  if (k === PUNCT) return punctEnd(text, i, false);
  if (next === PUNCT && text.charCodeAt(i) === 32) return punctEnd(text, i + 1, false);
  return spaceEnd(text, i);
}

/** End of o200k_base's word from its first letter at `i`: capitals, then small letters, then a contraction. */
function o200kWordEnd(text: string, i: number): number {
  let k = kindAt(text, i);
  while (k === UPPER) k = kindAt(text, ++i);
  while (k === LOWER) k = kindAt(text, ++i);
  if (k < 0) return -1;
  if (text.charCodeAt(i) !== 39) return i;
  // Spelled-out cases, no case folding: a character above U+007F is simply no contraction.
  const a = text.charCodeAt(i + 1) | 32;
  if (a === 115 || a === 116 || a === 109 || a === 100) return i + 2;
  const b = text.charCodeAt(i + 2) | 32;
  if (((a === 114 || a === 118) && b === 101) || (a === 108 && b === 108)) return i + 3;
  return i;
}

/** The piece of o200k_base's pattern at `i`. */
function o200kEnd(text: string, i: number): number {
  const k = kindAt(text, i);
  if (k === LOWER || k === UPPER) return o200kWordEnd(text, i);
  if (k === DIGIT) return digitsEnd(text, i);
  if (k === NEWLINE) return spaceEnd(text, i);
  if (k < 0) return -1;
  const next = kindAt(text, i + 1);
  if (next < 0) return -1;
  if (next === LOWER || next === UPPER) return o200kWordEnd(text, i + 1);
  if (k === PUNCT) return punctEnd(text, i, true);
  if (next === PUNCT && text.charCodeAt(i) === 32) return punctEnd(text, i + 1, true);
  return spaceEnd(text, i);
}
