/**
 * The demo's output reads as the command line's: its gauge is the same bar on the same scale as
 * `replay`'s (the input budget) under the same legend, counts take their plural form, and a demo that
 * cannot reach its scripted model on 127.0.0.1 fails with a clear error and a non-zero exit, not with
 * totals of nothing. `replay` groups its token figures and says when no model was called; `watch` counts in plural forms.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { checkpointLine, checkReached, DemoError, gaugeLine } from '../../src/demo/print';
import { gauge, GAUGE_LEGEND } from '../../src/cli/format';
import { replayCommand, summarizerCallsText } from '../../src/cli/commands';
import { watchLine } from '../../src/cli/watch';
import type { WatchedGauge } from '../../src/watch/live';
import type { BudgetSnapshot } from '../../src/service/meter/budget-types';
import type { CheckpointRecord } from '../../src/service/records';

const budget = {
  used: 7_000,
  window: 16_000,
  reserved: 2_000,
  inputBudget: 14_000,
  compactAt: { tokens: 11_200, fraction: 0.8 },
  compactTo: { tokens: 7_000, fraction: 0.5 },
  usedFraction: 0.5,
  exact: true,
} as BudgetSnapshot;

test("the demo's gauge is replay's bar on the input budget, whose legend names every mark", () => {
  // replay draws gauge(tokens, base, at, to) with the threshold base, the input budget by default.
  assert.equal(gaugeLine('call  1', budget), `call  1 ${gauge(7_000, 14_000, 0.8, 0.5)} (exact)`);
  assert.match(gaugeLine('x', budget), /\] +50% 7\.0k\/14k \(exact\)$/);
  for (const mark of ['# used', '| compaction trigger', ': compaction target', '. free', 'input budget'])
    assert.ok(GAUGE_LEGEND.includes(mark), mark);
});

test('a checkpoint line says "1 message", not "1 messages"', () => {
  const cp = { id: 'ck-1', trigger: 'auto', strategy: 'collapse', tokensBefore: 1_200, tokensAfter: 800 };
  assert.match(checkpointLine({ ...cp, replacedIds: ['a'] } as CheckpointRecord), /, 1 message replaced$/);
  assert.match(checkpointLine({ ...cp, replacedIds: ['a', 'b'] } as CheckpointRecord), /, 2 messages replaced$/);
});

test('a task that did not end stops the demo with what failed and where the model was', () => {
  const done = { status: 'done', finalText: '', modelCalls: 1, toolCalls: 0, compactions: 0 } as const;
  assert.doesNotThrow(() => checkReached(done, 1, 'http://127.0.0.1:5/v1'));
  assert.throws(
    () => checkReached({ ...done, status: 'error', error: 'Connection error.' }, 2, 'http://127.0.0.1:5/v1'),
    (error: unknown) =>
      error instanceof DemoError &&
      /^task 2 ended with status error \(Connection error\)\. The demo's scripted model listens on http:\/\/127\.0\.0\.1:5\/v1; .*NO_PROXY=127\.0\.0\.1/.test(
        error.message,
      ),
  );
});

const demo = path.resolve(__dirname, '../../../dist/demo.js');
test(
  'npm run demo without loopback connections: a clear error and exit code 1, no totals',
  { skip: fs.existsSync(demo) ? false : 'needs a built dist/demo.js (npm run build)' },
  async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-demo-noloop-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    // Every outgoing connection is refused, as in a sandbox that allows no loopback connections.
    const preload = path.join(dir, 'no-connect.cjs');
    fs.writeFileSync(
      preload,
      `const net = require('node:net');
net.Socket.prototype.connect = function () {
  const socket = this;
  process.nextTick(() => socket.destroy(Object.assign(new Error('connect EPERM 127.0.0.1'), { code: 'EPERM' })));
  return socket;
};
`,
    );
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['--require', preload, demo, '--storage', path.join(dir, 'sessions')],
        { timeout: 60_000 },
        (_error, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
      );
    });
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(
      run.stderr,
      /^demo failed: task 1 ended with status error \(.*\)\. The demo's scripted model listens on http:\/\/127\.0\.0\.1:\d+\/v1/m,
    );
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
    assert.doesNotMatch(run.stdout, /Totals|∞/);
  },
);

test('replay prints the legend, token figures with thousands separators, and says the extractive summarizer called no model', async () => {
  const lines: string[] = [];
  const exitCode = process.exitCode;
  await replayCommand(
    path.resolve(__dirname, '../../../samples/demo-session.json'),
    { window: 4_000, at: 0.8, to: 0.5, keepSteps: 1, summarizer: 'extractive' },
    (l) => lines.push(l),
    () => undefined,
  );
  process.exitCode = exitCode;
  const text = lines.join('\n');
  assert.equal(lines[1], GAUGE_LEGEND);
  // The host reserves room for the reply and a recording's replay does not: the header says which.
  assert.match(
    lines[0],
    /window 4\.0k less 0 tokens reserved for the reply \(--reserve\), compact at 80% → 50% of the 4\.0k left/,
  );
  assert.match(text, /, \d+ summar(y|ies) written by the extractive summarizer \(0 model calls\)$/m);
  assert.doesNotMatch(text, /summarizer calls/);
  assert.match(text, /^peak \d{1,3}(,\d{3})* tokens over the model calls/m);
  assert.doesNotMatch(text, /\b\d{4,} tokens|\b1 messages/, 'every figure grouped, every count in its form');
  assert.equal(summarizerCallsText({ name: 'qwen2.5-coder:7b' }, 3), 'summarizer calls 3 (qwen2.5-coder:7b)');
});

test('watch counts checkpoints, messages and unreadable lines in their singular or plural form', () => {
  const line = (checkpoints: number, messages: number, badLines: number) =>
    watchLine({
      changed: true,
      restarted: false,
      bytesRead: 1,
      gauge: { usedTokens: 1_500, tokens: 1_500, window: 200_000, checkpoints, messages, badLines } as WatchedGauge,
    });
  assert.match(line(1, 1, 1), /, 1 checkpoint, 1 message, 1 unreadable line skipped$/);
  assert.match(line(0, 2, 3), /, 0 checkpoints, 2 messages, 3 unreadable lines skipped$/);
  assert.doesNotMatch(line(2, 2, 0), /\(s\)/);
});
