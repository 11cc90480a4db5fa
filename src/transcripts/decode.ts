/**
 * Strict UTF-8 decoding. Recorded transcripts are UTF-8 JSON or Markdown; a stray Latin-1 byte means
 * the file was damaged or is not a transcript, so it is an error rather than a replacement character.
 */
import { constants } from 'node:buffer';
import { TranscriptError } from './errors';

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Longest text read in one piece, in UTF-16 code units: the engine's longest string
 * (`buffer.constants.MAX_STRING_LENGTH`; V8 on 64-bit: 2^29 - 24, about 512 Mi).
 */
export const MAX_TEXT_CHARS = constants.MAX_STRING_LENGTH;

/** "600 MB" / "1.2 GB" for messages (decimal units, as file managers show sizes). */
function megabytes(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${Math.round(bytes / 1e6)} MB`;
}

/**
 * The error for a file too large to read in one piece: its size and the limit, not a decoding fault.
 * @param bytes the file's size in bytes; `maxChars` the limit in characters.
 */
export function tooLargeError(
  file: string,
  bytes: number,
  maxChars = MAX_TEXT_CHARS,
  cause?: unknown,
): TranscriptError {
  const limit =
    maxChars >= 1024 * 1024
      ? `${Math.round(maxChars / (1024 * 1024))} MiB`
      : `${maxChars.toLocaleString('en-US')} characters`;
  return new TranscriptError(
    file,
    0,
    '',
    `${megabytes(bytes)} is larger than ContextKeeper reads in one piece (at most about ${limit} of text, the longest string the JavaScript engine holds); only a plain JSON array of chat messages is read in pieces`,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Decodes `input` as UTF-8 (a leading BOM is dropped).
 * @param maxChars longest text accepted, in UTF-16 code units (default {@link MAX_TEXT_CHARS}).
 * @throws TranscriptError naming the line of the first invalid byte sequence; for bytes that cannot
 *   fit in `maxChars` (or fail to decode with no invalid sequence: the engine's string limit), one
 *   naming the size and the limit ({@link tooLargeError}).
 */
export function decodeUtf8(input: string | Uint8Array, file: string, maxChars = MAX_TEXT_CHARS): string {
  if (typeof input === 'string') return input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  // Every UTF-16 code unit takes at least one and at most three UTF-8 bytes.
  if (input.length > 3 * maxChars) throw tooLargeError(file, input.length, maxChars);
  try {
    const text = decoder.decode(input);
    if (text.length > maxChars) throw tooLargeError(file, input.length, maxChars);
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch (cause) {
    if (cause instanceof TranscriptError) throw cause;
    const offset = firstInvalidUtf8(input);
    // Valid bytes over the engine's string limit fail to decode too: say so rather than blame a byte.
    if (offset >= input.length) throw tooLargeError(file, input.length, maxChars, cause);
    let line = 1;
    for (let i = 0; i < offset && i < input.length; i++) if (input[i] === 0x0a) line++;
    throw new TranscriptError(
      file,
      line,
      '',
      `invalid UTF-8 byte 0x${(input[offset] ?? 0).toString(16)} at byte ${offset}`,
      { cause },
    );
  }
}

/** Byte offset of the first invalid UTF-8 sequence (input.length when none is found). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    let need: number;
    let min: number;
    if (b < 0x80) {
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else return i;
    let code = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      code = (code << 6) | (c & 0x3f);
    }
    // Overlong forms, surrogates and values above U+10FFFF are invalid too.
    if (code < min || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) return i;
    i += need + 1;
  }
  return bytes.length;
}
