/** Automatic compaction inside the agent's tool loop. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatMessage } from '../../src/compaction/types';
import { checkToolPairing } from '../../src/compaction/plan/invariants';
import { checkContext } from '../../src/compaction/plan/invariants';
import { text, toolCalls } from '../../src/demo/modelserver/replies';
import { filler, promptTokensOf, resultCounts, serviceFixture, StubSummarizer } from './fixtures';

const files = (n: number, lines: number): Record<string, string> => {
  const out: Record<string, string> = {};
  for (let i = 1; i <= n; i++) out[`src/f${i}.txt`] = filler(lines, `f${i}`);
  return out;
};

test('one request, 30 tool rounds with parallel calls: compacts mid-turn at safe points, never over budget, ids answered once', async (t) => {
  const fx = await serviceFixture(
    (_body, n) =>
      n <= 15
        ? toolCalls([
            { id: `a${n}`, name: 'read_file', arguments: JSON.stringify({ path: `src/f${2 * n - 1}.txt` }) },
            { id: `b${n}`, name: 'read_file', arguments: JSON.stringify({ path: `src/f${2 * n}.txt` }) },
          ])
        : text('All files read.'),
    { files: files(30, 180), window: 32_000, reserved: 2_000 },
  );
  t.after(fx.cleanup);
  const outcome = await fx.service.runTask('Read every file under src/ and report.');
  assert.equal(outcome.status, 'done');
  assert.equal(outcome.modelCalls, 16);
  assert.ok(outcome.compactions >= 2, `compacted mid-turn (${outcome.compactions})`);
  const budget = fx.service.getBudget();
  for (const [k, body] of fx.requests.entries()) {
    const messages = body.messages as ChatMessage[];
    assert.deepEqual(checkToolPairing(messages), [], `request ${k + 1} pairing`);
    for (const [id, count] of resultCounts(messages))
      assert.equal(count, 1, `request ${k + 1}: ${id} answered ${count} times`);
    assert.ok(promptTokensOf(body) <= budget.inputBudget, `request ${k + 1} fits the input budget`);
    assert.notEqual(messages.at(-1)?.role, 'assistant');
  }
  const { entries, context } = fx.service.getTranscript();
  assert.deepEqual(checkContext(context, entries), []);
  // Safe points are checked above, through the pairing of every request sent; each checkpoint shrank.
  for (const cp of fx.service.getCheckpoints()) assert.ok(cp.tokensAfter < cp.tokensBefore);
});

test('compaction aims well below the trigger: 10 tool calls of ~3k tokens at a 32k window compact at most twice', async (t) => {
  const fx = await serviceFixture(
    (_body, n) =>
      n <= 10
        ? toolCalls([{ id: `c${n}`, name: 'read_file', arguments: JSON.stringify({ path: `src/f${n}.txt` }) }])
        : text('done'),
    { files: files(10, 270), window: 32_000, reserved: 0 },
  );
  t.after(fx.cleanup);
  const outcome = await fx.service.runTask('Look at the logs.');
  assert.equal(outcome.status, 'done');
  assert.ok(outcome.compactions >= 1 && outcome.compactions <= 2, `compactions: ${outcome.compactions}`);
});

test('a new request that crosses the trigger is compacted before sending; it goes last and verbatim', async (t) => {
  const fx = await serviceFixture(
    (_body, n) =>
      n <= 4
        ? toolCalls([{ id: `c${n}`, name: 'read_file', arguments: JSON.stringify({ path: `src/f${n}.txt` }) }])
        : text('ok'),
    { files: files(4, 130), window: 16_000, reserved: 1_000 },
  );
  t.after(fx.cleanup);
  await fx.service.runTask('Read the four files.');
  assert.equal(fx.service.getCheckpoints().length, 0);
  const big = `Now refactor with these notes:\n${filler(700, 'note')}`;
  const before = fx.requests.length;
  const outcome = await fx.service.runTask(big);
  assert.equal(outcome.status, 'done');
  assert.ok(fx.service.getCheckpoints().length >= 1, 'compacted before the call');
  const sent = fx.requests[before].messages as ChatMessage[];
  assert.equal(sent.at(-1)?.role, 'user');
  assert.equal(sent.at(-1)?.content, big);
  assert.equal(sent.filter((m) => m.role === 'system').length, 1);
  assert.equal(sent[0].role, 'system');
  for (const body of fx.requests) assert.notEqual((body.messages as ChatMessage[]).at(-1)?.role, 'assistant');
});

/** Four read steps, then a text answer; compactions never finish (the summarizer hangs) within 150 ms. */
async function hangingFixture() {
  return serviceFixture(
    (_b, n) =>
      n <= 4
        ? toolCalls(
            [{ id: `c${n}`, name: 'read_file', arguments: JSON.stringify({ path: `src/f${n}.txt` }) }],
            filler(60, `why${n}`),
          )
        : text('ok'),
    {
      files: files(4, 130),
      window: 16_000,
      reserved: 1_000,
      summarizer: new StubSummarizer('never', 0, 'never'),
      compactionTimeoutMs: 150,
    },
  );
}

test('when the compaction before the call times out, the request still ends with the new message, verbatim', async (t) => {
  const fx = await hangingFixture();
  t.after(fx.cleanup);
  await fx.service.runTask('Read the four files.');
  // Over the trigger, inside the prompt budget: the request goes out uncompacted.
  const big = `Now refactor with these notes:\n${filler(80, 'note')}`;
  const before = fx.requests.length;
  const outcome = await fx.service.runTask(big);
  assert.equal(outcome.status, 'done', outcome.error);
  const sent = fx.requests[before].messages as ChatMessage[];
  assert.equal(sent.at(-1)?.role, 'user');
  assert.equal(sent.at(-1)?.content, big);
  assert.deepEqual(checkToolPairing(sent), []);
});

test('when the compaction before the call times out and the prompt is over the budget, the task stops naming the figures and nothing is sent', async (t) => {
  const fx = await hangingFixture();
  t.after(fx.cleanup);
  await fx.service.runTask('Read the four files.');
  const before = fx.requests.length;
  const outcome = await fx.service.runTask(`Now refactor with these notes:\n${filler(500, 'note')}`);
  assert.equal(outcome.status, 'error');
  assert.match(
    outcome.error ?? '',
    /The next request would carry [\d,]+ prompt tokens; 15,000 fit the context window \(16,000 tokens, 1,000 reserved for the reply\)/,
  );
  assert.equal(fx.requests.length, before, 'no request over the budget was sent');
});

test('with the system prompt and tool schemas alone over the window, the task stops saying so with the figures, and nothing is sent', async (t) => {
  const fx = await serviceFixture(() => text('ok'), {
    window: 4_000,
    reserved: 0,
    systemPrompt: `You are a test agent. ${filler(400, 'rule')}`,
  });
  t.after(fx.cleanup);
  const outcome = await fx.service.runTask('Read the files.');
  assert.equal(outcome.status, 'error');
  assert.match(
    outcome.error ?? '',
    /The next request would carry [\d,]+ prompt tokens and was not sent: The system prompt and tool schemas alone hold [\d,]+ tokens, over the 4,000 a request may carry \(the 4,000-token window less 0 reserved for the reply\), so no request can fit whatever is compacted/,
  );
  assert.equal(fx.requests.length, 0, 'no request over the budget was sent');
});
