import test from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';

const filler = (n: number) => Array.from({ length: n }, (_, i) => `line ${i} of the report`).join('; ');

const ACK =
  "I understand the rules for *SEARCH/REPLACE* blocks. I'll use the exact format you've described for any code changes to the files you've added to the chat. If I need to propose edits to other files, I'll ask you to add them to the chat first.";

/** The notes on `steps` up to their last request, which stays after the summary with the reply to it. */
function notesBeforeLastRequest(format: keyof typeof ALL_WRITERS, steps: Step[]): string {
  const { write, file } = ALL_WRITERS[format];
  const items = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
  const at = items.map((it) => it.message.role).lastIndexOf('user');
  assert.ok(at > 0);
  return new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(
    items.slice(0, at),
    6000,
    undefined,
    items.slice(at),
  );
}

for (const format of ['aider', 'openai-chat', 'claude-code'] as const) {
  test(`${format}: a reply that only acknowledges the harness's rules is no answer; the turn's real reply is`, () => {
    const summary = notesBeforeLastRequest(format, [
      { user: 'why does the badge stay grey on the status page?' },
      { say: `The badge keeps variant="outline", which overrides the colour classes in page.tsx. ${filler(20)}` },
      { say: ACK },
      { user: 'remove the outline variant from every badge' },
      { say: `Removing it now. ${filler(20)}` },
    ]);
    assert.doesNotMatch(summary, /I understand the rules/, summary);
    assert.doesNotMatch(summary, /add them to the chat first/, summary);
    assert.match(summary, /- Answered an earlier request \([^)]*\): "The badge keeps variant="outline"/, summary);
  });

  test(`${format}: the rules acknowledged at the start of a reply are left out of its quote, the rest is kept`, () => {
    const summary = notesBeforeLastRequest(format, [
      { user: 'why does the badge stay grey on the status page?' },
      {
        say: `${ACK}\n\nThe badge keeps variant="outline" in page.tsx, which overrides the colour classes. ${filler(20)}`,
      },
      { user: 'remove the outline variant from every badge' },
      { say: `Removing it now. ${filler(20)}` },
    ]);
    assert.doesNotMatch(summary, /I understand the rules/, summary);
    assert.match(
      summary,
      /- Answered an earlier request \([^)]*\): "The badge keeps variant="outline" in page\.tsx/,
      summary,
    );
  });
}
