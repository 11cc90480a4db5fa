/**
 * A step is finished by its structure, whatever the language or wording: the agent's last message
 * with no tool call after it ended its turn, so it is its answer (work completed), never work in
 * progress; only a message that tool calls followed is in progress. Recorded in each agent's format.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, summaryOf, type Step } from '../support/recordings';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

const JA_ANSWER = `集計できました。 ## 結論: デモは 計 40 回 実行されています。 旧 Vault: 20 回、新 Vault: 20 回。 ${'監査レコードの総数を数えました。'.repeat(150)}`;
const EN_ANSWER = `The thresholds are computed in src/meter/levels.ts: the warning level is 80% of the window and the critical level 95%. ${filler(200)}`;

const answered = (answer: string): Step[] => [
  { user: 'Count the demo transactions that ran on the old and new vault.' },
  { tool: 'bash', command: 'node count.mjs', output: 'old: 20\nnew: 20' },
  { say: answer },
  { user: 'now write the count to docs/demo-count.md' },
  { tool: 'write', path: 'docs/demo-count.md', content: '# Demo count\n40 runs' },
  { say: 'Wrote docs/demo-count.md.' },
];

for (const [format, { write, file }] of Object.entries(ALL_WRITERS)) {
  if (format === 'aider') continue; // Aider records no tool calls: each reply ends its turn.
  for (const [lang, answer] of [
    ['Japanese', JA_ANSWER],
    ['English', EN_ANSWER],
  ] as const) {
    test(`${format}: a ${lang} final answer that ended the agent's turn is finished work, not in progress`, async () => {
      const { summary } = await summaryOf(write(answered(answer)), file);
      const quote = answer.slice(0, 12);
      assert.doesNotMatch(summary, /In progress/, summary);
      assert.match(
        summary,
        new RegExp(`- (Work completed|Answered)[^\\n]*: "${quote.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
        summary,
      );
      assert.doesNotMatch(summary, /Next step: continue with the latest request/, summary);
    });
  }

  test(`${format}: an agent message that tool calls followed, one failing, is in progress`, async () => {
    const steps: Step[] = [
      { user: 'Count the demo transactions that ran on the old and new vault.' },
      { tool: 'bash', command: 'node count.mjs', output: 'old: 20\nnew: 20' },
      { say: `失敗tx の中身も確認しておきます。${'確認します。'.repeat(300)}` },
      { tool: 'bash', command: 'node check_failed.mjs', output: 'Error: cannot read tx.json', ok: false },
      { tool: 'bash', command: 'node check_failed.mjs --all', output: 'failed: 2' },
    ];
    const { summary } = await summaryOf(write(steps), file);
    assert.match(summary, /- In progress \(the agent's last message here; tool calls followed it\): "失敗tx/, summary);
    assert.doesNotMatch(summary, /Work completed/, summary);
  });
}

test('claude-code: a final answer at the end of the recording leaves the next step to the user', async () => {
  const { write, file } = ALL_WRITERS['claude-code'];
  const steps: Step[] = [
    { user: 'Count the demo transactions that ran on the old and new vault.' },
    { tool: 'bash', command: 'node count.mjs', output: 'old: 20\nnew: 20' },
    { say: JA_ANSWER },
    { user: 'ありがとう' },
    { say: 'どういたしまして。' },
  ];
  const { summary } = await summaryOf(write(steps), file);
  assert.match(summary, /- Work completed \(the agent's final message of its turn[^\n]*"集計できました/, summary);
  assert.doesNotMatch(summary, /In progress/, summary);
});
