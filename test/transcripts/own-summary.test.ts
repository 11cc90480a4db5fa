/**
 * A summary ContextKeeper wrote, read back from a file of chat messages (what `compact --out` writes):
 * a user message that begins with the summary's own header is an imported compaction written by
 * ContextKeeper, whose item a later compaction reads as the product's own summary; the same words
 * anywhere else in a message, or another agent's summary, are not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { applyRecordedCompactions } from '../../src/compaction/rewrite/imported';
import { collectRequests, isImportedSummary } from '../../src/compaction/summary/requests';
import { isContextKeeperSummary, summaryHeader } from '../../src/compaction/summary/summary-header';
import { quarterCounter } from '../support/generate';

const OWN = `${summaryHeader(12)}

## Files changed (created or edited, what changed; moves; files read)
- src/app.ts: created

## Requests, verbatim (oldest first; the user's own words)
- make the app start faster

[The 12 replaced messages can be read from: session.jsonl, messages 2-13 (context-keeper recall FILE --read 2-13).]`;

const chat = (first: string) => [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: first },
  { role: 'assistant', content: 'Continuing.' },
  { role: 'user', content: 'now add a test' },
];

test('the header is recognised for any count, only at the very start of the text', () => {
  assert.ok(isContextKeeperSummary(summaryHeader(1)));
  assert.ok(isContextKeeperSummary(`${summaryHeader(1234)}\n\nnotes`));
  assert.ok(isContextKeeperSummary(summaryHeader(1234).replace('1234', '1,234')));
  assert.ok(!isContextKeeperSummary(` ${summaryHeader(3)}`));
  assert.ok(!isContextKeeperSummary(`please read this: ${summaryHeader(3)}`));
  assert.ok(!isContextKeeperSummary(summaryHeader(3).replace('ContextKeeper', 'another tool')));
});

for (const shape of ['array', 'document'] as const) {
  test(`openai-chat (${shape}): a message opening with the summary header is read back as ContextKeeper's summary`, () => {
    const messages = chat(OWN);
    const text = JSON.stringify(
      shape === 'array' ? messages : { format: 'claude-code', model: 'm', messages, checkpoints: [] },
    );
    const t = importTranscriptTextSync(text, 'out.json');
    assert.equal(t.format, 'openai-chat');
    assert.deepEqual(t.compactions, [
      { replacedIds: ['m1'], summary: OWN, summaryEntryId: 'm1', writer: 'context-keeper' },
    ]);
    assert.equal(t.entries[1].meta?.summaryWriter, 'context-keeper');

    const meter = new TokenMeter({ counter: quarterCounter });
    const applied = applyRecordedCompactions(itemsFromEntries(t.entries), t.compactions, meter);
    const summary = applied.items[1];
    assert.equal(summary.kind, 'summary');
    assert.equal(summary.message.content, OWN, 'the text stays as written: nothing is appended to it');
    assert.equal(applied.checkpoints[0].summarizerModel, 'ContextKeeper');
    assert.equal(isImportedSummary(summary), false, "read as the product's own summary");
    // Its requests are read from its own section; it is never a typed request itself.
    assert.deepEqual(collectRequests(applied.items), ['make the app start faster', 'now add a test']);
  });
}

test('openai-chat: the header inside a typed message, or an agent summary, is not a ContextKeeper summary', () => {
  const quoted = importTranscriptTextSync(JSON.stringify(chat(`what does this mean? ${OWN}`)), 'chat.json');
  assert.deepEqual(quoted.compactions, []);
  const meter = new TokenMeter({ counter: quarterCounter });
  const items = applyRecordedCompactions(itemsFromEntries(quoted.entries), quoted.compactions, meter).items;
  assert.equal(items[1].kind, 'raw', 'a typed message stays a typed message');

  const agent = [
    { role: 'system', content: '[compact_boundary]' },
    { role: 'user', content: 'This session is being continued from a previous conversation. Summary: built the app.' },
    { role: 'user', content: 'now add a test' },
  ];
  const t = importTranscriptTextSync(JSON.stringify(agent), 'chat.json');
  assert.equal(t.compactions.length, 1);
  assert.equal(t.compactions[0].writer, undefined);
  const applied = applyRecordedCompactions(itemsFromEntries(t.entries), t.compactions, meter);
  const summary = applied.items.find((i) => i.kind === 'summary');
  assert.ok(summary && isImportedSummary(summary), "the recording agent's summary stays the agent's");
  assert.equal(applied.checkpoints[0].summarizerModel, 'recorded agent');
});
