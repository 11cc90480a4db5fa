// Bundles the benchmarks (bench/main.ts, bench/activate.ts, bench/quality.ts, bench/quality/candidates.ts and the sources they import) into CommonJS files for
// plain node. Packages stay external: they load from node_modules as they would at run time
// (tiktoken reads its .wasm file next to its own module).
import * as esbuild from 'esbuild';

await esbuild.build({
  entryPoints: ['bench/main.ts', 'bench/activate.ts', 'bench/quality.ts', 'bench/quality/candidates.ts'],
  outdir: 'out/bench',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  packages: 'external',
  tsconfig: 'tsconfig.json',
  sourcemap: true,
  logLevel: 'warning',
});
