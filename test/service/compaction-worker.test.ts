/**
 * Compaction in a worker thread (src/service/compaction/worker): the same result as an inline run,
 * cancel leaves the context unchanged, a worker that crashes or throws gives an error, never a hang.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { itemsFromEntries } from '../../src/compaction/context';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { createTokenCounter } from '../../src/tokenizer/tokenizer';
import type { CompactionOptions, ContextItem } from '../../src/compaction/types';
import { prepareOffThread, WORKER_MIN_TOKENS } from '../../src/service/compaction/worker/runner';
import { generateConversation } from '../support/generate';
import { budget, meter, normalized, session, summarizer, tools } from './worker-fixtures';
import { text } from '../../src/demo/modelserver/replies';
import { serviceFixture } from './fixtures';
import { describeOutcome } from '../../src/service/compaction/outcome';
import { importTranscriptTextSync } from '../../src/transcripts';
import { claudeCode, type Step } from '../support/recordings';

test("a compaction in the worker returns what the same compaction returns inline, with the caller's own items as replaced", async () => {
  const cases: Array<{ items: ContextItem[]; options: CompactionOptions }> = [
    { items: itemsFromEntries(session(1, 60)), options: { budget: budget(16_000), trigger: 'auto' } },
    {
      items: itemsFromEntries(session(2, 40)),
      options: {
        budget: budget(32_000),
        trigger: 'manual',
        force: true,
        all: true,
        noCollapse: true,
        focus: 'the parser',
      },
    },
    {
      items: itemsFromEntries(session(3, 200)),
      options: { budget: budget(8_000), trigger: 'auto', keepRecentSteps: 2 },
    },
  ];
  for (let seed = 1; seed <= 3; seed++) {
    cases.push({
      items: itemsFromEntries(generateConversation(seed, { turns: 12, maxSteps: 6 })),
      options: { budget: budget(4_000), trigger: seed % 2 ? 'auto' : 'manual', force: true },
    });
  }
  let prepared = 0;
  for (const [k, c] of cases.entries()) {
    const input = { items: c.items, tools, meter, summarizer, options: c.options };
    const inline = await prepareOffThread(input, { mode: 'inline' });
    const routes: string[] = [];
    const inWorker = await prepareOffThread(input, { mode: 'worker', onRoute: (route) => routes.push(route) });
    assert.deepEqual(routes, ['worker'], `case ${k} ran in the worker`);
    assert.equal(normalized(inWorker), normalized(inline), `case ${k}: same result`);
    if ('checkpoints' in inWorker && !('status' in inWorker)) {
      prepared++;
      const own = new Set(c.items);
      for (const cp of inWorker.checkpoints)
        for (const it of cp.replaced)
          assert.ok(own.has(it), `case ${k}: replaced item ${it.id} is the caller's object`);
    }
  }
  assert.ok(prepared >= 3, `most cases prepared a compaction (${prepared})`);
});

test('small contexts are compacted inline, large ones in the worker', async () => {
  const small = {
    items: itemsFromEntries(session(4, 10)),
    tools,
    meter,
    summarizer,
    options: { budget: budget(2_000), trigger: 'auto' as const },
  };
  assert.ok(meter.measure(small.items, tools).total < WORKER_MIN_TOKENS);
  const routes: string[] = [];
  await prepareOffThread(small, { onRoute: (route) => routes.push(route) });
  const large = { ...small, items: itemsFromEntries(session(5, 120)) };
  assert.ok(meter.measure(large.items, tools).total >= WORKER_MIN_TOKENS);
  await prepareOffThread(large, { onRoute: (route) => routes.push(route) });
  // A counter a worker cannot rebuild (not tiktoken's) keeps the run inline whatever the size.
  const other = new TokenMeter({ counter: { encoding: 'o200k_base', countText: (t) => Math.ceil(t.length / 4) } });
  await prepareOffThread({ ...large, meter: other }, { onRoute: (route) => routes.push(route) });
  assert.deepEqual(routes, ['inline', 'worker', 'inline']);
});

test('cancel rejects at once with the reason; the items are untouched', async () => {
  const items = itemsFromEntries(session(6, 200));
  const before = JSON.stringify(items);
  const controller = new AbortController();
  let progressed = 0;
  const run = prepareOffThread(
    {
      items,
      tools,
      meter,
      summarizer,
      options: { budget: budget(16_000), trigger: 'manual', force: true, all: true, signal: controller.signal },
    },
    {
      mode: 'worker',
      onProgress: () => {
        progressed++;
        controller.abort(new Error('user cancelled'));
      },
    },
  );
  await assert.rejects(run, /user cancelled/);
  assert.ok(progressed >= 1, 'the worker reported progress before the cancel');
  assert.equal(JSON.stringify(items), before);
});

test('a worker that crashes or exits early is reported as an error, never a hang', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ck-worker-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const input = {
    items: itemsFromEntries(session(7, 20)),
    tools,
    meter,
    summarizer,
    options: { budget: budget(4_000), trigger: 'auto' as const },
  };
  const throwing = path.join(dir, 'throws.js');
  writeFileSync(
    throwing,
    "require('node:worker_threads').parentPort.on('message', (m) => { if (m.type === 'run') throw new Error('boom in the worker'); });\n",
  );
  await assert.rejects(
    prepareOffThread(input, { mode: 'worker', workerFile: throwing }),
    /compaction worker crashed: boom in the worker/,
  );
  const exiting = path.join(dir, 'exits.js');
  writeFileSync(
    exiting,
    "require('node:worker_threads').parentPort.on('message', (m) => { if (m.type === 'run') process.exit(7); });\n",
  );
  await assert.rejects(
    prepareOffThread(input, { mode: 'worker', workerFile: exiting }),
    /stopped \(exit code 7\) before it finished/,
  );
});

test('the service compacts a large context in the worker with progress; a cancel leaves the context as it was', async (t) => {
  const fx = await serviceFixture(() => text('ok'), {
    exactTokens: true,
    tokenCounter: createTokenCounter('o200k_base'),
    window: 200_000,
    reserved: 4_000,
  });
  t.after(fx.cleanup);
  await fx.service.importTranscript({ source: 'test: large session', entries: session(8, 150) });
  assert.ok(fx.service.getBudget().used >= WORKER_MIN_TOKENS, 'large enough for the worker');
  const before = fx.service.getTranscript().context;
  const controller = new AbortController();
  const cancelled = await fx.service.compactNow({ onProgress: () => controller.abort() }, controller.signal);
  assert.notEqual(cancelled.status.kind, 'applied');
  assert.equal(cancelled.status.kind, 'cancelled');
  assert.deepEqual(fx.service.getTranscript().context, before);
  assert.equal(fx.service.getCheckpoints().length, 0);
  const progress: number[] = [];
  const applied = await fx.service.compactNow({ onProgress: (p) => progress.push(p.done / p.total) });
  assert.equal(applied.status.kind, 'applied', describeOutcome(applied.status));
  assert.ok(progress.length >= 2 && progress.at(-1)! > 0, `progress reported (${progress.join(', ')})`);
  assert.ok(applied.tokensAfter < applied.tokensBefore);
});

test('the build ships the worker: dist/compaction-worker.js runs the same compaction and the package includes it', async (t) => {
  const root = path.resolve(__dirname, '../../..');
  const bundle = path.join(root, 'dist/compaction-worker.js');
  if (!existsSync(bundle)) {
    t.skip('dist/compaction-worker.js is missing: run `npm run build` first');
    return;
  }
  assert.match(
    readFileSync(path.join(root, '.vscodeignore'), 'utf8'),
    /^!dist\/compaction-worker\.js$/m,
    'the VSIX keeps the worker script',
  );
  const input = {
    items: itemsFromEntries(session(9, 80)),
    tools,
    meter,
    summarizer,
    options: { budget: budget(16_000), trigger: 'auto' as const },
  };
  const inline = await prepareOffThread(input, { mode: 'inline' });
  const bundled = await prepareOffThread(input, { mode: 'worker', workerFile: bundle });
  assert.ok(!('status' in bundled), 'a compaction was prepared');
  assert.equal(normalized(bundled), normalized(inline));
});

test("the worker reads what the recording says of each message: a tool's success flag, a harness's text", async () => {
  const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);
  // The flags say the opposite of the wording: a deploy that printed nothing alarming failed, and a
  // smoke test that printed an error line passed; the user message marked isMeta is the harness's.
  const steps: Step[] = [
    { user: 'deploy the service, then smoke-test the readiness script' },
    {
      tool: 'bash',
      command: './deploy.sh --env staging',
      output: '',
      result: `Deployment finished. ${filler(30)}`,
      ok: false,
    },
    { say: `Deployed. ${filler(40)}` },
    {
      tool: 'bash',
      command: 'node scripts/readiness.mjs FAKE; echo "exit=$?"',
      output: `Error: zerion CLI not found on PATH\nexit=2 ${filler(30)}`,
    },
    { say: `Exit codes work. ${filler(40)}` },
    { user: 'Caveat: the messages below were generated by the user while running local commands.', meta: true },
    { user: 'now write the release notes' },
    { say: `Writing them. ${filler(40)}` },
  ];
  const items = itemsFromEntries(importTranscriptTextSync(claudeCode(steps), 'session.jsonl').entries);
  const input = {
    items,
    tools,
    meter,
    summarizer,
    options: { budget: budget(4_000), trigger: 'manual' as const, force: true, all: true, noCollapse: true },
  };
  const inline = await prepareOffThread(input, { mode: 'inline' });
  const inWorker = await prepareOffThread(input, { mode: 'worker' });
  assert.equal(normalized(inWorker), normalized(inline));
  const summary = 'checkpoints' in inline ? inline.checkpoints.map((c) => c.summary ?? '').join('\n') : '';
  // The deploy's flag says it failed, though its output reads well: it stays a failure, unfixed (listed
  // as left when its turn ended: the person typed a newer request after it).
  assert.match(
    summary,
    /^- (?:open|unresolved when that turn ended \(a newer request came after it\)): `\.\/deploy\.sh --env staging`/m,
    'the recorded failure is read',
  );
  assert.doesNotMatch(summary, /readiness\.mjs[^\n]*(?:→ error|failed|not fixed)/, 'the recorded success is read');
  assert.doesNotMatch(summary, /Caveat: the messages below/, "the harness's text is no request");
});
