/**
 * `compact()` on a generated conversation of N messages (bench/corpus.ts `generateSession`, about 255
 * tokens a message), for profiling: `node --cpu-prof out/bench/compactProfile.js [N] [window]`
 * prints the first count of the whole context and three automatic compactions with the extractive
 * summarizer, in milliseconds. Not part of `npm run bench` (one run at 100k messages takes minutes).
 */
import { generateSession } from './corpus';
import { TokenMeter } from '../src/compaction/meter';
import { itemsFromEntries } from '../src/compaction/context';
import { compact } from '../src/compaction/compactor';
import { ExtractiveSummarizer } from '../src/compaction/extractive';
import { nowMs } from './stats';

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 100_000);
  let entries = generateSession(5, n * 300);
  entries = entries.slice(0, n);
  const items = itemsFromEntries(entries);
  const meter = new TokenMeter({ model: 'gpt-4o' });
  let t0 = nowMs();
  const total = meter.measure(items).total;
  console.log(`${items.length} items, ${total} tokens, count ${Math.round(nowMs() - t0)} ms`);
  for (let r = 0; r < Number(process.argv[4] ?? 3); r++) {
    t0 = nowMs();
    const res = await compact({ items, meter, summarizer: new ExtractiveSummarizer((t) => meter.countText(t), { lineAdditive: meter.lineAdditive }), options: { budget: { contextWindow: Number(process.argv[3] ?? 128_000), compactAt: 0.8, compactTo: 0.5, reservedOutput: 4096 }, trigger: 'auto' } });
    console.log(`compact ${Math.round(nowMs() - t0)} ms`, res.outcome, res.tokensBefore, res.tokensAfter, res.reason.slice(0, 300));
  }
}
void main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
