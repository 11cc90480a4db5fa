/**
 * The presence checks' indexes give what the rules read literally give: the word index finds a run
 * of words exactly where the text's words hold it (also for runs whose hashes collide), and the
 * filter of a text's window hashes never rules out a string the text holds.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { gramHashes, RUN, WordIndex, words } from '../../../src/compaction/retention/presence';
import { stringHash, WindowHashes } from '../../../src/compaction/window-hashes';
import { rng } from '../../support/generate';

/** `WordIndex.coverage` read literally: every run of RUN words of `seq` looked for among the text's runs. */
function coverageLiterally(text: string, seq: readonly string[]): number {
  const w = words(text);
  const runs = new Set<string>();
  for (let i = 0; i + RUN <= w.length; i++) runs.add(w.slice(i, i + RUN).join(' '));
  if (seq.length === 0) return 1;
  if (seq.length < RUN) return ` ${w.join(' ')} `.includes(` ${seq.join(' ')} `) ? 1 : 0;
  const covered = new Uint8Array(seq.length);
  for (let i = 0; i + RUN <= seq.length; i++)
    if (runs.has(seq.slice(i, i + RUN).join(' '))) covered.fill(1, i, i + RUN);
  return covered.reduce((a, b) => a + b, 0) / seq.length;
}

test('the word index covers a request exactly where the runs of its words are in the text', () => {
  const r = rng(5);
  // A small vocabulary repeats runs often; some words differ only in case or script.
  const vocab = ['parse', 'the', 'config', 'Config', 'test', 'src/a.ts', 'npm', 'run', 'ビルド', 'ok', 'x1', 'fails'];
  const sentence = (n: number) => Array.from({ length: n }, () => vocab[Math.floor(r() * vocab.length)]).join(' ');
  let some = 0;
  for (let k = 0; k < 200; k++) {
    const text = Array.from({ length: 6 }, () => sentence(20)).join('\n');
    const index = new WordIndex(text);
    // Requests: pieces of the text (covered), random sentences (mostly not), short ones.
    const lines = text.split('\n');
    for (const request of [lines[k % 6].slice(5), sentence(12), sentence(3), `${lines[1]} ${sentence(9)}`, '']) {
      const seq = words(request);
      const want = coverageLiterally(text, seq);
      assert.equal(index.coverage(seq), want, `text ${k}, request ${request}`);
      assert.equal(index.coversAny(seq, gramHashes(seq)), want > 0, `text ${k}, request ${request}`);
      if (want > 0 && want < 1) some++;
    }
  }
  assert.ok(some > 0, 'some requests are partly covered');
});

test('runs whose hashes collide are told apart word by word', () => {
  // Two runs with one hash: a text holding one of them does not cover the other.
  const r = rng(11);
  const seen = new Map<number, string[]>();
  let pair: [string[], string[]] | undefined;
  while (!pair) {
    const run = Array.from({ length: RUN }, () => `w${Math.floor(r() * 1e6)}`);
    const h = gramHashes(run)[0];
    const other = seen.get(h);
    if (other && other.join(' ') !== run.join(' ')) pair = [other, run];
    else seen.set(h, run);
  }
  const index = new WordIndex(pair[0].join(' '));
  assert.equal(gramHashes(pair[0])[0], gramHashes(pair[1])[0]);
  assert.equal(index.coverage(pair[0]), 1);
  assert.equal(index.coverage(pair[1]), 0);
  assert.equal(index.coversAny(pair[1], gramHashes(pair[1])), false);
});

test('the window filter holds the hash of every window of the text and rules out most others', () => {
  const r = rng(3);
  const alphabet = 'abcdefghij /._-\nÄ漢';
  const text = Array.from({ length: 5000 }, () => alphabet[Math.floor(r() * alphabet.length)]).join('');
  for (const size of [8, 32]) {
    const filter = new WindowHashes(text, size);
    for (let i = 0; i + size <= text.length; i++) assert.ok(filter.has(stringHash(text, i, i + size)), `window ${i}`);
    let admitted = 0;
    for (let k = 0; k < 1000; k++) {
      const absent = `zz${k}qq${'y'.repeat(size)}`.slice(0, size);
      if (filter.has(stringHash(absent, 0, size))) admitted++;
    }
    assert.ok(admitted < 100, `size ${size}: ${admitted} of 1000 absent strings admitted`);
  }
  assert.equal(new WindowHashes('short', 8).has(stringHash('shortxyz', 0, 8)), false);
});

test('the words of a long line, segmented in chunks and kept per chunk, are those of the whole line', () => {
  const r = rng(8);
  const vocab = [
    'Parse',
    'config.json',
    'src/a.ts',
    'npm',
    '3.14',
    "don't",
    'e-mail',
    'ビルド',
    '漢字です',
    '  ',
    'x_1',
    'Ä',
  ];
  const segmenter = new Intl.Segmenter('en', { granularity: 'word' });
  const literally = (t: string) =>
    [...segmenter.segment(t.normalize('NFC'))].filter((s) => s.isWordLike).map((s) => s.segment.toLowerCase());
  for (let k = 0; k < 50; k++) {
    const line = Array.from({ length: 400 }, () => vocab[Math.floor(r() * vocab.length)]).join(' ');
    assert.deepEqual(words(line), literally(line), `line ${k}`);
    // The same line with one word changed: read again through the chunks kept, still the same words.
    const changed = line.replace('npm', 'pnpm');
    assert.deepEqual(words(changed), literally(changed), `line ${k}, changed`);
  }
});
