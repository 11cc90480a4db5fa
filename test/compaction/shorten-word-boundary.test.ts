/**
 * A shortened request resumes after its gap marker at a word's start, even when its end is one long
 * token (a path) with no space after the cut.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shortenMiddle } from '../../src/compaction/summary/requests-section';

test('shortenMiddle: the kept end starts at a word, not inside a trailing path', () => {
  const text = `${'Please update the connection test page so it shows the broker status. '.repeat(8)}Edit app/connection-test/page.tsx.`;
  const out = shortenMiddle(text, 60);
  const after = out.slice(out.indexOf('left out …]') + 'left out …]'.length);
  assert.match(after, /^ (?:\S+ )*app\/connection-test\/page\.tsx\.$/, out);
});
