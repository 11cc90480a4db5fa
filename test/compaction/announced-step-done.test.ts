/**
 * An agent's message announcing a step ("Now commit the docs as a second commit:") that the span's
 * next tool calls carried out successfully is a step carried out, not work in progress; its turn is
 * not over, so the next step is the agent's, unless the messages kept after the summary end with its
 * final answer (then the user's turn, said so). The same message followed by a
 * failing call is still in progress. Recorded in each agent's format.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { summaryOf, WRITERS, type Step } from '../support/recordings';

const filler = (n: number) => 'The settlement flow was documented. '.repeat(n);

const steps = (commitOk: boolean): Step[] => [
  { user: 'Update the docs and the status file, then commit them separately from the code.' },
  { tool: 'write', path: '/w/docs/settlement.md', content: '# Settlement\nHow a split is settled.' },
  { tool: 'bash', command: 'git add src && git commit -m "settlement code"', output: '[main f8e6fe0] settlement code' },
  { say: 'Now commit the docs/status updates as a second commit:' },
  {
    tool: 'bash',
    command: 'git add docs STATUS.md && git commit -m "docs and status"',
    output: commitOk
      ? '[main 73f00b8] docs and status\n 2 files changed'
      : 'error: pathspec STATUS.md did not match any files',
    ok: commitOk,
  },
  { tool: 'write', path: '/w/notes/commits.md', content: `# Commits\n${filler(80)}` },
  { tool: 'bash', command: 'git log --oneline -5', output: '73f00b8 docs and status\nf8e6fe0 settlement code' },
  { say: 'Both commits are in: f8e6fe0 (code) and 73f00b8 (docs and status).' },
];

for (const format of ['claude-code', 'cline'] as const) {
  const { write, file } = WRITERS[format];

  test(`${format}: an announced step the next tool calls carried out is done, not in progress`, async () => {
    const { summary } = await summaryOf(write(steps(true)), file);
    assert.match(
      summary,
      /- Step carried out \(announced in the agent's last message here; the tool calls after it succeeded; the turn was not over\): "Now commit the/,
      summary,
    );
    assert.doesNotMatch(summary, /In progress/, summary);
    // The span's own turn was not over: the next step is the user's only by the agent's final
    // answer in the messages kept after the summary.
    assert.doesNotMatch(
      summary,
      /Next step: the user's turn \(the (?:agent ended|latest request appears done)/,
      summary,
    );
    if (/Next step:/.test(summary))
      assert.match(
        summary,
        /Next step: (?:continue with the latest request|the user's turn \(the agent's turn went on in the messages kept after this summary, which end with the agent's final answer)/,
        summary,
      );
  });

  test(`${format}: an announced step whose tool call failed is not done`, async () => {
    const { summary } = await summaryOf(write(steps(false)), file);
    assert.doesNotMatch(summary, /- Step carried out/, summary);
    assert.match(summary, /In progress|Latest error line|open:/, summary);
  });
}
