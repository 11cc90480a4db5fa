/**
 * Lines the user added by hand to a summary in the preview survive a later summary of that summary:
 * they are kept on the summary item, apart from the generated text, and the summary replacing it
 * carries them whole under their own heading, whatever its budget.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, compactExtractive, sectionOf, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { withEditedSummaries } from '../../src/service/compaction/preview';
import { HAND_HEADING } from '../../src/compaction/summary/hand-lines';
import type { PreparedCompaction } from '../../src/compaction/rewrite/commit';
import type { ContextItem } from '../../src/compaction/types';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);
const HAND = 'Never run the migrations on Fridays: the staging database is restored from backup then.';

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
  {
    tool: 'write',
    path: 'db/migrations/002_users.sql',
    content: `create index users_email on users(email); ${filler(200)}`,
  },
  { tool: 'bash', command: 'npm run migrate', output: 'migrated 002_users', exit: 0 },
  { done: 'Added the migration.' },
  { user: 'and document it' },
  { tool: 'read', path: 'docs/db.md', output: filler(400) },
  { done: 'Documented.' },
];

for (const format of ['claude-code', 'cline', 'openhands'] as const) {
  test(`${format}: a line added by hand to a summary is kept by the summary that replaces it`, async () => {
    const { write, file } = WRITERS[format];
    const count = (steps: Step[]) => itemsFromEntries(importTranscriptTextSync(write(steps), file).entries).length;
    const all = itemsFromEntries(importTranscriptTextSync(write([...zero, ...first, ...then]), file).entries);
    const [start, before] = [count(zero), count([...zero, ...first])];
    const r = await compactExtractive(all.slice(start, before));
    const cp = r.checkpoints.find((c) => c.strategy === 'extractive');
    assert.ok(cp, 'a summary was written');
    const prepared: PreparedCompaction = {
      checkpoints: r.checkpoints,
      tokensBefore: r.tokensBefore,
      tokensAfter: r.tokensAfter,
      startedAt: 0,
    };
    const edited = withEditedSummaries(prepared, [`${cp.summary}\n\n${HAND}`], all.slice(start, before));
    const hand = edited.checkpoints.find((c) => c.id === cp.id)!;
    assert.equal(hand.editedByHand, true);
    const item = hand.inserted[0];
    assert.deepEqual(item.handLines, [HAND], 'the added line is told apart from the generated text');
    // The applied context: the edited summary in place of the proposed one, between older and newer work.
    const context: ContextItem[] = [
      ...all.slice(0, start),
      ...r.context.map((i) => (i.id === item.id ? item : i)),
      ...all.slice(before),
    ];
    const again = await compactExtractive(context, 1500);
    const newer = again.checkpoints.find((c) => c.replaced.some((i) => i.id === item.id));
    assert.ok(newer, 'the edited summary was summarised again');
    const text = textWithPlaceholders(newer.inserted[0].message.content);
    assert.match(sectionOf(text, HAND_HEADING.slice(3)), new RegExp(HAND.slice(0, 40)), text);
    assert.deepEqual(newer.inserted[0].handLines, [HAND], 'carried on for the next summary');
  });
}
