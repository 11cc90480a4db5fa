/**
 * Reported usage with cached tokens: the reading that matches the count is used, whichever way the
 * provider splits `prompt_tokens` and `prompt_tokens_details.cached_tokens`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeReported } from '../../src/compaction/meter/meter';
import { text, toolCalls } from '../../src/demo/modelserver/replies';
import type { ChatRequestBody, Reply, ReplyUsage } from '../../src/demo/modelserver/wire';
import { filler, promptTokensOf, serviceFixture, StubSummarizer } from './fixtures';

/** A proxy that reports `prompt_tokens` without the cached share and that share separately. */
function proxyUsage(full: number, cachedShare: number) {
  const cached = Math.round(full * cachedShare);
  return { prompt_tokens: full - cached, completion_tokens: 3, prompt_tokens_details: { cached_tokens: cached } };
}

/** OpenAI's own reading: `cached_tokens` is part of `prompt_tokens`. */
function standardUsage(full: number, cachedShare: number) {
  return {
    prompt_tokens: full,
    completion_tokens: 3,
    prompt_tokens_details: { cached_tokens: Math.round(full * cachedShare) },
  };
}

function readThenAnswer(usage: (full: number) => ReplyUsage, sizes: number[]) {
  return (body: ChatRequestBody, n: number): Reply => {
    const full = promptTokensOf(body);
    sizes.push(full);
    const last = (body.messages ?? []).at(-1) as { role?: string; content?: unknown } | undefined;
    const file = /f\d+\.txt/.exec(String(last?.content))?.[0];
    return last?.role === 'user' && file
      ? {
          ...toolCalls([{ id: `c${n}`, name: 'read_file', arguments: JSON.stringify({ path: file }) }]),
          usage: usage(full),
        }
      : text('Read.', { usage: usage(full) });
  };
}

test('a moderate cached share left out of prompt_tokens is added back: the gauge shows what was sent', async (t) => {
  for (const share of [0.2, 0.35, 0.45]) {
    const sizes: number[] = [];
    const fx = await serviceFixture(
      readThenAnswer((full) => proxyUsage(full, share), sizes),
      {
        files: { 'f1.txt': filler(60) },
        window: 64_000,
      },
    );
    t.after(fx.cleanup);
    await fx.service.runTask('Read f1.txt.');
    const budget = fx.service.getBudget();
    const sent = sizes.at(-1)!;
    assert.equal(budget.exact, true, `share ${share}`);
    assert.ok(budget.used >= sent, `share ${share}: gauge ${budget.used} >= sent ${sent}`);
    assert.ok(budget.used < sent * 1.1, `share ${share}: gauge ${budget.used} near sent ${sent}`);
    assert.ok((budget.cachedAdded ?? 0) > 0);
    assert.match(budget.usedSource ?? '', /plus the \d+ cached tokens it reported separately/);
  }
});

test('cached tokens inside prompt_tokens (the documented reading) are not added twice', async (t) => {
  for (const share of [0.3, 0.6, 0.9]) {
    const sizes: number[] = [];
    const fx = await serviceFixture(
      readThenAnswer((full) => standardUsage(full, share), sizes),
      {
        files: { 'f1.txt': filler(60) },
        window: 64_000,
      },
    );
    t.after(fx.cleanup);
    await fx.service.runTask('Read f1.txt.');
    const budget = fx.service.getBudget();
    const sent = sizes.at(-1)!;
    assert.equal(budget.exact, true);
    assert.ok(budget.used < sent * 1.1, `share ${share}: gauge ${budget.used} near sent ${sent}`);
    assert.ok(!budget.cachedAdded, `share ${share}: nothing added`);
  }
});

test('with a proxy leaving out a moderate cached share, compaction fires at the real size and no request passes the input budget', async (t) => {
  const sizes: number[] = [];
  const files: Record<string, string> = {};
  for (let i = 1; i <= 12; i++) files[`f${i}.txt`] = filler(70, `f${i}`);
  const fx = await serviceFixture(
    readThenAnswer((full) => proxyUsage(full, 0.4), sizes),
    {
      files,
      window: 16_000,
      reserved: 1_000,
      summarizer: new StubSummarizer('Read the earlier files.'),
    },
  );
  t.after(fx.cleanup);
  for (let i = 1; i <= 12; i++) assert.equal((await fx.service.runTask(`Read f${i}.txt.`)).status, 'done');
  const inputBudget = 15_000;
  assert.ok(
    sizes.every((s) => s <= inputBudget),
    `largest request ${Math.max(...sizes)} > ${inputBudget}`,
  );
  assert.ok(fx.service.getCheckpoints().length >= 1, 'compacted');
});

test('reading choice: nearer the count wins; a cached figure above prompt_tokens cannot be part of it', () => {
  assert.deepEqual(judgeReported(6_500, 10_000, 3_500), { accepted: true, reported: 10_000 });
  assert.deepEqual(judgeReported(10_100, 10_000, 6_000), { accepted: true, reported: 10_100 });
  assert.deepEqual(judgeReported(900, 1_000, 1_000), { accepted: true, reported: 1_900 });
  assert.deepEqual(judgeReported(700, 1_000, 800), { accepted: true, reported: 1_500 });
  assert.equal(judgeReported(10, 10_000, 0).accepted, false);
  assert.equal(judgeReported(Number.NaN, 10_000, 5).accepted, false);
  assert.deepEqual(judgeReported(10_000, 10_000, Number.POSITIVE_INFINITY), { accepted: true, reported: 10_000 });
});
