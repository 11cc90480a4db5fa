/**
 * A restore, then automatic compaction pauses (the restored messages are kept out, so it keeps
 * refilling past the trigger), then the context grows past what fits: the user agrees to compact the
 * restored messages and the compaction runs despite the pause; no request above the prompt budget is
 * ever sent; the gauge's notes tell the pause and the restore, and the gauge carries the pause for the
 * status bar. Through a real context service and a
 * loopback model server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { text, toolCalls } from '../../src/demo/modelserver/replies';
import { filler, promptTokensOf, serviceFixture, StubSummarizer } from './fixtures';
import type { RestoredOverflow } from '../../src/service/records';

const files: Record<string, string> = {};
// Six large files for the first task, then ten of ~1k tokens: each step of the second task refills
// past the trigger what a compaction that must leave the restored messages alone can save.
for (let i = 1; i <= 16; i++) files[`src/f${i}.txt`] = filler(i <= 6 ? 160 : 90, `f${i}`);

/** Task 1 reads f1..f6, task 2 reads f7..f16, one file a step; then a text answer. */
async function fixture(
  confirm: (info: RestoredOverflow) => Promise<boolean>,
  extra: Parameters<typeof serviceFixture>[1] = {},
) {
  let task = 1;
  let firstCall = 0;
  const fx = await serviceFixture(
    (_body, n) => {
      const step = n - firstCall;
      const [from, count] = task === 1 ? [1, 6] : [7, 10];
      return step <= count
        ? toolCalls([
            { id: `c${n}`, name: 'read_file', arguments: JSON.stringify({ path: `src/f${from + step - 1}.txt` }) },
          ])
        : text('Done.');
    },
    { files, window: 16_000, reserved: 1_000, confirmCompactRestored: confirm, ...extra },
  );
  const first = await fx.service.runTask('Read src/f1.txt to src/f6.txt one by one.');
  assert.equal(first.status, 'done');
  // Restoring the first checkpoint brings back over the trigger, inside the window.
  await fx.service.restoreCheckpoint(fx.service.getCheckpoints()[0].id);
  const budget = fx.service.getBudget();
  assert.ok(
    budget.used >= budget.compactAt.tokens && budget.used <= budget.inputBudget,
    `restored: ${budget.used} (trigger ${budget.compactAt.tokens}, budget ${budget.inputBudget})`,
  );
  task = 2;
  firstCall = fx.requests.length;
  return fx;
}

test('after a restore and a pause of automatic compaction, the compaction the user agreed to runs and no request over the prompt budget is sent', async (t) => {
  const asked: RestoredOverflow[] = [];
  const fx = await fixture(async (info) => {
    asked.push(info);
    return true;
  });
  t.after(fx.cleanup);
  const budget = fx.service.getBudget();
  const restoredIds = new Set(fx.service.getCheckpoints()[0].replacedIds);
  const notes: string[] = [];
  fx.service.onDidChangeBudget((b) => notes.push(...b.warnings));
  const sentBefore = fx.requests.length;
  const checkpointsBefore = fx.service.getCheckpoints().length;
  const outcome = await fx.service.runTask('Now read src/f7.txt to src/f16.txt.');
  assert.equal(outcome.status, 'done', outcome.error);
  assert.equal(asked.length, 1, 'the user was asked once');
  assert.ok(asked[0].used > asked[0].inputBudget, JSON.stringify(asked[0]));
  // The pause was shown with its reason, and the restore named, before the user was asked.
  assert.ok(
    notes.some((n) => /Automatic compaction is paused: it refilled past the trigger/.test(n)),
    [...new Set(notes)].join('\n'),
  );
  assert.ok(
    notes.some((n) => /a checkpoint restore brought back/.test(n)),
    [...new Set(notes)].join('\n'),
  );
  // The compaction the user agreed to ran: a checkpoint replaced restored messages.
  const later = fx.service.getCheckpoints().slice(checkpointsBefore);
  assert.ok(
    later.some((c) => c.replacedIds.some((id) => restoredIds.has(id))),
    'restored messages were compacted after the user agreed',
  );
  const sizes = fx.requests.slice(sentBefore).map((body) => promptTokensOf(body));
  assert.equal(sizes.length, 11);
  for (const size of sizes) assert.ok(size <= budget.inputBudget, `requests sent: ${sizes.join(', ')}`);
});

test('while automatic compaction is paused for thrashing, a prompt over the budget is still compacted before it is sent', async (t) => {
  const summarizer = new StubSummarizer('SUMMARY-OK');
  const log: string[] = [];
  // A system prompt of ~9.6k tokens beside ~1k of tool schemas in a 16k window (trigger 12k, budget
  // 15k): every compaction lands near the trigger and the next read refills past it, so automatic
  // compaction pauses; the reads go on until the prompt would be over the budget.
  const fx = await serviceFixture(
    (_b, n) =>
      n <= 14 ? toolCalls([{ id: `c${n}`, name: 'read_file', arguments: '{"path":"a.txt"}' }]) : text('done'),
    {
      files: { 'a.txt': filler(90) },
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
  const sizes = fx.requests.map((body) => promptTokensOf(body));
  for (const size of sizes)
    assert.ok(size <= budget.inputBudget, `requests sent: ${sizes.join(', ')}; ${log.join('\n')}`);
  assert.equal(outcome.status, 'done', outcome.error);
  assert.ok(
    log.some((l) => /compacting although automatic compaction paused/.test(l)),
    'the prompt over the budget was compacted during the pause',
  );
  assert.ok(
    fx.service.getBudget().warnings.some((w) => /Automatic compaction is paused/.test(w)),
    fx.service.getBudget().warnings.join('\n'),
  );
  // The gauge carries the pause as a field of its own, for the status bar.
  assert.match(fx.service.getBudget().autoPaused ?? '', /^paused: it refilled past the trigger \d+ times/);
});
