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

/** A span ending with a plain report of finished work, then a newer request whose turn ends with a question. */
const reported: Step[] = [
  { user: 'fix the off-by-one in the pager' },
  { tool: 'edit', path: 'src/pager.ts', old: 'i <= n', new: 'i < n' },
  { done: 'Fixed the off-by-one in the pager. If you want the old paging back, say the word.' },
  { user: 'rename fetchAll to loadAll' },
  { tool: 'edit', path: 'src/load.ts', old: 'fetchAll', new: 'loadAll' },
  { done: 'Renamed it in src/load.ts. Should I rename the tests too?' },
];

// The formats whose final message is plain text (no finishing action).
for (const format of ['claude-code', 'codex', 'openai-chat'] as const) {
  test(`${format}: a wait in the messages kept after the summary is said to be there, not this part's`, () => {
    const { write, file } = WRITERS[format];
    const items = itemsFromEntries(importTranscriptTextSync(write(reported), file).entries);
    const at = items.findIndex((i) => textWithPlaceholders(i.message.content).includes('rename fetchAll'));
    const summary = new ExtractiveSummarizer((s) => Math.ceil(s.length / 4)).notes(
      items.slice(0, at),
      4000,
      undefined,
      items.slice(at),
    );
    const next = /- Next step: .*/.exec(summary)?.[0] ?? '';
    assert.doesNotMatch(next, /the agent ended its turn waiting/, summary);
    assert.match(
      next,
      /a newer request followed in the messages kept after this summary, which end with the agent waiting/,
      summary,
    );
  });
}
