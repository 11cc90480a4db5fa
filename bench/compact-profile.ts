/**
 * `compact()` on a conversation of N messages of real text (the conversation of ./compact:
 * bench/real-text.ts `realisticRecording`, about 75 tokens a message), for profiling: `node out/bench/compact-profile.js [N] [window] [runs] [profiled run] [grown]`
 * prints the first count of the whole context and `runs` automatic compactions (default 3) with the
 * extractive summarizer, in milliseconds (wall and CPU), and a hash of each result (the summaries'
 * text, what each checkpoint replaced, the tokens after: equal hashes mean equal compactions). With
 * a profiled run (1-based), that run alone is written as a CPU profile to `compact-run<k>.cpuprofile`
 * in the working directory (run 1 is "first sight": messages never read before; later runs reuse
 * what was kept per message). With `grown` (the fifth argument, messages), run r of R compacts the
 * first N - grown*(R-r) messages: every run after the first sees a span that grew by `grown`
 * messages, as the product does. Not part of `npm run bench` (one run at 100k messages takes
 * seconds).
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { loadRealText, realisticRecording, TextCutter } from './real-text';
import { TokenMeter } from '../src/compaction/meter/meter';
import { itemsFromEntries } from '../src/compaction/context';
import { compact } from '../src/compaction/rewrite/compactor';
import { ExtractiveSummarizer } from '../src/compaction/summary/extractive';
import { nowMs, threadCpuMs } from './stats';
import type { CompactionResult } from '../src/compaction/outcome';
import { describeCompaction } from '../src/compaction/outcome-text';

/** A short hash of what a compaction did (its checkpoints' summaries, replaced ids, inserted messages and scorecards, tokens after). */
export function resultHash(r: CompactionResult): string {
  const h = createHash('sha256');
  h.update(`${r.status.kind} ${r.tokensBefore} ${r.tokensAfter}\n`);
  for (const cp of r.checkpoints) {
    h.update(`${cp.strategy}\n${cp.summary.replace(/ck-\d{8}/g, 'ck')}\n${cp.replaced.map((i) => i.id).join(',')}\n`);
    // Checkpoint ids are drawn at random: the summaries name theirs.
    for (const i of cp.inserted) h.update(JSON.stringify(i.message).replace(/ck-\d{8}/g, 'ck'));
    h.update(JSON.stringify(cp.retention ?? null));
  }
  return h.digest('hex').slice(0, 12);
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 100_000);
  const runs = Number(process.argv[4] ?? 3);
  const profiled = Number(process.argv[5] ?? 0);
  const grown = Number(process.argv[6] ?? 0);
  const text = await loadRealText(path.resolve(__dirname, '../..'));
  const entries = realisticRecording(n, new TextCutter(text, 5)).map((message, i) => ({ id: `r5-${i}`, message }));
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
    const span = grown > 0 ? items.slice(0, items.length - grown * (runs - r)) : items;
    // Collected before the profiler starts: a profile of the run holds none of this collection.
    global.gc?.();
    if (r === profiled) {
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    t0 = nowMs();
    const cpu0 = process.cpuUsage();
    const thread0 = threadCpuMs() ?? NaN;
    const res = await compact({
      items: span,
      meter,
      summarizer,
      options: {
        budget: {
          contextWindow: Number(process.argv[3] ?? 128_000),
          compactAt: 0.8,
          compactTo: 0.5,
          reservedOutput: 4096,
        },
        trigger: 'auto',
      },
    });
    const ms = nowMs() - t0;
    const cpu = process.cpuUsage(cpu0);
    const thread = (threadCpuMs() ?? NaN) - thread0;
    if (r === profiled) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(`compact-run${r}.cpuprofile`, JSON.stringify(profile));
    }
    console.log(
      `compact ${span.length} messages: ${Math.round(ms)} ms (CPU ${Math.round((cpu.user + cpu.system) / 1000)} ms, main thread ${Math.round(thread)} ms) hash ${resultHash(res)}`,
      res.status.kind,
      res.tokensBefore,
      res.tokensAfter,
      describeCompaction(res.status).slice(0, 120),
    );
  }
  session.disconnect();
}
if (require.main === module) {
  void main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
