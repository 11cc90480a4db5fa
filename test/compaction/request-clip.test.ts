/**
 * A long request shortened in the middle is cut at word (or sentence) boundaries, with the marker
 * saying how many characters were left out; it is never cut mid-word.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shortenMiddle } from '../../src/compaction/summary/requests-section';

const MARKER = / \[… ([\d,]+) characters of this request left out …\] /;

test('a request shortened in the middle keeps whole words on both sides of the marker', () => {
  const request =
    'one more feedback which i recently got that as we will also have a roadmap so i think you know that in our roadmap we are going through the split mode first then we will have everything indexed in the docs page and chunked';
  for (const max of [40, 60, 77, 120, 150]) {
    const out = shortenMiddle(request, max);
    const m = MARKER.exec(out);
    assert.ok(m, out);
    const [head, tail] = out.split(m[0]);
    assert.ok(request.startsWith(head), `${max}: ${out}`);
    assert.ok(request.endsWith(tail), `${max}: ${out}`);
    const words = new Set(request.split(' '));
    for (const w of [...head.split(' '), ...tail.split(' ')])
      assert.ok(words.has(w), `${max}: "${w}" is a whole word: ${out}`);
    assert.equal(
      Number(m[1].replace(/,/g, '')),
      request.length - head.length - tail.length - 2,
      `${max}: the count is exact`,
    );
  }
});

test('a cut near a sentence end falls there; a single long token is still cut', () => {
  const text = 'Fix the login page. Then update every test that covers it and the docs that describe it in detail.';
  const out = shortenMiddle(text, 40);
  assert.ok(out.startsWith('Fix the login page. ['), out);
  const token = 'x'.repeat(300);
  assert.ok(shortenMiddle(token, 60).length < 120);
});
