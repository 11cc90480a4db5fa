/**
 * Finished work is never shown as open, in every recording format: the agent's last message that
 * reports work done is "work completed", not "in progress"; when it answers the latest request and
 * nothing newer was asked, the next step is the user's. Standing rules are whole sentences: a rule
 * the user's terminal wrapped over lines is read whole, and one too long to quote is left out, never cut.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, summaryOf, type Step } from '../support/recordings';
import { reportsFinishedWork } from '../../src/compaction/summary/completion';
import { ruleSentences } from '../../src/compaction/summary/prose';

const filler = (n: number) => `${'lorem ipsum dolor sit amet '.repeat(n)}`;

const work = (last: string): Step[] => [
  { user: 'write the ADRs for the rollout order and the repository split' },
  { tool: 'write', path: 'docs/adr/0021-rollout-order.md', content: `# ADR-021\n${filler(60)}` },
  { say: `Done. Here's what's now in place: ADR-021 records the rollout order. ${filler(300)}` },
  { user: 'have everything indexed in the docs' },
  { tool: 'edit', path: 'DECISIONS.md', old: '- ADR-018', new: '- ADR-018\n- ADR-021' },
  { say: last },
];

const formats = ['claude-code', 'codex', 'cline'] as const;

for (const format of formats) {
  const { write, file } = WRITERS[format];
  test(`${format}: a last message reporting finished work is work completed and leaves the next step to the user`, async () => {
    const { summary } = await summaryOf(
      write(work('Indexed and chunked. The ADR index in DECISIONS.md now lists ADR-021, with a link to each file.')),
      file,
    );
    // The report answered the first request; a newer one came after it (and was answered in the steps kept).
    assert.match(summary, /Answered an earlier request \([^)]*\): "Done\./, summary);
    assert.doesNotMatch(summary, /In progress \(the agent's last message here\)/, summary);
    // The newer request's turn ended in the steps kept after the summary, with the report.
    assert.match(
      summary,
      /Next step: the user's turn \(a newer request followed in the messages kept after this summary; the agent's last message there ended its turn\)/,
      summary,
    );
    assert.doesNotMatch(summary, /continue with the latest request/, summary);
  });

  test(`${format}: a final message with a question or a step still to take waits for the user, never reads as done`, async () => {
    for (const last of [
      'Indexed the ADRs. Should I also index the archive?',
      'Updated DECISIONS.md. Next, I will link each ADR from the roadmap.',
    ]) {
      const { summary } = await summaryOf(write(work(last)), file);
      // The agent's turn ended with its question or plan in the steps kept after the summary: the
      // person moves next, and the wait is said to be there, not in this part.
      assert.match(
        summary,
        /Next step: the user's turn \(a newer request followed in the messages kept after this summary, which end with the agent waiting for the user's answer or approval\)/,
        summary,
      );
      assert.doesNotMatch(summary, /Work completed|reported done|continue with the latest request/, summary);
    }
  });

  test(`${format}: a newer request after the report keeps the next step open`, async () => {
    const steps = [
      ...work('Indexed and chunked. The ADR index now lists ADR-021.'),
      { user: 'now add a changelog entry for the ADRs' },
    ];
    const { summary } = await summaryOf(write(steps), file);
    assert.doesNotMatch(summary, /Next step: the user's/, summary);
  });

  test(`${format}: a standing rule wrapped over lines is quoted whole; one too long is left out, never cut`, async () => {
    const wrapped =
      'write the ADRs.\n  Always keep the ADR number in each file name so that the index\n  stays sorted.\n' +
      `  we will always go with split mode first then we\n  will have the agent ready ${'and it will manage the group expenses '.repeat(12)}`;
    const { summary } = await summaryOf(
      write([
        { user: wrapped },
        { tool: 'write', path: 'docs/adr/0021-rollout-order.md', content: `# ADR-021\n${filler(60)}` },
        { say: `Wrote ADR-021. ${filler(300)}` },
        { user: 'thanks, index them' },
        { say: 'Indexed.' },
      ]),
      file,
    );
    assert.match(summary, /- "Always keep the ADR number in each file name so that the index stays sorted\."/, summary);
    assert.doesNotMatch(summary, /split mode first then we"/, summary);
    assert.doesNotMatch(summary, /- "[^"\n]*split mode/, summary);
  });
}

test('reportsFinishedWork: past-tense outcomes without a question or an own next step', () => {
  assert.equal(reportsFinishedWork("Indexed and chunked. Here's what's now in place: **4 new ADRs**."), true);
  assert.equal(
    reportsFinishedWork('All tests pass. If you would rather split the file, say the word and I will.'),
    true,
  );
  assert.equal(reportsFinishedWork('Fixed the parser. Want me to add a test too?'), false);
  assert.equal(reportsFinishedWork('Fixed the parser. Now I will run the full suite.'), false);
  assert.equal(reportsFinishedWork('Let me read the config first.'), false);
  assert.equal(reportsFinishedWork('The build is still failing on the import.'), false);
});

test('ruleSentences: wrapped lines joined, an overlong rule dropped', () => {
  assert.deepEqual(ruleSentences('Always run the linter\n  before you commit.\nNever push to main.'), [
    'Always run the linter before you commit.',
    'Never push to main.',
  ]);
  assert.deepEqual(ruleSentences(`Always ${'keep this very long sentence going '.repeat(20)}`), []);
});
