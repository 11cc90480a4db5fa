/**
 * No import circles in src/ (DESIGN.md "Layers": imports point downward only). The lint config states
 * the layer rules; this test also holds type-only imports, which lint plugins may skip.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { findCycles, importGraph, importSpecifiers, type ImportGraph } from './import-graph';

const src = path.resolve(__dirname, '../../../src');

/** A graph from `a -> b c` style lines. */
function graphOf(lines: string[]): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const line of lines) {
    const [from, targets = ''] = line.split('->').map((part) => part.trim());
    graph.set(from, new Set(targets.split(/\s+/).filter(Boolean)));
  }
  return graph;
}

test('src/ has no import circle, counting type-only imports and re-exports', () => {
  const graph = importGraph(src);
  assert.ok(graph.size > 100, `found the sources (${graph.size} files under ${src})`);
  const cycles = findCycles(graph).map((cycle) => cycle.join(' -> '));
  assert.deepEqual(cycles, [], `import circles:\n${cycles.join('\n')}`);
});

test('the cycle finder names the files of each circle and passes a graph without one', () => {
  const graph = graphOf(['a -> b', 'b -> c d', 'c -> a', 'd -> e', 'e -> d', 'f -> f', 'g -> a']);
  assert.deepEqual(
    findCycles(graph)
      .map((cycle) => cycle.join(' '))
      .sort(),
    ['a b c a', 'd e d', 'f f'],
  );
  assert.deepEqual(findCycles(graphOf(['a -> b c', 'b -> c', 'c ->', 'd -> a'])), []);
});

test('the import reader sees every form, type-only ones included', () => {
  const sample = [
    "import * as vscode from 'vscode';",
    "import type { A } from './a';",
    "import { type B } from './b';",
    "export { C } from './c';",
    "export type { D } from './d';",
    "export * from './e';",
    "import f = require('./f');",
    "const g = require('./g');",
    "const h = await import('./h');",
    "let i: import('./i').I;",
    "import './j';",
  ].join('\n');
  assert.deepEqual(importSpecifiers(sample), [
    'vscode',
    './a',
    './b',
    './c',
    './d',
    './e',
    './f',
    './g',
    './h',
    './i',
    './j',
  ]);
});
