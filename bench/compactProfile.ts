/**
 * `compact()` on a generated conversation of N messages (bench/corpus.ts `generateSession`, about 255
 * tokens a message), for profiling: `node out/bench/compactProfile.js [N] [window] [runs] [profiled run]`
 * prints the first count of the whole context and `runs` automatic compactions (default 3) with the
 * extractive summarizer, in milliseconds (wall and CPU). With a profiled run (1-based), that run alone is written as
 * a CPU profile to `compact-run<k>.cpuprofile` in the working directory (run 1 is "first sight":
 * messages never read before; later runs reuse what was kept per message). Not part of `npm run
 * bench` (one run at 100k messages takes seconds to minutes).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { generateSession } from './corpus';
import { TokenMeter } from '../src/compaction/meter';
import { itemsFromEntries } from '../src/compaction/context';
import { compact } from '../src/compaction/compactor';
import { ExtractiveSummarizer } from '../src/compaction/extractive';
import { nowMs } from './stats';

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 100_000);
  const runs = Number(process.argv[4] ?? 3);
  const profiled = Number(process.argv[5] ?? 0);
  let entries = generateSession(5, n * 300);
  entries = entries.slice(0, n);
  const items = itemsFromEntries(entries);
  const meter = new TokenMeter({ model: 'gpt-4o' });
  let t0 = nowMs();
  const total = meter.measure(items).total;
  console.log(`${items.length} items, ${total} tokens, count ${Math.round(nowMs() - t0)} ms`);
  // One summarizer for every run, as the service keeps one (and bench/compact.ts does).
  const summarizer = new ExtractiveSummarizer((t) => meter.countText(t), { lineAdditive: meter.lineAdditive });
  const session = new Session();
  session.connect();
  for (let r = 1; r <= runs; r++) {
    if (r === profiled) {
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    t0 = nowMs();
    const cpu0 = process.cpuUsage();
    const res = await compact({ items, meter, summarizer, options: { budget: { contextWindow: Number(process.argv[3] ?? 128_000), compactAt: 0.8, compactTo: 0.5, reservedOutput: 4096 }, trigger: 'auto' } });
    const ms = nowMs() - t0;
    const cpu = process.cpuUsage(cpu0);
    if (r === profiled) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(`compact-run${r}.cpuprofile`, JSON.stringify(profile));
    }
    console.log(`compact ${Math.round(ms)} ms (CPU ${Math.round((cpu.user + cpu.system) / 1000)} ms)`, res.outcome, res.tokensBefore, res.tokensAfter, res.reason.slice(0, 300));
  }
  session.disconnect();
}
void main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
