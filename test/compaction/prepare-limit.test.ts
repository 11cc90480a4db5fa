/**
 * `maxEstimatedAfter`: a compaction whose plan is estimated to leave more than the limit makes no
 * summarizer call (a summary prepared ahead that would be thrown away at the trigger costs nothing).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A, S, U, chars, items } from '../support/conversation';
import { quarterCounter } from '../support/generate';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { prepareCompaction } from '../../src/compaction/rewrite/compactor';
import type { ChatMessage, Summarizer, SummaryRequest } from '../../src/compaction/types';
import { describeCompaction } from '../../src/compaction/outcome-text';

const meter = new TokenMeter({ counter: quarterCounter });

/** The extractive summarizer, counting its requests. */
function counting(): Summarizer & { requests: number } {
  const inner = new ExtractiveSummarizer((t) => meter.countText(t));
  const s = { name: 'extractive', requests: 0, summarize: (r: SummaryRequest) => (s.requests++, inner.summarize(r)) };
  return s;
}

/** Old turns that can be summarised, then a latest request too large to be (about 1,500 tokens). */
function conversation(): ChatMessage[] {
  const out: ChatMessage[] = [S('agent')];
  for (let k = 0; k < 10; k++) out.push(U(`turn ${k} ${chars(600, k)}`), A(`reply ${k} ${chars(600, k + 3)}`));
  out.push(U(`latest request ${chars(6000, 7)}`));
  return out;
}

const budget = { contextWindow: 6000, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 };

test('a plan estimated to leave more than maxEstimatedAfter is not run and calls no summarizer', async () => {
  const summarizer = counting();
  const r = await prepareCompaction({
    items: items(conversation()),
    meter,
    summarizer,
    options: { budget, trigger: 'auto', force: true, maxEstimatedAfter: 1000 },
  });
  assert.ok('status' in r, 'not prepared');
  if (!('status' in r)) return;
  assert.notEqual(r.status.kind, 'applied');
  assert.equal(r.status.kind, 'does-not-fit');
  assert.match(describeCompaction(r.status), /^cannot get below 1,000 tokens: at best [\d,]+/);
  assert.equal(summarizer.requests, 0, 'no summarizer call');
});

test('a plan estimated within maxEstimatedAfter runs as without it', async () => {
  const summarizer = counting();
  const r = await prepareCompaction({
    items: items(conversation()),
    meter,
    summarizer,
    options: { budget, trigger: 'auto', force: true, maxEstimatedAfter: 5000 },
  });
  assert.ok(!('status' in r), `prepared (${'status' in r ? describeCompaction(r.status) : ''})`);
  if ('status' in r) return;
  assert.ok(summarizer.requests >= 1, 'summarized');
  assert.ok(r.tokensAfter < r.tokensBefore, `${r.tokensBefore} → ${r.tokensAfter}`);
});
