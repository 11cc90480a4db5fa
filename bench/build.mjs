// Bundles the benchmarks (bench/main.ts, bench/activate.ts, bench/quality.ts, bench/quality/candidates.ts and the sources they import) into CommonJS files for
// plain node. Packages stay external: they load from node_modules as they would at run time
// (tiktoken reads its .wasm file next to its own module).
import * as esbuild from 'esbuild';
import { writeRankTables } from '../scripts/rankTables.mjs';

/** Options every bench bundle shares. */
const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  packages: 'external',
  tsconfig: 'tsconfig.json',
  sourcemap: true,
  logLevel: 'warning',
};

await esbuild.build({
  ...common,
  entryPoints: [
    'bench/main.ts',
    'bench/activate.ts',
    'bench/quality.ts',
    'bench/quality/candidates.ts',
    'bench/next-steps.ts',
    'bench/quality/next-steps/sample.ts',
    'bench/first-count.ts',
    'bench/compact-profile.ts',
    'bench/large-follow.ts',
    'bench/cli-memory.ts',
    'bench/request-path.ts',
    'bench/compaction-run.ts',
  ],
  outdir: 'out/bench',
});

// The service bookkeeping bench runs its model server in a worker thread (its own heap).
await esbuild.build({
  ...common,
  entryPoints: ['bench/model-server-worker.ts'],
  outfile: 'out/bench/model-server-worker.js',
});

// The service in the bundles starts its compaction worker from beside itself, as the extension does.
await esbuild.build({
  ...common,
  entryPoints: ['src/service/compaction/worker/worker-main.ts'],
  outfile: 'out/bench/compaction-worker.js',
});

// The counter in the bundle reads its prebuilt rank tables next to itself, as the extension does.
await writeRankTables('out/bench/ranks');
