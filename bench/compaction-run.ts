/**
 * The compaction benchmarks alone, on real text: `node bench/build.mjs && node --expose-gc
 * out/bench/compaction-run.js --section=compact|worker [--sizes=…] [--reps=3]`. `compact` sizes are
 * messages (default 10000,100000; see ./compact); `worker` sizes are tokens, or messages with an `m`
 * suffix (default 10000m,100000m,300000m; see ./worker). Prints the figures as JSON after the log.
 */
import path from 'node:path';
import os from 'node:os';
import { benchCompact } from './compact';
import { benchWorker, type WorkerSize } from './worker';

async function main(): Promise<void> {
  const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const section = arg('section') ?? 'compact';
  const reps = Number(arg('reps') ?? 3);
  const root = path.resolve(__dirname, '../..');
  const t0 = Date.now();
  const log = (line: string) => process.stderr.write(`[${Math.round((Date.now() - t0) / 1000)}s] ${line}\n`);
  log(
    `load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  let result: unknown;
  if (section === 'compact') {
    const sizes = (arg('sizes') ?? '10000,100000').split(',').map(Number);
    result = await benchCompact(root, sizes, reps, log);
  } else if (section === 'worker') {
    const sizes = (arg('sizes') ?? '10000m,100000m,300000m')
      .split(',')
      .map((s): WorkerSize => (s.endsWith('m') ? { messages: Number(s.slice(0, -1)) } : { tokens: Number(s) }));
    result = await benchWorker(root, sizes, reps, log);
  } else throw new Error(`--section must be compact or worker, not ${section}`);
  log(
    `load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log(JSON.stringify(result, null, 2));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
