/**
 * A hex run is an identifier only as a whole token (a commit, an id, the ends of a range), never as
 * a piece of a longer path or name (a folder `…/e03964cb4ea041/…`, `build-e03964cb`, `v@1a2b3c4d`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { backfillIdentifiers } from '../../src/compaction/summary/identifiers/backfill';
import { extractIdentifiers } from '../../src/compaction/summary/identifiers/identifiers';

test('hex runs inside paths and names are no identifiers; whole ones are', () => {
  const ids = extractIdentifiers(
    [
      'cd /home/u/conv/e03964cb4ea041/events && ls build-e03964cb pkg@1a2b3c4d e03964cb.json',
      'committed a1b2c3d4 (range abc1234..def5678), id: 0f9e8d7c6b',
    ].join('\n'),
  );
  for (const piece of ['e03964cb4ea041', 'e03964cb', '1a2b3c4d']) assert.ok(!ids.includes(piece), ids.join(' | '));
  for (const whole of ['a1b2c3d4', 'abc1234', 'def5678', '0f9e8d7c6b']) assert.ok(ids.includes(whole), ids.join(' | '));
});

const work: Step[] = [
  { user: 'why is the trajectory empty?' },
  {
    tool: 'bash',
    command: 'tail -2 /home/u/.runs/conversations/e03964cb4ea041/run.log',
    output: 'wrote /home/u/.runs/e03964cb4ea041/state.json via build-e03964cb\nat commit 9f8e7d6c5b4a: no events',
  },
  { say: `It holds no events yet. ${'The run stopped before writing events to the folder. '.repeat(40)}` },
  { user: 'thanks' },
  { say: 'ok' },
];

for (const format of ['claude-code', 'openhands', 'codex'] as const) {
  test(`${format}: the identifier lists carry no hex piece of a folder or file name`, () => {
    const { write, file } = WRITERS[format];
    const span = itemsFromEntries(importTranscriptTextSync(write(work), file).entries);
    const { added } = backfillIdentifiers('## Current work and next step\n- none', span, 4000);
    assert.ok(!added.some((id) => /^e03964cb/.test(id)), added.join('\n'));
    assert.ok(added.includes('9f8e7d6c5b4a'), added.join('\n'));
    assert.ok(added.includes('/home/u/.runs/e03964cb4ea041/state.json'), added.join('\n'));
  });
}
