// Writes the tokenizer's prebuilt rank tables (`<name>.bin`, the format of src/tokenizer/rank-table.ts)
// into a directory, from js-tiktoken's rank modules. Used by esbuild.mjs (dist/ranks) and
// bench/build.mjs (out/bench/ranks): the products read these files instead of building a table.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** Writes `<dir>/<name>.bin` for each encoding; removes the rank files of older builds. */
export async function writeRankTables(dir, names = ['o200k_base', 'cl100k_base']) {
  const built = await esbuild.build({
    entryPoints: ['src/tokenizer/rank-table.ts'],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    logLevel: 'warning',
  });
  const mod = { exports: {} };
  new Function('module', 'exports', 'require', built.outputFiles[0].text)(mod, mod.exports, require);
  const { RankTable } = mod.exports;
  fs.mkdirSync(dir, { recursive: true });
  for (const name of names) {
    const ranks = require(`js-tiktoken/ranks/${name}`);
    const table = RankTable.fromTiktokenRanks(ranks.default ?? ranks);
    fs.writeFileSync(path.join(dir, `${name}.bin`), table.serialize());
    fs.rmSync(path.join(dir, `${name}.cjs`), { force: true });
  }
}
