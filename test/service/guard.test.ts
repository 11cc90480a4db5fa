/** Configuration checks and the loop guard at service level. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { text, toolCalls } from '../../src/demo/modelserver/replies';
import { filler, promptTokensOf, serviceFixture, StubSummarizer } from './fixtures';

test('an output reservation of most of the window is clamped and flagged; a short task does not compact', async (t) => {
  const fx = await serviceFixture(
    (_b, n) => (n <= 3 ? toolCalls([{ id: `c${n}`, name: 'read_file', arguments: '{"path":"a.txt"}' }]) : text('done')),
    {
      files: { 'a.txt': filler(40) },
      window: 128_000,
      reserved: 100_000,
      compactAt: 0.75,
      systemPrompt: filler(1_400, 'rule'),
    },
  );
  t.after(fx.cleanup);
  const budget = fx.service.getBudget();
  assert.ok(budget.reserved < 100_000, `reservation clamped to ${budget.reserved}`);
  assert.ok(
    budget.warnings.some((w) => /reserved output/.test(w)),
    budget.warnings.join('\n'),
  );
  const outcome = await fx.service.runTask('read a.txt a few times');
  assert.equal(outcome.status, 'done');
  assert.equal(outcome.compactions, 0);
});

test('when what must stay is over the trigger, automatic compaction pauses after a few tries and says why; a prompt over the budget is still compacted', async (t) => {
  const summarizer = new StubSummarizer('SUMMARY-OK');
  const log: string[] = [];
  // A system prompt of ~12.2k tokens (beside ~1k of tool schemas) in a 16k window: nothing compaction
  // may touch gets below the trigger (12k); the reads take the prompt past the budget (15k) a few times.
  const fx = await serviceFixture(
    (_b, n) =>
      n <= 10
        ? toolCalls([{ id: `c${n}`, name: 'read_file', arguments: '{"path":"a.txt"}' }], filler(20, `s${n}`))
        : text('done'),
    {
      files: { 'a.txt': filler(30) },
      summarizer,
      window: 16_000,
      reserved: 1_000,
      systemPrompt: filler(870, 'rule'),
      log: (level, message) => log.push(`${level}: ${message}`),
    },
  );
  t.after(fx.cleanup);
  const budget = fx.service.getBudget();
  const outcome = await fx.service.runTask('go');
  assert.equal(outcome.status, 'done', outcome.error);
  assert.equal(outcome.modelCalls, 11);
  const forcedLines = log.filter((l) => /compacting although automatic compaction paused/.test(l));
  const forced = forcedLines.length;
  // Compactions during the pause ran only for prompts over the budget.
  for (const line of forcedLines) {
    const carried = Number(/would carry ([\d,]+) prompt tokens/.exec(line)?.[1].replace(/,/g, ''));
    assert.ok(carried > budget.inputBudget, line);
  }
  // Every compaction after the pause was one the budget required.
  assert.ok(
    fx.service.getCheckpoints().length <= 3 + forced,
    `checkpoints: ${fx.service.getCheckpoints().length}, forced: ${forced}`,
  );
  for (const body of fx.requests) assert.ok(promptTokensOf(body) <= budget.inputBudget, `sent ${promptTokensOf(body)}`);
  assert.ok(
    fx.service.getBudget().warnings.some((w) => /Automatic compaction is paused: it refilled past the trigger/.test(w)),
    fx.service.getBudget().warnings.join('\n'),
  );
});
