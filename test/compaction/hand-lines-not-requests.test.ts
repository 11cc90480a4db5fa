/**
 * A line the user typed at the end of a summary lands under its last heading, the requests
 * verbatim. The summary that folds it carries the line as the user's note, under its own heading:
 * never as a typed request, never as the latest one, never counted with the requests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, compactExtractive, sectionOf, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { recallPointer } from '../../src/compaction/summary/recall-pointer';
import { HAND_HEADING } from '../../src/compaction/summary/hand-lines';
import type { ContextItem } from '../../src/compaction/types';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);
const HAND = '- HAND-NOTE-7: never run terraform destroy in the shared dev account';

const zero: Step[] = [
  { user: 'set up the project' },
  { tool: 'read', path: 'package.json', output: filler(300) },
  { say: `Set up. ${filler(300)}` },
  { done: 'Set up done.' },
];
const first: Step[] = [
  { user: 'make the parser tests pass' },
  { tool: 'bash', command: 'npm test -- parser', output: 'FAIL test/parser.test.ts\n  expected 2 tokens', ok: false },
  { tool: 'read', path: 'src/parser.ts', output: filler(300) },
  { say: `The split is too strict. ${filler(600)}` },
  { tool: 'edit', path: 'src/parser.ts', old: 'split(/ /)', new: 'split(/\\s+/)' },
  { tool: 'bash', command: 'npm test -- parser', output: 'PASS test/parser.test.ts', exit: 0 },
  { done: 'The parser tests pass.' },
];
const then: Step[] = [
  { user: 'now add a migration for the users table' },
  { tool: 'read', path: 'db/schema.sql', output: filler(400) },
  { say: `The users table lacks an index. ${filler(600)}` },
  { tool: 'bash', command: 'npm run migrate', output: 'migrated 002_users', exit: 0 },
  { done: 'Added the migration.' },
  { user: 'and document it' },
  { tool: 'read', path: 'docs/db.md', output: filler(400) },
  { done: 'Documented.' },
];

for (const format of ['claude-code', 'cline', 'codex'] as const) {
  test(`${format}: a line added at the end of a summary is the user's note, not a request`, async () => {
    const { write, file } = WRITERS[format];
    const count = (steps: Step[]) => itemsFromEntries(importTranscriptTextSync(write(steps), file).entries).length;
    const all = itemsFromEntries(importTranscriptTextSync(write([...zero, ...first, ...then]), file).entries);
    const before = all.slice(0, count([...zero, ...first]));
    const notes = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(before, 8000);
    // The summary as the compactor closes it: its requests section last, then the pointer line.
    const text = [
      notes,
      "## Requests, verbatim (oldest first; the user's own words)\n- set up the project\n- make the parser tests pass",
      recallPointer('cp-first', before.length),
    ].join('\n\n');
    // As applied after the preview: the line typed after the summary's last line.
    const edited: ContextItem = {
      id: 'cp~s',
      kind: 'summary',
      message: { role: 'user', content: `${text}\n${HAND}` },
      covers: before.map((i) => i.id),
      checkpointId: 'cp',
      handLines: [HAND],
    };
    const context = [edited, ...all.slice(before.length)];
    const again = await compactExtractive(context, 1500);
    const newer = again.checkpoints.find((c) => c.replaced.some((i) => i.id === edited.id));
    assert.ok(newer, 'the edited summary was summarised again');
    const out = textWithPlaceholders(newer.inserted[0].message.content);
    assert.match(sectionOf(out, HAND_HEADING.slice(3)), /HAND-NOTE-7/, out);
    const requests = out.slice(out.indexOf('## Requests, verbatim'));
    assert.doesNotMatch(requests, /HAND-NOTE-7/, 'not quoted as a typed request');
    assert.doesNotMatch(out, /Latest request[^\n]*HAND-NOTE-7/, 'never the latest request');
    assert.match(requests, /make the parser tests pass/);
    assert.equal(newer.retention?.requests.total, 3, 'the typed requests of the span, the note not counted');
  });
}
