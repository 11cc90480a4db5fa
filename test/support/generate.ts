/**
 * Seeded generator of conversations for property tests: parallel tool calls, unanswered calls,
 * images, huge tool results, system messages in the middle.
 */
import type { ChatMessage, Entry } from '../../src/compaction/types';

/** mulberry32: a small, fast, seeded PRNG (public-domain algorithm). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS =
  'the build test file src/app.ts error fixed function returns value config npm run lint passes module import path /tmp/out.log https://example.com/docs issue refactor parser token meter window'.split(
    ' ',
  );

function text(r: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(r() * WORDS.length)]);
  return out.join(' ');
}

/** A base64 PNG data URL whose header says `w`×`h` (pixel data is not valid; only the header is read). */
export function pngDataUrl(w: number, h: number, padBytes = 0): string {
  const b = Buffer.alloc(33 + padBytes);
  b.writeUInt32BE(0x89504e47, 0);
  b.writeUInt32BE(0x0d0a1a0a, 4);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(w, 16);
  b.writeUInt32BE(h, 20);
  return `data:image/png;base64,${b.toString('base64')}`;
}

/** Options of {@link generateConversation}. */
export interface GenOptions {
  turns?: number;
  maxSteps?: number;
}

/** A random but valid conversation of entries with ids `e0`, `e1`, … */
export function generateConversation(seed: number, options: GenOptions = {}): Entry[] {
  const r = rng(seed);
  const msgs: ChatMessage[] = [];
  if (r() < 0.85) msgs.push({ role: 'system', content: `You are a coding agent. ${text(r, 20)}` });
  const turns = 1 + Math.floor(r() * (options.turns ?? 6));
  let call = 0;
  for (let t = 0; t < turns; t++) {
    if (r() < 0.15) {
      msgs.push({
        role: 'user',
        content: [
          { type: 'text', text: text(r, 10) },
          {
            type: 'image_url',
            image_url: { url: pngDataUrl(200 + Math.floor(r() * 3000), 200 + Math.floor(r() * 2000), 4000) },
          },
        ],
      });
    } else msgs.push({ role: 'user', content: `${text(r, 5 + Math.floor(r() * 40))}. Never change the public API.` });
    if (r() < 0.1) msgs.push({ role: 'system', content: `Reminder: ${text(r, 8)}` });
    const steps = Math.floor(r() * (options.maxSteps ?? 6));
    for (let s = 0; s < steps; s++) {
      const n = r() < 0.25 ? 2 + Math.floor(r() * 3) : 1;
      const ids: string[] = [];
      const tool_calls = [];
      for (let k = 0; k < n; k++) {
        const id = `call_${call++}`;
        ids.push(id);
        tool_calls.push({
          id,
          type: 'function' as const,
          function: {
            name: r() < 0.5 ? 'read_file' : 'run_command',
            arguments: JSON.stringify({ path: `src/f${call}.ts`, command: 'npm test' }),
          },
        });
      }
      msgs.push({ role: 'assistant', content: r() < 0.5 ? null : text(r, 8), tool_calls });
      for (const id of ids) {
        const huge = r() < 0.05;
        msgs.push({
          role: 'tool',
          tool_call_id: id,
          content: r() < 0.15 ? `Error: ${text(r, 6)}` : text(r, huge ? 6000 : 10 + Math.floor(r() * 400)),
        });
      }
    }
    msgs.push({ role: 'assistant', content: text(r, 5 + Math.floor(r() * 30)) });
  }
  if (r() < 0.2) {
    // A call still waiting for its result (an approval pending).
    msgs.push({ role: 'user', content: 'delete the build directory' });
    msgs.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `call_${call++}`, type: 'function', function: { name: 'confirm_action', arguments: '{}' } }],
    });
  }
  return msgs.map((message, i) => ({ id: `e${i}`, message }));
}

/** A counter of about 4 characters per token: fast, for structural properties. */
export const quarterCounter = { encoding: 'o200k_base' as const, countText: (t: string) => Math.ceil(t.length / 4) };
