/**
 * Image helpers: build OpenAI image parts from base64 data and read pixel sizes from the file header,
 * so the token meter can estimate images by size instead of by base64 length.
 */
import type { ChatCompletionContentPartImage } from 'openai/resources/chat/completions';

/** Pixel size of an image. */
export interface ImageSize {
  width: number;
  height: number;
}

/** An OpenAI image part for base64 `data` of type `mime`. */
export function imagePart(mime: string, data: string): ChatCompletionContentPartImage {
  return { type: 'image_url', image_url: { url: `data:${mime};base64,${data}` } };
}

/** Pixel size read from a `data:` URL, or undefined (remote URL, unknown type, damaged header). */
export function imageSizeFromUrl(url: string): ImageSize | undefined {
  const match = /^data:[^;,]*;base64,/.exec(url);
  if (!match) return undefined;
  return imageSizeFromBase64(url.slice(match[0].length));
}

// JPEG size markers can sit after an embedded EXIF thumbnail; 256 KiB of header covers real files.
const HEADER_BYTES = 256 * 1024;

/** Pixel size of a PNG, JPEG, GIF or WebP given as base64, read from its header only. */
export function imageSizeFromBase64(data: string): ImageSize | undefined {
  const chars = Math.min(data.length, Math.ceil(HEADER_BYTES / 3) * 4);
  let bytes: Buffer;
  try {
    bytes = Buffer.from(data.slice(0, chars - (chars % 4)), 'base64');
  } catch {
    return undefined;
  }
  return imageSize(bytes);
}

/** Pixel size from the first bytes of an image file. */
export function imageSize(b: Uint8Array): ImageSize | undefined {
  const u32 = (i: number) => ((b[i] << 24) | (b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]) >>> 0;
  const u16 = (i: number) => (b[i] << 8) | b[i + 1];
  const le16 = (i: number) => b[i] | (b[i + 1] << 8);
  // PNG: signature, then the IHDR chunk holds width and height.
  if (b.length >= 24 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) {
    return valid(u32(16), u32(20));
  }
  // GIF: logical screen size right after the signature.
  if (b.length >= 10 && b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46) return valid(le16(6), le16(8));
  // WebP: RIFF container with a VP8, VP8L or VP8X chunk.
  if (b.length >= 30 && u32(0) === 0x52494646 && u32(8) === 0x57454250) {
    const chunk = String.fromCharCode(b[12], b[13], b[14], b[15]);
    if (chunk === 'VP8 ') return valid(le16(26) & 0x3fff, le16(28) & 0x3fff);
    if (chunk === 'VP8L') {
      const bits = b[21] | (b[22] << 8) | (b[23] << 16) | (b[24] << 24);
      return valid((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
    }
    if (chunk === 'VP8X') {
      return valid(1 + (b[24] | (b[25] << 8) | (b[26] << 16)), 1 + (b[27] | (b[28] << 8) | (b[29] << 16)));
    }
    return undefined;
  }
  // JPEG: walk the segments to the first start-of-frame marker.
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    let i = 2;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) return undefined;
      const marker = b[i + 1];
      if (marker === 0xff) {
        i++;
        continue;
      }
      const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
      if (isFrame) return valid(u16(i + 7), u16(i + 5));
      if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
        i += 2;
        continue;
      }
      i += 2 + u16(i + 2);
    }
  }
  return undefined;
}

function valid(width: number, height: number): ImageSize | undefined {
  return width > 0 && height > 0 ? { width, height } : undefined;
}
