/** A provider's context-length error mid-task: compact, retry once, record it (log and checkpoint). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Reply } from '../../src/demo/modelserver/wire';
import { text, toolCalls } from '../../src/demo/modelserver/replies';
import { filler, promptTokensOf, serviceFixture, StubSummarizer } from './fixtures';

/** llama.cpp's answer to a prompt over its `-c`, with the sizes it reports. */
const overflow = (sent: number, nCtx: number): Reply => ({
  type: 'status',
  status: 400,
  body: {
    error: {
      code: 400,
      message:
        'the request exceeds the available context size. try increasing the context size or enable context shift',
      type: 'exceed_context_size_error',
      n_prompt_tokens: sent,
      n_ctx: nCtx,
    },
  },
});

test('a server serving less than the configured window: the refused request is compacted and retried, the task finishes', async (t) => {
  const served = 6_000;
  const files: Record<string, string> = {};
  for (let i = 1; i <= 4; i++) files[`src/f${i}.txt`] = filler(140, `f${i}`);
  const log: string[] = [];
  let refused = 0;
  const fx = await serviceFixture(
    (body, n) => {
      const sent = promptTokensOf(body);
      if (sent > served) return (refused++, overflow(sent, served));
      return n <= 5
        ? toolCalls([{ id: `c${n}`, name: 'read_file', arguments: JSON.stringify({ path: `src/f${n}.txt` }) }])
        : text('Read them all.');
    },
    // The setting says 64k; the server serves 6k (a setting larger than the server's window).
    {
      files,
      window: 64_000,
      reserved: 1_000,
      summarizer: new StubSummarizer('Read f1..f3 so far; continue with the rest.'),
      log: (level, message) => log.push(`${level}: ${message}`),
    },
  );
  t.after(fx.cleanup);
  const outcome = await fx.service.runTask('Read src/f1.txt to src/f4.txt and report.');
  assert.equal(outcome.status, 'done', outcome.error);
  assert.ok(refused >= 1, 'the server refused at least one request');
  const checkpoints = fx.service.getCheckpoints();
  const caused = checkpoints.filter((c) => c.cause);
  assert.ok(caused.length >= 1, 'the compaction it caused is recorded in the checkpoint');
  assert.match(caused[0].cause ?? '', /refused the request as too long.*6000 allowed/);
  assert.ok(caused[0].tokensAfter <= served, 'compacted to fit the window the server reported');
  assert.ok(
    log.some((l) => /^warn: Context-length error from the provider/.test(l)),
    'logged',
  );
  assert.ok(log.some((l) => /Compacted after the context-length error/.test(l)));
  // Every request after a refusal that was answered fit the served window.
  const answered = fx.requests.filter((b) => promptTokensOf(b) <= served);
  assert.ok(answered.length >= 5);
  // The cause survives a restart (it is persisted with the checkpoint).
  const again = await fx.reopen();
  assert.ok(again.getCheckpoints().some((c) => c.cause === caused[0].cause));
});
