/**
 * The session's compaction worker (src/service/compaction/worker/session-worker): one warm thread
 * for many jobs, sent only the messages it has not seen, each job's result the same as an inline
 * run's; a replaced context is sent again; a crash fails one job and the next starts a new thread;
 * a cancelled job leaves the thread warm; idle and dispose stop it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { itemsFromEntries } from '../../src/compaction/context';
import type { CompactionOptions, ContextItem } from '../../src/compaction/types';
import { compactionWorkerFile, prepareOffThread } from '../../src/service/compaction/worker/runner';
import { budget, meter, normalized, session, summarizer, tools } from './worker-fixtures';
import type { PreparedCompaction } from '../../src/compaction/rewrite/commit';
import type { CompactionResult } from '../../src/compaction/outcome';
import { commitPrepared } from '../../src/compaction/rewrite/commit';
import {
  CompactionWorker,
  MAX_CHARS_PER_MESSAGE,
  MAX_ITEMS_PER_MESSAGE,
} from '../../src/service/compaction/worker/session-worker';
import { sizeOf, type ToWorker } from '../../src/service/compaction/worker/protocol';
import { Worker } from 'node:worker_threads';
import { until } from '../support/until';

const file = compactionWorkerFile();
const manual: CompactionOptions = {
  budget: budget(16_000),
  trigger: 'manual',
  force: true,
  all: true,
  noCollapse: true,
};

function prepared(result: PreparedCompaction | CompactionResult): PreparedCompaction {
  assert.ok(!('status' in result), `a compaction was prepared (${'status' in result ? result.status.kind : ''})`);
  return result;
}

/** Runs `items` on `worker` and inline; asserts both give the same result and returns the worker's. */
async function sameAsInline(
  worker: CompactionWorker,
  items: readonly ContextItem[],
  options: CompactionOptions,
  what: string,
): Promise<PreparedCompaction> {
  const input = { items, tools, meter, summarizer, options };
  const inline = await prepareOffThread(input, { mode: 'inline' });
  const onThread = await prepareOffThread(input, { mode: 'worker', worker });
  assert.equal(normalized(onThread), normalized(inline), `${what}: same result as inline`);
  const own = new Set(items);
  for (const cp of prepared(onThread).checkpoints)
    for (const it of cp.replaced) assert.ok(own.has(it), `${what}: replaced item ${it.id} is the caller's object`);
  return prepared(onThread);
}

test('a warm worker runs a second job on the committed context, sent only the new messages, with the inline result', async (t) => {
  assert.ok(file, 'the worker script is built');
  const worker = new CompactionWorker(file);
  t.after(() => worker.dispose());
  const all = itemsFromEntries(session(11, 90));
  const first = all.slice(0, 1 + 60 * 4);
  const one = await sameAsInline(worker, first, manual, 'first job');
  assert.deepEqual(
    { threads: worker.stats.threads, itemsSent: worker.stats.itemsSent },
    { threads: 1, itemsSent: first.length },
  );
  // The service commits the result, then the agent goes on: 30 more turns.
  const committed = commitPrepared(first, one, meter, tools);
  assert.ok(committed.status.kind === 'applied');
  const second = [...committed.context, ...all.slice(first.length)];
  const fresh = second.filter((it) => !first.includes(it)).length;
  await sameAsInline(worker, second, manual, 'second job on the warm worker');
  assert.equal(worker.stats.threads, 1, 'the same thread ran both jobs');
  assert.equal(
    worker.stats.itemsSent,
    first.length + fresh,
    `only the ${fresh} new messages (summaries and new turns) were sent for the second job`,
  );
  assert.ok(fresh < second.length, 'some messages of the first job were kept (the system prompt, the newest step)');
  // The same context again: nothing to send.
  await sameAsInline(worker, second, { ...manual, focus: 'the parser' }, 'third job, same context');
  assert.equal(worker.stats.itemsSent, first.length + fresh);
});

test('a replaced context (restore, import) is sent again in full, and gives the inline result', async (t) => {
  assert.ok(file);
  const worker = new CompactionWorker(file);
  t.after(() => worker.dispose());
  const entries = session(12, 60);
  const before = itemsFromEntries(entries);
  await sameAsInline(worker, before, manual, 'before');
  // Same messages as new objects (a context loaded again): none of them is the thread's.
  const replaced = itemsFromEntries(entries.map((e) => ({ ...e, message: { ...e.message } })));
  await sameAsInline(worker, replaced, manual, 'after the context was replaced');
  assert.equal(worker.stats.itemsSent, before.length + replaced.length);
  assert.equal(worker.stats.threads, 1);
});

