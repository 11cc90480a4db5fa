import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { importTranscriptText } from '../../src/transcripts';
import { assertWellFormed } from './helpers';

const history = [
  '',
  '# aider chat started at 2026-02-24 16:53:06',
  '',
  '> /opt/homebrew/bin/aider --model xai/grok-code-fast-1  ',
  '> Model: xai/grok-code-fast-1 with whole edit format  ',
  '',
  '#### /add src/app.ts  ',
  '> Added src/app.ts to the chat  ',
  '',
  '#### make the title bold  ',
  '#### and blue  ',
  '',
  'Here is the change:',
  '',
  'src/app.ts',
  '```',
  '<h1 class="bold blue">Title</h1>',
  '```',
  '',
  '> Tokens: 3.1k sent, 1.5k received. Cost: $0.0029 message, $0.0029 session.  ',
  '> Applied edit to src/app.ts  ',
  '',
  '#### /ask why blue?  ',
  '',
  'Because you asked.',
  '',
  '> Tokens: 812 sent, 5 received.  ',
  '',
  '# aider chat started at 2026-02-25 09:00:00',
  '',
  '#### /exit  ',
  '',
].join('\n');

test('aider: user runs, slash commands, Aider output and replies', async () => {
  const t = await importTranscriptText(history, 'notes.md');
  assert.equal(t.format, 'aider');
  assertWellFormed(t);
  assert.deepEqual(
    t.entries.map((e) => [e.id, e.message.role, e.message.content]),
    [
      ['L10', 'user', 'make the title bold\nand blue'],
      [
        'L13',
        'assistant',
        'Here is the change:\n\nsrc/app.ts\n```\n<h1 class="bold blue">Title</h1>\n```\n\n> Applied edit to src/app.ts',
      ],
      ['L23', 'user', 'why blue?'],
      ['L25', 'assistant', 'Because you asked.'],
    ],
  );
  // The reply lists the edits Aider applied (its notices kept with it).
  assert.equal(t.entries[1].meta?.editsListed, true);
  assert.equal(t.entries[1].meta?.reportedPromptTokens, 3100);
  assert.equal(t.entries[3].meta?.reportedPromptTokens, 812);
  assert.equal(t.entries[1].meta?.model, 'xai/grok-code-fast-1');
  assert.equal(t.entries[0].meta?.timestamp, '2026-02-24T16:53:06');
  assert.deepEqual(t.skipped, { session: 2, 'aider-output': 5, 'slash-command': 2 });
});

test('aider: an empty input (`<blank>`, blank lines) is no message; typed "y" and "exit" stay user messages', async () => {
  const text = [
    '# aider chat started at 2026-02-24 16:53:06',
    '',
    "> Would you like to see what's new in this version? (Y)es/(N)o [Yes]: y  ",
    '',
    '#### y  ',
    '',
    'Yes?',
    '',
    '> Tokens: 900 sent, 2 received.  ',
    '',
    '#### <blank>  ',
    '',
    '####   ',
    '####   ',
    '',
    '#### exit  ',
    '',
    'Goodbye.',
    '',
    '> Tokens: 950 sent, 2 received.  ',
    '',
    '#### fix the header  ',
    '####   ',
    '#### and the footer  ',
    '',
  ].join('\n');
  const t = await importTranscriptText(text, 'history.md', { format: 'aider' });
  assertWellFormed(t);
  assert.deepEqual(
    t.entries.map((e) => [e.message.role, e.message.content]),
    [
      ['user', 'y'],
      ['assistant', 'Yes?'],
      ['user', 'exit'],
      ['assistant', 'Goodbye.'],
      ['user', 'fix the header\n\nand the footer'],
    ],
  );
  assert.equal(t.skipped['blank-input'], 2);
  assert.equal(t.stats.messages, 5);
});
