/**
 * A span whose latest typed request got no reply in it, with a newer request typed in the messages
 * kept after it: the summary never says that request is done (the final message kept after the
 * summary answers the newer one), it says the request got no answer here and a newer one followed.
 * Recordings written in test/support/recordings.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { WRITERS, type Step } from '../support/recordings';

const questions =
  'Before anything else: why does the cache key include the locale, what happens to entries written ' +
  'before the migration, and should the eviction run on startup or lazily? '.repeat(6);

const steps: Step[] = [
  { user: 'fix the off-by-one in the pager' },
  { tool: 'edit', path: 'src/pager.ts', old: 'i <= n', new: 'i < n' },
  { tool: 'bash', command: 'npm test', output: '12 passing', exit: 0 },
  { done: 'Fixed the off-by-one in the pager; the tests pass.' },
  { user: questions },
  { user: 'rename fetchAll to loadAll across the code' },
  { tool: 'edit', path: 'src/load.ts', old: 'fetchAll', new: 'loadAll' },
  { tool: 'bash', command: 'npm test', output: '12 passing', exit: 0 },
  { done: 'Renamed fetchAll to loadAll everywhere; the tests pass.' },
];

for (const [format, { write, file }] of Object.entries(WRITERS)) {
  const items = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
  const at = items.findIndex((i) => textWithPlaceholders(i.message.content).includes('Before anything else'));
  for (const [label, from] of [
    ['a span of that request alone', at],
    ['a span with an earlier answered request', 0],
  ] as const) {
    test(`${format}: ${label}: an unanswered request followed by a newer one is not said done`, () => {
      assert.ok(at > 0, 'the unanswered request is a message of its own');
      const summary = new ExtractiveSummarizer((s) => Math.ceil(s.length / 4)).notes(
        items.slice(from, at + 1),
        4000,
        undefined,
        items.slice(at + 1),
      );
      const next = /- Next step: .*/.exec(summary)?.[0] ?? '';
      assert.doesNotMatch(next, /appears done|reports it finished/, summary);
      assert.match(next, /latest request got no answer in this part/, summary);
      assert.match(next, /a newer request followed in the messages kept after this summary/, summary);
    });
  }
}
