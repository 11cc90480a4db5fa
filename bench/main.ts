/**
 * `npm run bench`: every benchmark of ContextKeeper in one run. Prints a table and writes
 * bench/results.json. Options: `--only=tokenizers,firstcount,meter,service,requestpath,compact,worker,planner,economics,replay,sidebar,extension,watch,largefollow,quality` runs a subset;
 * `--quick` uses fewer repetitions (a smoke run; figures are noisier). A subset or a quick run writes
 * bench/results.partial.json instead, so the complete run's figures, measured side by side, stay whole.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSessions, messageTexts } from './corpus';
import { benchClasses, benchFirstCount, benchLongPieces, benchTokenizers, freeTokenizers } from './tokenizers';
import { benchMeter } from './meter';
import { benchPlanner } from './planner';
import { benchEconomics } from './economics';
import { benchExtension } from './extension';
import { benchSidebar } from './sidebar';
import { benchWatch } from './watch';
import { benchLargeFollow } from './large-follow';
import { benchQuality } from './quality/index';
import { benchReplay } from './replay';
import { benchServiceCall } from './service-call';
import { benchRequestPath } from './request-path';
import { benchCompact } from './compact';
import { benchCliPeaks } from './cli-memory';
import { benchWorker } from './worker';
import { table, targets } from './report';

const args = process.argv.slice(2);
const only = args
  .find((a) => a.startsWith('--only='))
  ?.slice(7)
  .split(',');
const quick = args.includes('--quick');
const want = (s: string) => !only || only.includes(s);
/** The repository root (this file runs from out/bench/). */
const root = path.resolve(__dirname, '../..');

const t0 = Date.now();
function log(line: string): void {
  process.stderr.write(`[${Math.round((Date.now() - t0) / 1000)}s] ${line}\n`);
}

async function main(): Promise<void> {
  const started = Date.now();
  const { sessions, source } = await loadSessions();
  const results: Record<string, unknown> = {
    machine: {
      node: process.version,
      platform: `${os.platform()} ${os.arch()}`,
      cpus: os.cpus().length,
      cpu: os.cpus()[0]?.model,
      memoryGB: Math.round(os.totalmem() / 2 ** 30),
      loadAverage: os.loadavg().map((x) => Number(x.toFixed(2))),
    },
    date: new Date().toISOString(),
    input: source,
  };
  if (want('tokenizers')) {
    const texts = sessions.flatMap((s) => s.entries.flatMap((e) => messageTexts(e.message)));
    // Every third text (about 1.2 MB of the 3.7 MB of transcript text) keeps the run short.
    const sample = texts.filter((_, i) => i % 3 === 0);
    results.tokenizers = [
      benchTokenizers(sample, 'o200k_base', quick ? 3 : 7),
      benchTokenizers(sample, 'cl100k_base', quick ? 3 : 7),
    ];
    results.tokenizerClasses = [
      ...benchClasses('o200k_base', quick ? 3 : 9),
      ...benchClasses('cl100k_base', quick ? 3 : 9),
    ];
    log('tokenizer classes done');
    results.longPieces = [
      benchLongPieces('o200k_base', quick ? 4200 : 8200),
      benchLongPieces('cl100k_base', quick ? 4200 : 8200),
    ];
    freeTokenizers();
    log('long pieces done');
  }
  if (want('tokenizers') || want('firstcount')) {
    results.firstCount = benchFirstCount(root, quick ? 3 : 5);
    log('tokenizers done');
  }
  if (want('meter')) {
    results.meter = benchMeter(sessions, [10_000, 50_000, 200_000, 1_000_000], quick ? 15 : 41);
    log('meter done');
  }
  if (want('service')) {
    results.serviceCall = await benchServiceCall([10_000, 1_000_000], quick ? 10 : 25);
    // Beside it, for comparison: the same with the model replying at once (see bench/service-call.ts).
    results.serviceCallInstant = await benchServiceCall([10_000, 1_000_000], quick ? 10 : 25, 3, 0);
    log('service bookkeeping done');
  }
  if (want('requestpath')) {
    // The whole request path: the real client over loopback HTTP, the sidebar attached.
    results.requestPath = await benchRequestPath(root, [10_000, 1_000_000], quick ? 1 : 3, 12);
    log('request path done');
  }
  if (want('compact')) {
    results.compact = await benchCompact(root, [10_000, 100_000], quick ? 1 : 3, log);
    results.cliMemory = await benchCliPeaks(root, 300_000);
    log('compact done');
  }
  if (want('worker')) {
    results.worker = await benchWorker(
      root,
      [
        { tokens: 10_000 },
        { tokens: 30_000 },
        { tokens: 100_000 },
        { tokens: 1_000_000 },
        { messages: 10_000 },
        { messages: 100_000 },
        { messages: 300_000 },
      ],
      quick ? 1 : 3,
      log,
    );
    log('worker done');
  }
  if (want('planner')) {
    results.planner = benchPlanner([1000, 10_000, 100_000], quick ? 5 : 15);
    log('planner done');
  }
  if (want('economics')) {
    results.economics = await benchEconomics(sessions, [32_000, 128_000], log);
    log('economics done');
  }
  if (want('replay')) {
    results.replay = await benchReplay([10_000, 30_000, 100_000], quick ? 1 : 3);
    log('replay done');
  }
  if (want('sidebar')) {
    results.sidebar = await benchSidebar([20_000, 300_000], quick ? 100 : 300);
    log('sidebar done');
  }
  if (want('extension')) {
    results.extension = benchExtension(root, quick ? 3 : 5, !args.includes('--no-package'));
    log('extension done');
  }
  if (want('watch')) {
    results.watch = await benchWatch(quick ? 9 : 25);
    log('watch done');
  }
  if (want('largefollow')) {
    results.largeFollow = benchLargeFollow(root);
    log('large follow done');
  }
  if (want('quality')) {
    results.quality = await benchQuality(root, log);
    log('quality done');
  }
  results.seconds = Math.round((Date.now() - started) / 1000);
  const out = path.join(root, only || quick ? 'bench/results.partial.json' : 'bench/results.json');
  const ts = targets(results);
  results.targets = ts;
  fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  const m = results.machine as { cpus: number; cpu?: string; node: string; loadAverage: number[] };
  console.log(
    `ContextKeeper benchmarks: ${m.cpus} × ${m.cpu ?? 'cpu'}, node ${m.node}, load ${m.loadAverage[0]}, ${String(results.seconds)} s\n`,
  );
  console.log(table(results, source, ts));
  if (results.replay) {
    const r = results.replay as {
      sizes: number[];
      ms: number[];
      exponents: number[];
      exponentOverall: number;
      violations: number;
    };
    console.log(
      `\nreplay (growth exponent ≤ 1.2 up to 100k messages): ${r.sizes.map((n, i) => `${n / 1000}k ${r.ms[i]} ms`).join(', ')}; exponent ${r.exponents.join(', ')} (overall ${r.exponentOverall}), ${r.violations} invariant violations; met: ${r.exponentOverall <= 1.2 && r.violations === 0 ? 'yes' : 'no'}`,
    );
  }
  console.log(`\nWrote ${path.relative(process.cwd(), out) || out}.`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
