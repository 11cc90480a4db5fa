/**
 * Lines typed by hand into a summary are carried whole into the summary that folds it, up to a
 * bound: a pasted block far larger than the new summary would make it longer than what it replaces.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ContextItem } from '../../src/compaction/types';
import { HAND_HEADING, HAND_LINES_MAX_CHARS, keepHandLines } from '../../src/compaction/summary/hand-lines';

const summaryItem = (handLines: string[]): ContextItem =>
  ({ id: 'ck-1~s', kind: 'summary', message: { role: 'user', content: 'earlier summary' }, handLines }) as ContextItem;

test('short hand-added lines are carried whole under their heading', () => {
  const out = keepHandLines('## Current work\n- x', [
    summaryItem(['remember the tfplan question', 'ask before deploying']),
  ]);
  assert.match(out, new RegExp(`${HAND_HEADING}\\nremember the tfplan question\\nask before deploying`));
  assert.doesNotMatch(out, /left out here/);
});

test('hand-added lines past the bound stop at a whole line and the rest is counted', () => {
  const lines = Array.from({ length: 2_000 }, (_, i) => `note ${i} about the deployment order`);
  const out = keepHandLines('## Current work\n- x', [summaryItem(lines)]);
  const section = out.slice(out.indexOf(HAND_HEADING));
  assert.ok(section.length < HAND_LINES_MAX_CHARS + 200, `${section.length} characters carried`);
  assert.match(section, /^note 0 about the deployment order$/m);
  const kept = section.split('\n').filter((l) => l.startsWith('note ')).length;
  assert.ok(kept > 10 && kept < lines.length, `${kept} lines kept`);
  assert.match(section, new RegExp(`- … ${lines.length - kept} more lines added by hand left out here`));
});

test('a hand-added line the new notes quote elsewhere stands under its heading, once', () => {
  const line = 'keep the harbour ids stable';
  const out = keepHandLines(`## Current work\n- x\n${line}\n\n## Requests, verbatim\n- ${line}`, [summaryItem([line])]);
  assert.match(out, new RegExp(`${HAND_HEADING}\\n${line}\\n`), out);
  const notes = out.slice(0, out.indexOf('## Requests'));
  assert.equal(notes.split(line).length, 2, `once in the notes:\n${out}`);
  assert.match(out, new RegExp(`## Requests, verbatim\\n- ${line}$`), 'the requests section is left whole');
});

test('hand-added lines already under their heading are left as they are', () => {
  const text = `## Current work\n- x\n\n${HAND_HEADING}\nfirst note`;
  assert.equal(keepHandLines(text, [summaryItem(['first note'])]), text);
  const more = keepHandLines(text, [summaryItem(['first note', 'second note'])]);
  assert.equal(more, `${text}\nsecond note`);
});
