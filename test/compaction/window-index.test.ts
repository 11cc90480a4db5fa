/**
 * The window index answers `text.includes(s)` exactly: for strings the text holds (at its start, its
 * end, anywhere, many times), for strings it does not hold (also ones sharing a common first or last
 * window with many places of the text), for strings shorter than a window, and in a text shorter than
 * one.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { WindowIndex } from '../../src/compaction/window-hashes';
import { rng } from '../support/generate';

test('the window index gives text.includes for held, absent, short and long strings', () => {
  const r = rng(11);
  // A small alphabet and repeated stems: many windows share a bucket, many strings share a start.
  const stems = ['src/compaction/', 'src/compaction/summary/', 'test/', 'Next.js', 'npm run build', 'abcdefgh'];
  const piece = () =>
    r() < 0.5 ? stems[Math.floor(r() * stems.length)] : Math.floor(r() * 1e6).toString(36) + (r() < 0.3 ? '\n' : ' ');
  for (const length of [0, 5, 8, 9, 200, 5000]) {
    let text = '';
    while (text.length < length) text += piece();
    text = text.slice(0, length);
    const index = new WindowIndex(text, 8);
    const asked: string[] = [];
    for (let k = 0; k < 400; k++) {
      // A piece of the text (often at its very start or end), or a made-up string near one.
      const at = r() < 0.1 ? 0 : Math.floor(r() * text.length);
      const len = 1 + Math.floor(r() * 30);
      const held = text.slice(at, at + len);
      asked.push(held, r() < 0.1 ? text.slice(-len) : held);
      asked.push(`${held}x`, `src/compaction/${Math.floor(r() * 1e4)}.ts`, `${stems[k % stems.length]}${piece()}`);
    }
    let found = 0;
    for (const s of asked) {
      assert.equal(index.includes(s), text.includes(s), JSON.stringify({ s, length }));
      if (s.length >= 8 && text.includes(s)) found++;
    }
    if (length >= 200) assert.ok(found > 50, `${found} held strings of a window or more`);
  }
});
