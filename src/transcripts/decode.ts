/**
 * Strict UTF-8 decoding. Recorded transcripts are UTF-8 JSON or Markdown; a stray Latin-1 byte means
 * the file was damaged or is not a transcript, so it is an error rather than a replacement character.
 */
import { TranscriptError } from './errors';

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes `input` as UTF-8 (a leading BOM is dropped).
 * @throws TranscriptError naming the line of the first invalid byte sequence
 */
export function decodeUtf8(input: string | Uint8Array, file: string): string {
  if (typeof input === 'string') return input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  try {
    const text = decoder.decode(input);
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch (cause) {
    const offset = firstInvalidUtf8(input);
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
