import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clipMiddle, clipMiddleToTokens } from '../../src/compaction/clip';

test('clipMiddle returns short text unchanged', () => {
  assert.equal(clipMiddle('hello', 5), 'hello');
});

test('clipMiddle keeps head and tail within the limit and reports the removed count', () => {
  const text = 'A'.repeat(500) + 'B'.repeat(500);
  const out = clipMiddle(text, 200);
  assert.ok(out.length <= 200, `length ${out.length}`);
  assert.ok(out.startsWith('AAAA') && out.endsWith('BBBB'));
  const removed = Number(/\[… (\d+) characters clipped …\]/.exec(out)?.[1]);
  const marker = `\n[… ${removed} characters clipped …]\n`;
  assert.equal(out.length - marker.length + removed, text.length);
});

test('clipMiddle never splits a surrogate pair, at any limit', () => {
  const text = '😀'.repeat(200) + 'x' + '🎉'.repeat(200);
  for (let max = 0; max < 120; max++) {
    const out = clipMiddle(text, max, (n) => `[${n}]`);
    assert.ok(out.length <= max, `max ${max}: ${out.length}`);
    assert.ok(
      !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(out),
      `lone surrogate at max ${max}`,
    );
    assert.ok(!Buffer.from(out, 'utf8').toString('utf8').includes('\uFFFD'));
  }
});

test('clipMiddleToTokens fits the token bound of a given counter', () => {
  const count = (s: string): number => Math.ceil(s.length / 4);
  const text = 'word '.repeat(2000);
  const out = clipMiddleToTokens(text, 100, count);
  assert.ok(count(out) <= 100);
  assert.ok(count(out) >= 95, 'uses most of the bound');
  assert.equal(clipMiddleToTokens('short', 100, count), 'short');
});
