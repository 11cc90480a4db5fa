/**
 * `npm run bench:quality`: the summary-quality section of the benchmarks on its own. Prints its table
 * and stores its figures under `quality` in bench/results.json, leaving the other sections' figures
 * of the last full run in place; then runs the next-steps evaluation (bench/quality/next-steps),
 * which prints one table per window and writes bench/results-next-steps.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { benchQuality } from './quality/index';
import { qualityTable } from './quality/report';
import { runNextSteps } from './quality/next-steps/main';

const root = path.resolve(__dirname, '../..');
const t0 = Date.now();
const log = (line: string) => process.stderr.write(`[${Math.round((Date.now() - t0) / 1000)}s] ${line}\n`);

async function main(): Promise<void> {
  const q = await benchQuality(root, log);
  const file = path.join(root, 'bench/results.json');
  const results = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  results.quality = q;
  fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  console.log(qualityTable(q));
  console.log(`\nWrote ${path.relative(process.cwd(), file) || file} (quality).`);
  console.log('\n## Next steps: what the agent needed after each compaction point');
  await runNextSteps(root);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
