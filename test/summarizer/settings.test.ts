/** Building the summarizer from settings and CLI flags (from-options.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { SummarizerError, type ContextItem } from '../../src/compaction/types';
import { createTokenCounter } from '../../src/tokenizer/tokenizer';
import { OpenAISummarizer } from '../../src/summarizers/openai';
import { FallbackSummarizer } from '../../src/summarizers/fallback';
import { UNKNOWN_LOCAL_WINDOW, summarizerFromFlags, summarizerFromSettings } from '../../src/summarizers/from-options';
import { quarterCount } from './fixtures';

test('no endpoint → extractive; an endpoint → OpenAI summarizer; fallbacks wrap it', () => {
  assert.ok(summarizerFromSettings({ countText: quarterCount }) instanceof ExtractiveSummarizer);
  assert.ok(
    summarizerFromSettings({ countText: quarterCount, baseUrl: ' ', model: '' }) instanceof ExtractiveSummarizer,
  );
  const local = summarizerFromSettings({
    countText: quarterCount,
    baseUrl: 'http://127.0.0.1:8000/v1',
    model: 'qwen2.5-coder',
  });
  assert.ok(local instanceof OpenAISummarizer);
  assert.equal(local.contextWindow, UNKNOWN_LOCAL_WINDOW);
  assert.equal(local.name, 'qwen2.5-coder');
  const openai = summarizerFromSettings({ countText: quarterCount, model: 'gpt-4o-mini', apiKey: 'k' });
  assert.equal(openai.contextWindow, 128_000);
  const chained = summarizerFromSettings({
    countText: quarterCount,
    model: 'gpt-4o-mini',
    apiKey: 'k',
    extractiveFallback: true,
  });
  assert.ok(chained instanceof FallbackSummarizer);
  assert.throws(
    () => summarizerFromSettings({ countText: quarterCount, baseUrl: 'http://x/v1' }),
    /summary model is required/,
  );
  assert.throws(
    () => summarizerFromSettings({ countText: quarterCount, baseUrl: 'ftp://x', model: 'm' }),
    /must start with http/,
  );
});

test('CLI flags: key from CONTEXT_KEEPER_API_KEY or OPENAI_API_KEY, clear errors otherwise', () => {
  assert.ok(summarizerFromFlags({}, quarterCount, {}) instanceof ExtractiveSummarizer);
  assert.ok(summarizerFromFlags({ summarizer: 'extractive' }, quarterCount, {}) instanceof ExtractiveSummarizer);
  assert.throws(() => summarizerFromFlags({ summarizer: 'magic' }, quarterCount, {}), /unknown summarizer "magic"/);
  assert.throws(() => summarizerFromFlags({ summarizer: 'openai' }, quarterCount, {}), /needs --summary-model/);
  assert.throws(
    () => summarizerFromFlags({ summarizer: 'openai', summaryModel: 'gpt-4o-mini' }, quarterCount, {}),
    /set CONTEXT_KEEPER_API_KEY or OPENAI_API_KEY/,
  );
  const s = summarizerFromFlags({ summarizer: 'openai', summaryModel: 'gpt-4o-mini' }, quarterCount, {
    OPENAI_API_KEY: 'sk-x',
  });
  assert.ok(s instanceof OpenAISummarizer);
  const local = summarizerFromFlags(
    { summarizer: 'openai', baseUrl: 'http://127.0.0.1:1/v1', summaryModel: 'm', summaryWindow: 4096 },
    quarterCount,
    {},
  );
  assert.equal(local.contextWindow, 4096);
});

test('the fallback chain never falls back after a cancellation', async () => {
  let secondCalled = false;
  const cancelled = {
    name: 'primary',
    summarize: () => Promise.reject(new SummarizerError('compaction cancelled', 'aborted')),
  };
  const second = {
    name: 'second',
    summarize: () => {
      secondCalled = true;
      return Promise.resolve({
        text: 'x',
        model: 'second',
        usage: { calls: 1, promptTokens: 1, completionTokens: 1 },
      });
    },
  };
  const chain = new FallbackSummarizer(cancelled, { session: second });
  await assert.rejects(
    chain.summarize({ items: [], userRequests: [], approximateSummaryTokens: 10, maxCalls: 1 }),
    (e: unknown) => e instanceof SummarizerError && e.kind === 'aborted',
  );
  assert.equal(secondCalled, false);
});

test("the extractive summarizer built from settings counts its notes line by line once the counter is exact, as the service's own does", async () => {
  const counter = createTokenCounter('o200k_base');
  const counted: string[] = [];
  const countText = (t: string) => {
    counted.push(t);
    return counter.countText(t);
  };
  // A deferred counter: estimates (not line-additive) when the summarizer is built, exact later.
  let exact = false;
  const summarizer = summarizerFromSettings({ countText, lineAdditive: () => exact });
  const items: ContextItem[] = [
    {
      id: 'u',
      kind: 'raw',
      message: { role: 'user', content: 'Fix the parser. Never change the public API because clients depend on it.' },
      covers: ['u'],
    },
    {
      id: 'a',
      kind: 'raw',
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'edit_file', arguments: '{"path":"src/parser.ts"}' } },
        ],
      },
      covers: ['a'],
    },
    {
      id: 't',
      kind: 'raw',
      message: {
        role: 'tool',
        tool_call_id: 'c1',
        content: 'Error: TypeError: x is undefined\n    at parse (src/parser.ts:10)',
      },
      covers: ['t'],
    },
    {
      id: 'b',
      kind: 'raw',
      message: {
        role: 'assistant',
        content: 'Decided to switch to a table-driven parser because the old one backtracks.',
      },
      covers: ['b'],
    },
  ];
  const request = { items, userRequests: [], approximateSummaryTokens: 400, maxCalls: 1 };
  const whole = await summarizer.summarize(request);
  assert.ok(whole.text.includes('\n'), 'notes of several lines');
  assert.ok(counted.includes(whole.text), 'while estimating, the whole notes are counted');
  counted.length = 0;
  exact = true;
  const byLine = await summarizer.summarize(request);
  assert.equal(byLine.text, whole.text, 'the same notes either way');
  assert.ok(
    counted.length > 0 && !counted.includes(byLine.text),
    'once exact, line by line: the whole notes are never counted',
  );
});
