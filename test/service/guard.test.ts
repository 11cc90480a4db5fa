/** Configuration checks and the loop guard at service level. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { text, toolCalls } from '../../src/demo/modelserver/replies';
import { filler, serviceFixture, StubSummarizer } from './fixtures';

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

test('when what must stay is over the trigger, automatic compaction stops after a few tries and says why', async (t) => {
  const summarizer = new StubSummarizer('SUMMARY-OK');
  // A system prompt of ~12.2k tokens (beside ~1k of tool schemas) in a 16k window: nothing compaction
  // may touch gets below the trigger.
  const fx = await serviceFixture(
    (_b, n) =>
      n <= 10
        ? toolCalls([{ id: `c${n}`, name: 'read_file', arguments: '{"path":"a.txt"}' }], filler(20, `s${n}`))
        : text('done'),
    { files: { 'a.txt': filler(30) }, summarizer, window: 16_000, reserved: 1_000, systemPrompt: filler(870, 'rule') },
  );
  t.after(fx.cleanup);
  const outcome = await fx.service.runTask('go');
  assert.equal(outcome.status, 'done');
  assert.equal(outcome.modelCalls, 11);
  assert.ok(fx.service.getCheckpoints().length <= 3, `checkpoints: ${fx.service.getCheckpoints().length}`);
  assert.ok(summarizer.requests.length <= 3, `summarizer calls: ${summarizer.requests.length}`);
  assert.ok(
    fx.service.getBudget().warnings.some((w) => /cannot help|Compaction keeps refilling|paused/i.test(w)),
    fx.service.getBudget().warnings.join('\n'),
  );
});
