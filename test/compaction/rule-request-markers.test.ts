/**
 * A long request shortened to the standing rules it states keeps each rule sentence where it was, with
 * a marker wherever text was left out: before, between and after them, never only at its end.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shortenKeepingRules } from '../../src/compaction/summary/requests-section';

const MARKER = /\[… ([\d,]+) characters of this request left out …\]/g;

test('a shortened request marks the text left out before, between and after its rule sentences', () => {
  const lead = 'Explain each step of the migration plan to me in plain words before you start anything at all.';
  const rule = 'DO NOT touch or destroy any resources in the old project (example-app-prod).';
  const middle = 'The new project has been created with fresh names for every bucket and every database.';
  const rule2 = 'Never delete the staging database.';
  const tail = 'After that, go through the Terraform files one by one and tell me what changes in each of them.';
  const text = [lead, rule, middle, rule2, tail].join(' ');
  const out = shortenKeepingRules(text, 200);
  assert.ok(out.startsWith('[… '), out);
  assert.ok(out.includes(`] ${rule} [… `), out);
  assert.ok(out.includes(`] ${rule2} [… `), out);
  assert.ok(out.endsWith('left out …]'), out);
  assert.ok(!out.includes('Explain each step'), out);
  const removed = [...out.matchAll(MARKER)].reduce((n, m) => n + Number(m[1].replace(/,/g, '')), 0);
  assert.equal(removed + rule.length + rule2.length, text.length, 'the markers count what was left out');
});

test('a request that opens with its rule has no marker before it', () => {
  const rule = 'DO NOT touch or destroy any resources in the old project (example-app-prod).';
  const text = `${rule} ${'Then walk me through the plan for the new project, one resource after another. '.repeat(6)}`;
  const out = shortenKeepingRules(text, 150);
  assert.ok(out.startsWith(rule), out);
  assert.equal([...out.matchAll(MARKER)].length, 1, out);
});
