/**
 * An Aider reply's edit block changed its file only where Aider printed "Applied edit to" for it: a
 * block for a file not in the chat (Aider asked to add it) or one that did not match was a proposal,
 * not a change, in the summary's Files changed section and its scorecard alike. The notices reach
 * the context with the reply, and the mark survives the copy sent to the compaction worker.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aider, compactExtractive, type Step, sectionOf } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { keepMarks, listsAppliedEdits, marksOf } from '../../src/compaction/tool-outcomes';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);
const FILE = '.aider.chat.history.md';

const steps: Step[] = [
  { user: 'fix the hydration warning in the layout and the test page' },
  { tool: 'edit', path: 'src/app/test-page.tsx', old: 'const id = Math.random();', new: 'const id = useId();' },
  {
    tool: 'edit',
    path: 'src/app/layout.tsx',
    old: '<html lang="de">',
    new: '<html lang="de" suppressHydrationWarning>',
    ok: false,
  },
  { say: `Both fixed. ${filler(2500)}` },
  { user: 'thanks' },
  { say: 'ok' },
];

test('aider: an edit block without an "Applied edit to" notice changed no file, in the summary or its scorecard', async () => {
  const t = importTranscriptTextSync(aider(steps), FILE);
  const items = itemsFromEntries(t.entries);
  const reply = items.find((i) => i.message.role === 'assistant');
  assert.ok(reply && listsAppliedEdits(reply.message), 'the reply is marked as listing its applied edits');
  assert.match(textWithPlaceholders(reply.message.content), /^> Applied edit to src\/app\/test-page\.tsx$/m);
  const r = await compactExtractive(items);
  const item = r.context.find((i) => i.kind === 'summary');
  assert.ok(item, 'a summary was written');
  const summary = textWithPlaceholders(item.message.content);
  const section = sectionOf(summary, 'Files changed');
  assert.match(section, /src\/app\/test-page\.tsx[^\n]*edited/, summary);
  assert.doesNotMatch(section, /layout\.tsx/, summary);
  const card = r.checkpoints.find((c) => c.retention)?.retention;
  assert.ok(card, 'the checkpoint has a scorecard');
  assert.equal(card.filesChanged.total, 1, JSON.stringify(card.filesChanged));
});

test('the mark of a reply that lists its applied edits travels with a copy of the message', () => {
  const t = importTranscriptTextSync(aider(steps), FILE);
  const reply = itemsFromEntries(t.entries).find((i) => i.message.role === 'assistant')!;
  const copy = structuredClone(reply.message);
  assert.equal(listsAppliedEdits(copy), false);
  keepMarks(copy, marksOf(reply.message));
  assert.equal(listsAppliedEdits(copy), true);
});
