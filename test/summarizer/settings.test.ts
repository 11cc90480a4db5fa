/** Building the summarizer from settings and CLI flags (fromOptions.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExtractiveSummarizer } from '../../src/compaction/extractive';
import { SummarizerError } from '../../src/compaction/types';
import { OpenAISummarizer } from '../../src/summarizers/openai';
import { FallbackSummarizer } from '../../src/summarizers/fallback';
import { UNKNOWN_LOCAL_WINDOW, summarizerFromFlags, summarizerFromSettings } from '../../src/summarizers/fromOptions';
import { quarterCount } from './fixtures';
import { TokenMeter } from '../../src/compaction/meter';
import { itemsFromEntries } from '../../src/compaction/context';
import { workSession } from '../support/workSession';

test('no endpoint → extractive; an endpoint → OpenAI summarizer; fallbacks wrap it', () => {
  assert.ok(summarizerFromSettings({ countText: quarterCount }) instanceof ExtractiveSummarizer);
  assert.ok(summarizerFromSettings({ countText: quarterCount, baseUrl: ' ', model: '' }) instanceof ExtractiveSummarizer);
  const local = summarizerFromSettings({ countText: quarterCount, baseUrl: 'http://127.0.0.1:8000/v1', model: 'qwen2.5-coder' });
  assert.ok(local instanceof OpenAISummarizer);
  assert.equal(local.contextWindow, UNKNOWN_LOCAL_WINDOW);
  assert.equal(local.name, 'qwen2.5-coder');
  const openai = summarizerFromSettings({ countText: quarterCount, model: 'gpt-4o-mini', apiKey: 'k' });
  assert.equal(openai.contextWindow, 128_000);
  const chained = summarizerFromSettings({ countText: quarterCount, model: 'gpt-4o-mini', apiKey: 'k', extractiveFallback: true });
  assert.ok(chained instanceof FallbackSummarizer);
  assert.throws(() => summarizerFromSettings({ countText: quarterCount, baseUrl: 'http://x/v1' }), /summary model is required/);
  assert.throws(() => summarizerFromSettings({ countText: quarterCount, baseUrl: 'ftp://x', model: 'm' }), /must start with http/);
});

test('CLI flags: key from CONTEXT_KEEPER_API_KEY or OPENAI_API_KEY, clear errors otherwise', () => {
  assert.ok(summarizerFromFlags({}, quarterCount, {}) instanceof ExtractiveSummarizer);
  assert.ok(summarizerFromFlags({ summarizer: 'extractive' }, quarterCount, {}) instanceof ExtractiveSummarizer);
  assert.throws(() => summarizerFromFlags({ summarizer: 'magic' }, quarterCount, {}), /unknown summarizer "magic"/);
  assert.throws(() => summarizerFromFlags({ summarizer: 'openai' }, quarterCount, {}), /needs --summary-model/);
  assert.throws(() => summarizerFromFlags({ summarizer: 'openai', summaryModel: 'gpt-4o-mini' }, quarterCount, {}), /set CONTEXT_KEEPER_API_KEY or OPENAI_API_KEY/);
  const s = summarizerFromFlags({ summarizer: 'openai', summaryModel: 'gpt-4o-mini' }, quarterCount, { OPENAI_API_KEY: 'sk-x' });
  assert.ok(s instanceof OpenAISummarizer);
  const local = summarizerFromFlags({ summarizer: 'openai', baseUrl: 'http://127.0.0.1:1/v1', summaryModel: 'm', summaryWindow: 4096 }, quarterCount, {});
  assert.equal(local.contextWindow, 4096);
});

test('the fallback chain never falls back after a cancellation', async () => {
  let secondCalled = false;
  const cancelled = { name: 'primary', summarize: () => Promise.reject(new SummarizerError('compaction cancelled', 'aborted')) };
  const second = { name: 'second', summarize: () => { secondCalled = true; return Promise.resolve({ text: 'x', model: 'second', usage: { calls: 1, promptTokens: 1, completionTokens: 1 }, dropped: 0 }); } };
  const chain = new FallbackSummarizer(cancelled, { session: second });
  await assert.rejects(chain.summarize({ items: [], userRequests: [], approximateSummaryTokens: 10, maxCalls: 1 }), (e: unknown) => e instanceof SummarizerError && e.kind === 'aborted');
  assert.equal(secondCalled, false);
});

test("the settings' extractive summarizer counts its notes line by line once the counter is exact, with the same notes", () => {
  const meter = new TokenMeter({ model: 'gpt-4o' });
  const items = itemsFromEntries(workSession(3, 120));
  let exact = false;
  let longest = 0;
  const countText = (t: string) => {
    longest = Math.max(longest, t.length);
    return meter.countText(t);
  };
  const summarizer = summarizerFromSettings({ countText, lineAdditive: () => exact });
  assert.ok(summarizer instanceof ExtractiveSummarizer);
  const whole = summarizer.notes(items, 300);
  const longestWhole = longest;
  // The counter turns exact (a deferred table finished loading): the next notes are counted by line.
  exact = true;
  longest = 0;
  const byLine = summarizer.notes(items, 300);
  assert.equal(byLine, whole);
  assert.ok(longestWhole >= whole.length, 'before: the whole notes were counted');
  assert.ok(longest < whole.length, `after: no text as long as the notes was counted (${longest} of ${whole.length} characters)`);
});
