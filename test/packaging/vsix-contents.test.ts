/**
 * What the VSIX ships: the bundles, the rank tables, the webview's assets and the manifest files,
 * never a source map, TypeScript source, tests or node_modules; and `npm run package` builds the
 * production bundle (minified, no source maps) through `vscode:prepublish`, which vsce runs first.
 * The file list is `vsce ls`, the same selection `vsce package` makes (.vscodeignore).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../../..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  main: string;
  scripts: Record<string, string>;
};

/** The files `vsce package` would put in the VSIX, relative to the repository root. */
function shipped(): string[] {
  const vsce = path.join(root, 'node_modules/@vscode/vsce/vsce');
  const out = execFileSync(process.execPath, [vsce, 'ls', '--no-dependencies'], { cwd: root, encoding: 'utf8' });
  return out
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
}

/** What may ship: the manifest files, the built bundles and tables, the static assets. */
const ALLOWED = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^CHANGELOG\.md$/,
  /^dist\/[\w-]+\.js$/,
  /^dist\/ranks\/[\w-]+\.bin$/,
  /^dist\/codicons\/codicon\.(css|ttf)$/,
  /^media\/[\w./-]+\.(css|svg|md|png)$/,
  /^docs\/images\/[\w-]+\.png$/,
];

test('the VSIX holds the bundles, tables and assets only: no source map, no source, no tests', () => {
  const files = shipped();
  assert.ok(files.length > 0, 'vsce ls lists the files');
  for (const file of files) {
    assert.ok(!file.endsWith('.map'), `a source map would ship: ${file}`);
    assert.ok(!/\.tsx?$/.test(file), `TypeScript source would ship: ${file}`);
    assert.ok(
      ALLOWED.some((re) => re.test(file)),
      `${file} is not a bundle, table or asset of the extension`,
    );
  }
  // The development build beside the tests writes source maps; the allowlist keeps them out.
  for (const needed of [
    manifest.main.replace(/^\.\//, ''),
    'dist/webview.js',
    'dist/agent-webview.js',
    'dist/compaction-worker.js',
    'dist/ranks/o200k_base.bin',
    'dist/ranks/cl100k_base.bin',
    'dist/codicons/codicon.css',
    'dist/codicons/codicon.ttf',
    'README.md',
  ]) {
    assert.ok(files.includes(needed), `${needed} ships`);
  }
  assert.ok(!files.includes('dist/cli.js') && !files.includes('dist/demo.js'), 'the CLI and the demo stay out');
});

test('npm run package builds the production bundle first (minified, no source maps)', () => {
  assert.match(manifest.scripts['vscode:prepublish'] ?? '', /\bnode esbuild\.mjs --production\b/);
  assert.match(manifest.scripts.package, /^vsce package\b/);
  assert.doesNotMatch(manifest.scripts.package, /npm run build\b/, 'no development build into the package');
  const build = fs.readFileSync(path.join(root, 'esbuild.mjs'), 'utf8');
  assert.match(build, /sourcemap: !production/);
  assert.match(build, /minify: production/);
});

test('every image the README shows ships in the VSIX, and every local link points at a file', () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const files = shipped();
  const links = [...readme.matchAll(/(!?)\[[^\]]*\]\(([^)\s#]+)(?:#[^)]*)?\)/g)];
  assert.ok(links.length > 0);
  for (const [, bang, target] of links) {
    if (/^[a-z]+:/i.test(target)) continue;
    assert.ok(fs.existsSync(path.join(root, target)), `README links to ${target}, which does not exist`);
    // vsce keeps relative links as they are (--no-rewrite-relative-links): an image must ship to show.
    if (bang) assert.ok(files.includes(target), `the README's image ${target} ships in the VSIX`);
  }
});
