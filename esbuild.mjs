// Bundles the extension host entry, the command-line tool and the webview script.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import { writeRankTables } from './scripts/rankTables.mjs';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

/** @type {esbuild.BuildOptions[]} */
const targets = [
  {
    entryPoints: ['src/cli.ts'],
    outfile: 'dist/cli.js',
    platform: 'node',
    format: 'cjs',
    banner: { js: '#!/usr/bin/env node' },
  },
];
if (fs.existsSync('src/demo/main.ts')) {
  targets.push({ entryPoints: ['src/demo/main.ts'], outfile: 'dist/demo.js', platform: 'node', format: 'cjs' });
}
// Large compactions run in a worker thread; its script ships beside the bundles that start it.
targets.push({
  entryPoints: ['src/service/compaction/worker/worker-main.ts'],
  outfile: 'dist/compaction-worker.js',
  platform: 'node',
  format: 'cjs',
});
if (fs.existsSync('src/extension.ts')) {
  targets.push({
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    external: ['vscode'],
  });
}
if (fs.existsSync('src/webview/main.ts')) {
  targets.push({
    entryPoints: ['src/webview/main.ts'],
    outfile: 'dist/webview.js',
    platform: 'browser',
    format: 'iife',
  });
  targets.push({
    entryPoints: ['src/webview/agent.ts'],
    outfile: 'dist/agent-webview.js',
    platform: 'browser',
    format: 'iife',
  });
}

// The tokenizer's rank tables ship prebuilt as separate files, read on the first count (never at activation).
await writeRankTables('dist/ranks');

// The webview's icon font ships from dist/ (the package is built with --no-dependencies).
const codicons = 'node_modules/@vscode/codicons/dist';
if (fs.existsSync(codicons)) {
  fs.mkdirSync('dist/codicons', { recursive: true });
  for (const file of ['codicon.css', 'codicon.ttf']) fs.copyFileSync(`${codicons}/${file}`, `dist/codicons/${file}`);
}

// --production (the VSIX, through `vscode:prepublish`): minified, no source maps; class and function names are
// kept so that error names and stack traces in the log stay readable.
const common = {
  bundle: true,
  target: 'node20',
  sourcemap: !production,
  minify: production,
  keepNames: production,
  logLevel: 'warning',
};
// A production build leaves no source map of an earlier development build beside its bundles.
if (production && fs.existsSync('dist')) {
  for (const file of fs.readdirSync('dist')) if (file.endsWith('.map')) fs.rmSync(`dist/${file}`);
}
if (watch) {
  for (const t of targets) await (await esbuild.context({ ...common, ...t })).watch();
} else {
  await Promise.all(targets.map((t) => esbuild.build({ ...common, ...t })));
}
