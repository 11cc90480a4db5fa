/**
 * Image token estimates. Images are never counted by the length of their base64 data.
 *
 * Source: OpenAI's vision pricing rule for GPT-4o-class models — `detail: "low"` costs 85 tokens;
 * `high`/`auto` scales the image to fit 2048×2048, then so its shortest side is 768 px, and costs
 * 170 tokens per 512-px tile plus 85.
 */

/** Tokens for an image of unknown size (a 1024×1024 image at high detail: 4 tiles). */
export const DEFAULT_IMAGE_TOKENS = 765;

/** Estimated prompt tokens of one image of `width`×`height` pixels. */
export function imageTokens(width: number | undefined, height: number | undefined, detail?: string): number {
  if (detail === 'low') return 85;
  if (!width || !height || width <= 0 || height <= 0) return DEFAULT_IMAGE_TOKENS;
  let w = width;
  let h = height;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shrink = Math.min(1, 768 / Math.min(w, h));
  w *= shrink;
  h *= shrink;
  return 170 * Math.ceil(w / 512) * Math.ceil(h / 512) + 85;
}

/**
 * Reads pixel size from the start of a `data:` URL (PNG IHDR or JPEG SOF marker) without decoding
 * the whole image. Returns undefined when the header is not recognised.
 */
export function imageSizeFromDataUrl(url: string): { width: number; height: number } | undefined {
  const comma = url.indexOf(',');
  if (!url.startsWith('data:') || comma < 0 || !url.slice(0, comma).includes('base64')) return undefined;
  // 64 KiB of base64 holds any realistic JPEG header position.
  const head = Buffer.from(url.slice(comma + 1, comma + 1 + 65536), 'base64');
  if (head.length >= 24 && head.readUInt32BE(0) === 0x89504e47 && head.toString('latin1', 12, 16) === 'IHDR') {
    return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
  }
  if (head.length > 4 && head[0] === 0xff && head[1] === 0xd8) {
    let i = 2;
    while (i + 9 < head.length) {
      if (head[i] !== 0xff) return undefined;
      const marker = head[i + 1];
      const len = head.readUInt16BE(i + 2);
      // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { height: head.readUInt16BE(i + 5), width: head.readUInt16BE(i + 7) };
      }
      i += 2 + len;
    }
  }
  return undefined;
}
