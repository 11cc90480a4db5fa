/**
 * The counts the compaction keeps instead of re-reading: the requests section's token count is the
 * exact count of its text (request by request, multi-line requests included), digits are grouped as
 * `toLocaleString('en-US')` groups them, one tool result's call is found as the whole-context index
 * finds it, and committing what preparing applied gives the same result as applying it again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { callIndex, callOf } from '../../src/compaction/rewrite/collapse';
import { compact, prepareCompaction } from '../../src/compaction/rewrite/compactor';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { itemsFromEntries } from '../../src/compaction/context';
import { generateSession } from '../../bench/corpus';
import { rng } from '../support/generate';
import { commitPrepared } from '../../src/compaction/rewrite/commit';
import { groupDigits, renderRequestsSection } from '../../src/compaction/summary/requests-section';

const meter = new TokenMeter({ model: 'gpt-4o' });
const count = (t: string) => meter.countText(t);

test('requests section: the kept per-request counts equal the exact count of the text at every budget', () => {
  const r = rng(3);
  const words = 'fix the parser keep src/app.ts tests pass /tmp/x  indented 12,345 “quote” 日本語 emoji 🎉'.split(' ');
  const reqs = Array.from({ length: 60 }, (_, i) => {
    const n = 3 + Math.floor(r() * 120);
    const text = Array.from({ length: n }, () => words[Math.floor(r() * words.length)]).join(r() < 0.2 ? '\n' : ' ');
    return `${i} ${text}`;
  });
  for (const budget of [40, 120, 300, 700, 1500, 4000, 100_000]) {
    for (const encoding of [undefined, 'o200k_base']) {
      const s = renderRequestsSection(reqs, budget, count, true, encoding);
      assert.equal(s.tokens, count(s.text), `budget ${budget}`);
      const plain = renderRequestsSection(reqs, budget, count, false);
      assert.deepEqual(
        { ...plain, text: plain.text },
        { ...s, text: s.text },
        `budget ${budget}: same section with and without line counts`,
      );
    }
  }
});

test('groupDigits writes integers as toLocaleString("en-US") does', () => {
  for (const n of [0, 7, 999, 1000, 12_345, 999_999, 1_000_000, 25_547_379, -4321])
    assert.equal(groupDigits(n), n.toLocaleString('en-US'));
});

test('callOf finds the call of each tool result as callIndex does', () => {
  const items = itemsFromEntries(generateSession(7, 400_000).slice(0, 1500));
  const index = callIndex(items);
  for (let i = 0; i < items.length; i++) assert.deepEqual(callOf(items, i), index.get(i), `item ${i}`);
});

test('compact() commits what preparing applied: the same result as committing a prepared compaction afresh', async () => {
  const items = itemsFromEntries(generateSession(5, 300_000).slice(0, 1200));
  const summarizer = new ExtractiveSummarizer(count, { lineAdditive: meter.lineAdditive });
  const options = {
    budget: { contextWindow: 32_000, compactAt: 0.8, compactTo: 0.5, reservedOutput: 4096 },
    trigger: 'auto' as const,
    now: () => new Date(0),
  };
  const prepared = await prepareCompaction({ items, meter, summarizer, options });
  assert.ok(!('status' in prepared));
  // A copy of the prepared compaction is not the one that was applied: committed from scratch.
  const fresh = commitPrepared(items, { ...prepared }, meter);
  const kept = commitPrepared(items, prepared, meter);
  assert.ok(fresh.status.kind === 'applied' && kept.status.kind === 'applied');
  const strip = (r: typeof kept) => ({ ...r, checkpoints: r.checkpoints.map((c) => ({ ...c, durationMs: 0 })) });
  assert.deepEqual(strip(kept), strip(fresh));
  assert.equal(kept.tokensAfter, meter.measure(kept.context).total);
  const whole = await compact({ items, meter, summarizer, options });
  assert.equal(whole.tokensAfter, kept.tokensAfter);
});
