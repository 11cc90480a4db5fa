/**
 * Commits made in the span are named in the summary (id and message) and counted by the scorecard
 * ("commits n/m named"): Aider's commit notices, kept by the importer with the reply whose edits they
 * committed, and the first line of a successful `git commit` in any format with a shell tool. A
 * failed commit made none; a span without commits claims none.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, compactExtractive, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { scorecardLine } from '../../src/compaction/retention/scorecard';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

const work: Step[] = [
  { user: 'add a health route and commit it' },
  { tool: 'write', path: 'src/health.ts', content: 'export function healthRoute() {\n  return "ok";\n}' },
  {
    tool: 'bash',
    command: 'git add -A && git commit -m "feat: add health route"',
    output: '[main 1a2b3c4] feat: add health route\n 1 file changed, 3 insertions(+)',
    exit: 0,
  },
  {
    tool: 'bash',
    command: 'git commit -m "chore: nothing"',
    output: 'On branch main\nnothing to commit, working tree clean',
    ok: false,
  },
  { say: `Committed. ${filler(2500)}` },
  { user: 'thanks' },
  { say: 'ok' },
];

/** Aider prints its commits after the edits it applied; its writer here has no shell, so the notice stands in for the command. */
function aiderWithCommit(text: string): string {
  return text.replace(
    '> Applied edit to src/health.ts  ',
    '> Applied edit to src/health.ts  \n> Commit 1a2b3c4 feat: add health route  \n> You can use /undo to undo and discard each aider commit.  ',
  );
}

for (const [format, { write, file }] of Object.entries(ALL_WRITERS)) {
  test(`${format}: a commit made in the span is named with its message, and the scorecard counts it`, async () => {
    const raw = write(work);
    const t = importTranscriptTextSync(format === 'aider' ? aiderWithCommit(raw) : raw, file);
    const r = await compactExtractive(itemsFromEntries(t.entries));
    const item = r.context.find((i) => i.kind === 'summary');
    assert.ok(item, 'a summary was written');
    const summary = textWithPlaceholders(item.message.content);
    assert.match(summary, /commit 1a2b3c4: feat: add health route/, summary);
    const card = r.checkpoints.find((c) => c.retention)?.retention;
    assert.ok(card, 'the checkpoint has a scorecard');
    assert.deepEqual(card.commits, { total: 1, named: 1 }, JSON.stringify(card));
    assert.match(scorecardLine(card), /commits 1\/1 named/);
  });
}

test('a span without commits claims none', async () => {
  const { write, file } = ALL_WRITERS['claude-code'];
  const t = importTranscriptTextSync(write(work.filter((s) => !('command' in s))), file);
  const r = await compactExtractive(itemsFromEntries(t.entries));
  const card = r.checkpoints.find((c) => c.retention)?.retention;
  assert.ok(card, 'the checkpoint has a scorecard');
  assert.equal(card.commits, undefined);
  assert.doesNotMatch(scorecardLine(card), /commit/);
});

test('aider: commit notices stay with the reply whose edits they committed', () => {
  const history = [
    '# aider chat started at 2026-02-24 16:53:06',
    '',
    '#### make the title bold  ',
    '',
    'src/app.ts',
    '```',
    '<<<<<<< SEARCH',
    '<h1>Title</h1>',
    '=======',
    '<h1 class="bold">Title</h1>',
    '>>>>>>> REPLACE',
    '```',
    '',
    '> Tokens: 3.1k sent, 1.5k received.  ',
    '> Applied edit to src/app.ts  ',
    '> Commit e647cd7 feat: make the title bold  ',
    '> You can use /undo to undo and discard each aider commit.  ',
    '',
    '#### thanks  ',
    '',
  ].join('\n');
  const t = importTranscriptTextSync(history, '.aider.chat.history.md');
  const reply = t.entries.find((e) => e.message.role === 'assistant');
  assert.ok(reply);
  assert.match(
    String(reply.message.content),
    /```\n\n> Applied edit to src\/app\.ts\n> Commit e647cd7 feat: make the title bold$/,
  );
  assert.equal(reply.meta?.reportedPromptTokens, 3100);
  assert.equal(t.entries.length, 3);
});
