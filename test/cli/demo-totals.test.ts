/**
 * The demo's totals say why checkpoints outnumber compactions: one compaction writes a checkpoint
 * for each step it takes (collapse of old tool results, summary, clip), counted by kind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { compactionsLine } from '../../src/demo/print';
import type { CheckpointStrategy } from '../../src/compaction/types';

const cps = (...strategies: CheckpointStrategy[]) => strategies.map((strategy) => ({ strategy }));

test('more checkpoints than compactions: the line gives the checkpoints by kind and says a compaction writes one per step', () => {
  const line = compactionsLine(
    { automatic: 5, manual: 1 },
    cps('collapse', 'collapse', 'collapse', 'extractive', 'extractive', 'extractive', 'extractive', 'collapse'),
  );
  assert.equal(
    line,
    '6 (5 automatic, 1 manual) wrote 8 checkpoints (4 collapses of old tool results, 4 summaries): a compaction writes one for each step it takes',
  );
});

test('model-written summaries and clips are counted by kind; kinds with none are left out', () => {
  assert.equal(
    compactionsLine({ automatic: 1, manual: 0 }, cps('summary', 'clip')),
    '1 (1 automatic, 0 manual) wrote 2 checkpoints (1 summary, 1 clip of oversized messages): a compaction writes one for each step it takes',
  );
});

test('one checkpoint per compaction is said plainly', () => {
  assert.equal(
    compactionsLine({ automatic: 2, manual: 1 }, cps('collapse', 'extractive', 'extractive')),
    '3 (2 automatic, 1 manual), one checkpoint each',
  );
});

const demo = path.resolve(__dirname, '../../../dist/demo.js');
test(
  'npm run demo: the totals line agrees with the checkpoints it lists',
  { skip: fs.existsSync(demo) ? false : 'needs a built dist/demo.js (npm run build)' },
  async (t) => {
    const storage = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-demo-totals-'));
    t.after(() => fs.rmSync(storage, { recursive: true, force: true }));
    const stdout = await promisify(execFile)(process.execPath, [demo, '--storage', storage], {
      timeout: 120_000,
      maxBuffer: 16 << 20,
    }).then((r) => r.stdout);
    const totals = stdout.slice(stdout.indexOf('\nTotals'));
    const line = /compactions: +(\d+) \((\d+) automatic, (\d+) manual\)(.*)/.exec(totals);
    assert.ok(line, totals);
    const listed = [...totals.matchAll(/^ {4}ck-\S+: .* \((auto|manual), (\w+)\)$/gm)];
    assert.ok(listed.length > 0, totals);
    assert.equal(Number(line[1]), Number(line[2]) + Number(line[3]));
    assert.ok(Number(line[2]) > 0 && Number(line[3]) === 1, 'automatic compactions ran, and the one manual compaction');
    if (listed.length === Number(line[1])) return assert.match(line[4], /one checkpoint each/);
    const wrote = /wrote (\d+) checkpoints \((.*)\): a compaction writes one for each step it takes/.exec(line[4]);
    assert.ok(wrote, line[0]);
    assert.equal(Number(wrote[1]), listed.length);
    const collapses = listed.filter((m) => m[2] === 'collapse').length;
    const byKind = Object.fromEntries(
      wrote[2].split(', ').map((part) => [part.replace(/^\d+ /, ''), Number(part.split(' ')[0])]),
    );
    assert.equal(byKind['collapses of old tool results'] ?? byKind['collapse of old tool results'] ?? 0, collapses);
    assert.equal(
      (byKind['summaries'] ?? byKind['summary'] ?? 0) +
        collapses +
        (byKind['clips of oversized messages'] ?? byKind['clip of oversized messages'] ?? 0),
      listed.length,
    );
  },
);
