/**
 * The counter's pre-tokenizer split without the regex (src/tokenizer/pieces.ts) against the
 * encodings' patterns themselves, and its bounded piece cache (src/tokenizer/piece-cache.ts): the
 * split must give the regex's pieces exactly, and counts must stay exact when the cache starts over.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scanFor } from '../../src/tokenizer/pieces';
import { MAX_CACHED_CHARS, PieceCache } from '../../src/tokenizer/piece-cache';
import { createTokenCounter, type EncodingName } from '../../src/tokenizer/tokenizer';
import { classText, TEXT_CLASSES } from '../support/token-corpus';
import { rng } from '../support/generate';

/* eslint-disable @typescript-eslint/no-require-imports */
function pattern(name: EncodingName): string {
  const mod = require(`js-tiktoken/ranks/${name}`) as { default?: { pat_str: string }; pat_str?: string };
  return (mod.default ?? (mod as { pat_str: string })).pat_str;
}
function jsTiktoken(name: EncodingName): (t: string) => number {
  const { Tiktoken } = require('js-tiktoken/lite') as {
    Tiktoken: new (r: unknown) => { encode(t: string, a: string[], d: string[]): number[] };
  };
  const ranks = require(`js-tiktoken/ranks/${name}`) as { default?: unknown };
  const enc = new Tiktoken(ranks.default ?? ranks);
  return (t) => enc.encode(t, [], []).length;
}
/* eslint-enable @typescript-eslint/no-require-imports */

/** Every ASCII character, and characters above U+007F that the patterns treat specially. */
const ASCII = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c));
const OTHER = [
  'é',
  'É',
  'ǅ',
  'ʰ',
  '\u0301',
  '²',
  '٣',
  '\u00a0',
  '\u3000',
  '\u2028',
  '\ufeff',
  '\u0085',
  'ſ',
  'K',
  '🙂',
  '\ud800',
  '中',
  'ß',
];
/** Characters the contractions, words and whitespace runs are made of, drawn more often. */
const FREQUENT = [..."sStTmMdDrRvVeElL'  \n\n\r\t/"];

/** Random strings: half ASCII only, half with characters above U+007F. */
function randomTexts(seed: number, count: number): string[] {
  const r = rng(seed);
  const out: string[] = [];
  for (let k = 0; k < count; k++) {
    const withOther = k % 2 === 1;
    let t = '';
    const len = 1 + Math.floor(r() * 24);
    for (let j = 0; j < len; j++) {
      const x = r();
      const from = x < 0.4 ? FREQUENT : withOther && x > 0.85 ? OTHER : ASCII;
      t += from[Math.floor(r() * from.length)];
    }
    out.push(t);
  }
  return out;
}

for (const name of ['cl100k_base', 'o200k_base'] as const) {
  test(`${name}: the split without the regex ends every piece where the pattern does`, () => {
    const scan = scanFor(pattern(name));
    assert.ok(scan, 'the encoding pattern is recognised');
    const re = new RegExp(pattern(name), 'gu');
    let asciiPieces = 0;
    let asciiDecided = 0;
    const texts = [
      ...randomTexts(name.length, 40_000),
      ...TEXT_CLASSES.flatMap((cls) => [1, 2, 3].map((s) => classText(cls, s, 4000))),
    ];
    for (const text of texts) {
      const ascii = !/[^\x00-\x7f]/.test(text);
      for (const m of text.matchAll(re)) {
        const end = scan(text, m.index);
        if (ascii) {
          asciiPieces++;
          if (end >= 0) asciiDecided++;
        }
        if (end >= 0)
          assert.equal(
            JSON.stringify(text.slice(m.index, end)),
            JSON.stringify(m[0]),
            `${JSON.stringify(text)} at ${m.index}`,
          );
      }
    }
    // The scan is the fast path: on ASCII text it must decide (almost) every piece itself.
    assert.ok(
      asciiDecided / asciiPieces > 0.99,
      `${asciiDecided} of ${asciiPieces} ASCII pieces decided without the regex`,
    );
  });

  test(`${name}: counts equal js-tiktoken on random strings of ASCII and other characters`, () => {
    const ours = createTokenCounter(name);
    const ref = jsTiktoken(name);
    for (const text of randomTexts(7 + name.length, 3000))
      assert.equal(ours.countText(text), ref(text), JSON.stringify(text));
  });
}

test('an unknown pattern gets no scan (the counter runs the pattern itself)', () => {
  assert.equal(scanFor('\\p{L}+|\\s+|.'), undefined);
  assert.equal(scanFor(`${pattern('cl100k_base')}|x`), undefined);
});

test('the piece cache returns what was stored, by characters, and starts over when full', () => {
  const cache = new PieceCache();
  const text = 'alpha beta alpha';
  assert.equal(cache.get(text, 0, 5), -1);
  cache.set(text, 0, 5, 2);
  assert.equal(cache.get(text, 11, 16), 2, 'the same characters at another offset');
  assert.equal(cache.get('alphA', 0, 5), -1);
  assert.equal(cache.get(text, 6, 10), -1);
  // Far more distinct pieces than it holds: every hit must give the count stored for those characters.
  const r = rng(3);
  let hits = 0;
  let maxSize = 0;
  for (let k = 0; k < 200_000; k++) {
    const piece = `p${Math.floor(r() * 60_000).toString(36)}${'x'.repeat((k % MAX_CACHED_CHARS) >> 3)}`;
    const expected = piece.length * 7 + 1;
    const got = cache.get(piece, 0, piece.length);
    if (got >= 0) {
      hits++;
      assert.equal(got, expected, piece);
    } else cache.set(piece, 0, piece.length, expected);
    maxSize = Math.max(maxSize, cache.size);
  }
  assert.ok(hits > 0);
  assert.ok(cache.size < maxSize, 'the cache started over when full');
  assert.ok(cache.byteSize < 4e6, `${cache.byteSize} bytes`);
});

test('counts stay exact across the piece cache starting over (cl100k_base)', () => {
  const ours = createTokenCounter('cl100k_base');
  const ref = jsTiktoken('cl100k_base');
  const r = rng(11);
  // About 60,000 distinct words, more than the cache holds, counted twice in texts of 20,000 characters.
  const words = Array.from({ length: 60_000 }, () =>
    Array.from({ length: 3 + Math.floor(r() * 8) }, () => String.fromCharCode(97 + Math.floor(r() * 26))).join(''),
  );
  for (let pass = 0; pass < 2; pass++) {
    for (let at = 0; at < words.length; at += 3000) {
      const text = words.slice(at, at + 3000).join(at % 2 ? ' ' : '_');
      assert.equal(ours.countText(text), ref(text), `pass ${pass}, words from ${at}`);
    }
  }
});
