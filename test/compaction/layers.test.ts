/**
 * Layering (DESIGN.md "Layers"): the pure core and the importers stay importable from plain Node, so
 * no module under src/ except the extension front end may import `vscode`, and the core and the
 * importers import nothing from the layers above them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const src = path.resolve(__dirname, '../../../src');

/** Every .ts file under `dir`, as paths relative to src/. */
function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(src, dir), { withFileTypes: true })) {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(relative));
    else if (entry.name.endsWith('.ts')) out.push(relative);
  }
  return out;
}

/** Module specifiers of static imports, re-exports, `require` and dynamic `import()` in `text`. */
function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:\bfrom\s*|\brequire\(\s*|\bimport\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm))
    found.push(match[1]);
  return found;
}

const PLAIN_NODE = [
  'compaction',
  'tokenizer',
  'transcripts',
  'service',
  'agent',
  'summarizers',
  'cli',
  'replay',
  'demo',
];

test('only the extension front end imports vscode', () => {
  const files = PLAIN_NODE.flatMap(sources);
  assert.ok(files.length > 20, `found the sources (${files.length} files under ${src})`);
  const offenders = files.filter((file) =>
    specifiers(fs.readFileSync(path.join(src, file), 'utf8')).includes('vscode'),
  );
  assert.deepEqual(offenders, []);
});

test('the core and the importers import nothing from the layers above them', () => {
  const above = /^\.\.\/(?:views|service|agent|summarizers|cli|replay|demo|extension)(?:\/|$)/;
  const offenders: string[] = [];
  for (const file of [...sources('compaction'), ...sources('transcripts')]) {
    for (const specifier of specifiers(fs.readFileSync(path.join(src, file), 'utf8'))) {
      // Paths are relative to the file; normalise them to one level below src/.
      const resolved = path.relative(
        path.join(src, PLAIN_NODE[0]),
        path.resolve(path.dirname(path.join(src, file)), specifier),
      );
      if (specifier.startsWith('.') && above.test(resolved.split(path.sep).join('/')))
        offenders.push(`${file} → ${specifier}`);
    }
  }
  assert.deepEqual(offenders, []);
});

test('the import scanner sees the forms it is meant to catch', () => {
  const sample = [
    "import * as vscode from 'vscode';",
    'import type { X } from "vscode";',
    "const v = require('vscode');",
    "const w = await import('vscode');",
    "import 'vscode';",
    "export { y } from '../views/protocol';",
  ].join('\n');
  assert.deepEqual(specifiers(sample), ['vscode', 'vscode', 'vscode', 'vscode', 'vscode', '../views/protocol']);
});