test('a worker that crashes fails its job only: the next job starts a new thread and gives the inline result', async (t) => {
  assert.ok(file);
  const dir = mkdtempSync(path.join(tmpdir(), 'ck-worker-session-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // The real worker, which dies when it is given its second job.
  const crashing = path.join(dir, 'crashes-on-job-2.js');
  writeFileSync(
    crashing,
    `require('node:worker_threads').parentPort.on('message', (m) => { if (m.type === 'run' && m.job === 2) process.exit(3); });\nrequire(${JSON.stringify(file)});\n`,
  );
  const worker = new CompactionWorker(crashing);
  t.after(() => worker.dispose());
  const items = itemsFromEntries(session(13, 50));
  const before = JSON.stringify(items);
  await sameAsInline(worker, items, manual, 'first job');
  await assert.rejects(
    prepareOffThread({ items, tools, meter, summarizer, options: manual }, { mode: 'worker', worker }),
    /stopped \(exit code 3\) before it finished/,
  );
  assert.equal(JSON.stringify(items), before, 'the context is unchanged');
  assert.equal(worker.warm, false);
  await sameAsInline(worker, items, manual, 'job after the crash');
  assert.equal(worker.stats.threads, 2, 'a new thread ran the job after the crash');
  assert.equal(worker.stats.itemsSent, 2 * items.length, 'the new thread was sent the whole context');
});

test('a cancelled job rejects at once and leaves the thread warm for the next job', async (t) => {
  assert.ok(file);
  // A grace long enough for the thread to reach its next span on a loaded machine.
  const worker = new CompactionWorker(file, { cancelGraceMs: 60_000 });
  t.after(() => worker.dispose());
  const items = itemsFromEntries(session(14, 200));
  const before = JSON.stringify(items);
  const controller = new AbortController();
  let progressed = 0;
  const cancelled = prepareOffThread(
    { items, tools, meter, summarizer, options: { ...manual, signal: controller.signal } },
    {
      mode: 'worker',
      worker,
      onProgress: () => {
        progressed++;
        controller.abort(new Error('user cancelled'));
      },
    },
  );
  await assert.rejects(cancelled, /user cancelled/);
  assert.equal(progressed, 1, 'no progress after the cancel');
  assert.equal(JSON.stringify(items), before);
  await sameAsInline(worker, items, manual, 'job after the cancel');
  assert.equal(worker.stats.threads, 1, 'the cancelled job did not cost the thread');
  assert.equal(worker.stats.itemsSent, items.length, 'nothing sent again after the cancel');
});

test('an idle worker stops its thread, and a disposed one refuses jobs', async () => {
  assert.ok(file);
  const worker = new CompactionWorker(file, { idleMs: 50 });
  const items = itemsFromEntries(session(15, 40));
  await sameAsInline(worker, items, manual, 'first job');
  assert.equal(worker.warm, true);
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(worker.warm, false, 'stopped after 50 ms idle');
  await sameAsInline(worker, items, manual, 'job after the idle stop');
  assert.equal(worker.stats.threads, 2);
  worker.dispose();
  assert.equal(worker.warm, false);
  await assert.rejects(
    prepareOffThread({ items, tools, meter, summarizer, options: manual }, { mode: 'worker', worker }),
    /disposed/,
  );
});

test('a cancelled job that outlasts its grace costs the thread; the next job starts a new one', async (t) => {
  assert.ok(file);
  const worker = new CompactionWorker(file, { cancelGraceMs: 0 });
  t.after(() => worker.dispose());
  const items = itemsFromEntries(session(16, 1200));
  const controller = new AbortController();
  // Cancelled once the thread is summarizing a span, which it does not interrupt: the job surely
  // outlasts a grace of 0 ms (cancelled at the planning report, a quick job could still answer first).
  const cancelled = prepareOffThread(
    { items, tools, meter, summarizer, options: { ...manual, signal: controller.signal } },
    {
      mode: 'worker',
      worker,
      onProgress: (p) => {
        if (p.message.startsWith('summarizing')) controller.abort(new Error('user cancelled'));
      },
    },
  );
  await assert.rejects(cancelled, /user cancelled/);
  // The thread is stopped when the grace ends, long before its summarizing would.
  await until(() => !worker.warm, 'the thread stopped after the grace');
  await sameAsInline(worker, items, manual, 'job after the cancel');
  assert.equal(worker.stats.threads, 2);
});

test('a large context is sent to the thread in bounded pieces, one per turn, and gives the inline result', async (t) => {
  assert.ok(file, 'the worker script is built');
  const worker = new CompactionWorker(file);
  t.after(() => worker.dispose());
  const items = itemsFromEntries(session(13, 3_000));
  const pieces: { items: number; chars: number }[] = [];
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (
    this: Worker,
    message: unknown,
    transfer?: Parameters<Worker['postMessage']>[1],
  ) {
    const m = message as ToWorker;
    if (m.type === 'items')
      pieces.push({
        items: m.items.length,
        chars: m.items.reduce((n, it) => n + sizeOf(it), 0) - sizeOf(m.items.at(-1)!),
      });
    return post.call(this, message, transfer);
  };
  t.after(() => {
    Worker.prototype.postMessage = post;
  });
  await sameAsInline(worker, items, manual, 'a large first job');
  assert.equal(
    pieces.reduce((n, p) => n + p.items, 0),
    items.length,
    'every item was sent once',
  );
  assert.ok(pieces.length > 1, `the context went in several pieces (${pieces.length})`);
  for (const p of pieces) {
    assert.ok(p.items <= MAX_ITEMS_PER_MESSAGE, `a piece of ${p.items} items`);
    // The budget is reached by the piece's last item, which may itself be long.
    assert.ok(p.chars < MAX_CHARS_PER_MESSAGE, `a piece of ${p.chars} characters before its last item`);
  }
});
