/** Manual compaction: queued behind a streaming step, single flight, preview, restore, pins. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatMessage } from '../../src/compaction/types';
import { checkContext, checkToolPairing } from '../../src/compaction/plan/invariants';
import { chunked, text, toolCalls } from '../../src/demo/modelserver/replies';
import type { Responder } from '../../src/demo/modelserver/wire';
import { filler, serviceFixture, StubSummarizer } from './fixtures';
import { describeOutcome, type CompactOutcome } from '../../src/service/compaction/outcome';

/** Three earlier tasks, each reading one file, then whatever `then` answers. */
function history(then: Responder): Responder {
  return (body, n) => {
    if (n <= 6)
      return n % 2 === 1
        ? toolCalls([{ id: `h${n}`, name: 'read_file', arguments: JSON.stringify({ path: `f${(n + 1) / 2}.txt` }) }])
        : text(`Read file ${n / 2}.`);
    return then(body, n - 6);
  };
}

const files = { 'f1.txt': filler(60, 'a'), 'f2.txt': filler(60, 'b'), 'f3.txt': filler(60, 'c') };

async function withHistory(fx: Awaited<ReturnType<typeof serviceFixture>>): Promise<void> {
  for (let i = 1; i <= 3; i++) await fx.service.runTask(`Read f${i}.txt`);
}

test("compaction requested while a reply streams waits for it; the summary is the summarizer's, not the partial reply", async (t) => {
  const summarizer = new StubSummarizer('SUMMARY-OK');
  const fx = await serviceFixture(
    history(() => chunked(['Now ', "I'll ", 'edit ', 'the ', 'file.'], 30)),
    { files, summarizer, window: 64_000 },
  );
  t.after(fx.cleanup);
  await withHistory(fx);
  let compaction: ReturnType<typeof fx.service.compactNow> | undefined;
  const sub = fx.service.onDidStreamText(() => {
    compaction ??= fx.service.compactNow();
  });
  const task = await fx.service.runTask('Edit the file.');
  sub.dispose();
  const outcome = await compaction!;
  assert.equal(task.status, 'done');
  assert.equal(outcome.queued, true);
  assert.equal(outcome.status.kind, 'applied', describeOutcome(outcome.status));
  const summary = fx.service.getCheckpoints().find((c) => c.strategy === 'summary')!;
  assert.match(summary.summary, /^SUMMARY-OK/);
  assert.doesNotMatch(summary.summary, /Now I'll edit/);
  // The streamed reply was committed whole before the snapshot and kept verbatim (newest anchor).
  const messages = fx.service.getMessages();
  assert.equal(messages.at(-1)?.content, "Now I'll edit the file.");
});

test('compaction requested while a tool runs is applied only after its result is appended', async (t) => {
  const summarizer = new StubSummarizer('SUMMARY-OK');
  const fx = await serviceFixture(
    history((_b, n) =>
      n === 1
        ? toolCalls([
            { id: 'u1', name: 'run_command', arguments: JSON.stringify({ command: 'sleep 0.3; echo updated' }) },
          ])
        : text('Todo updated.'),
    ),
    { files, summarizer, window: 64_000 },
  );
  t.after(fx.cleanup);
  await withHistory(fx);
  let compaction: Promise<CompactOutcome> | undefined;
  const sub = fx.service.onDidChangeState((s) => {
    if (s.state === 'running-tool') compaction ??= fx.service.compactNow();
  });
  await fx.service.runTask('Update the todo list.');
  sub.dispose();
  const outcome = (await compaction)!;
  assert.equal(outcome.status.kind, 'applied');
  assert.equal(outcome.queued, true);
  // The request after the compaction carried the call and its result together.
  for (const body of fx.requests) assert.deepEqual(checkToolPairing(body.messages as ChatMessage[]), []);
  const { entries, context } = fx.service.getTranscript();
  assert.deepEqual(checkContext(context, entries), []);
  assert.ok(context.some((i) => i.message.role === 'tool' && String(i.message.content).includes('updated')));
});

test("a call waiting for the user's confirmation is never summarized; its result pairs after the compaction", async (t) => {
  const summarizer = new StubSummarizer('SUMMARY-OK');
  const fx = await serviceFixture(
    history((_b, n) =>
      n === 1
        ? toolCalls([
            { id: 'confirm', name: 'run_command', arguments: JSON.stringify({ command: 'echo deleted build' }) },
          ])
        : text('Build dir deleted.'),
    ),
    { files, summarizer, window: 64_000, autoApprove: {} },
  );
  t.after(fx.cleanup);
  await withHistory(fx);
  let compaction: Promise<CompactOutcome> | undefined;
  fx.service.onDidRequestApproval((request) => {
    compaction = fx.service.compactNow();
    // The user confirms later, while the compaction waits for the step to close.
    setTimeout(() => fx.service.resolveApproval(request.requestId, true), 100);
  });
  const task = await fx.service.runTask('delete build dir');
  assert.equal(task.status, 'done');
  assert.equal((await compaction!).status.kind, 'applied');
  const messages = fx.service.getMessages();
  const call = messages.findIndex((m) => m.role === 'assistant' && m.tool_calls?.some((c) => c.id === 'confirm'));
  assert.ok(call > 0, 'the call is kept verbatim');
  assert.equal(messages[call + 1].role, 'tool');
  assert.deepEqual(checkToolPairing(messages), []);
});

test('two concurrent compactions give one summary and one checkpoint; the same during a task', async (t) => {
  const summarizer = new StubSummarizer('SUMMARY-OK', 50);
  const fx = await serviceFixture(
    history(() => chunked(['a', 'b', 'c'], 40)),
    { files, summarizer, window: 64_000 },
  );
  t.after(fx.cleanup);
  await withHistory(fx);
  const [a, b] = await Promise.all([fx.service.compactNow(), fx.service.compactNow()]);
  assert.equal(a.status.kind, 'applied');
  assert.deepEqual(a, b);
  // One run: its checkpoints only, each summary inserted once.
  assert.equal(fx.service.getCheckpoints().length, a.checkpoints.length);
  const summaryRuns = summarizer.requests.length;
  const summaryIds = fx.service
    .getTranscript()
    .context.filter((i) => i.kind === 'summary' && !i.attachedFile)
    .map((i) => i.id);
  assert.equal(summaryIds.length, a.checkpoints.filter((c) => c.strategy === 'summary').length);
  assert.equal(new Set(summaryIds).size, summaryIds.length);
  const count = fx.service.getCheckpoints().length;
  await fx.service.restoreCheckpoint(fx.service.getCheckpoints()[0].id);
  let pair: Promise<CompactOutcome[]> | undefined;
  const sub = fx.service.onDidStreamText(() => {
    pair ??= Promise.all([fx.service.compactNow(), fx.service.compactNow()]);
  });
  await fx.service.runTask('go');
  sub.dispose();
  const [c, d] = (await pair)!;
  assert.equal(c.status.kind, 'applied');
  assert.deepEqual(c, d);
  assert.equal(fx.service.getCheckpoints().length - count, c.checkpoints.length);
  assert.equal(
    summarizer.requests.length - summaryRuns,
    c.checkpoints.length,
    'one summarizer call per span of one run',
  );
});

test('preview: propose, edit and apply; discard; a pin discards it', async (t) => {
  const summarizer = new StubSummarizer('PROPOSED SUMMARY');
  const fx = await serviceFixture(
    history(() => text('ok')),
    { files, summarizer, window: 64_000 },
  );
  t.after(fx.cleanup);
  await withHistory(fx);
  const before = fx.service.getTranscript().context.length;
  const proposed = await fx.service.compactNow({ preview: true, focus: 'keep file names' });
  assert.notEqual(proposed.status.kind, 'applied');
  assert.equal(proposed.preview?.summaries[0].summary.startsWith('PROPOSED SUMMARY'), true);
  assert.equal(proposed.preview?.focus, 'keep file names');
  assert.equal(summarizer.requests[0].focus, 'keep file names');
  assert.equal(fx.service.getTranscript().context.length, before, 'nothing applied yet');
  const applied = await fx.service.applyPreview(['EDITED BY THE USER']);
  assert.equal(applied.status.kind, 'applied', describeOutcome(applied.status));
  const summary = fx.service.getCheckpoints().find((c) => c.strategy === 'summary')!;
  assert.equal(summary.summary, 'EDITED BY THE USER');
  assert.ok(
    fx.service.getMessages().some((m) => typeof m.content === 'string' && m.content.endsWith('EDITED BY THE USER')),
  );
  assert.equal(fx.service.getPreview(), undefined);

  await fx.service.restoreCheckpoint(summary.id);
  await fx.service.compactNow({ preview: true });
  fx.service.discardPreview();
  assert.notEqual((await fx.service.applyPreview()).status.kind, 'applied');

  await fx.service.compactNow({ preview: true });
  await fx.service.pin(fx.service.getTranscript().context[1].id);
  assert.equal(fx.service.getPreview(), undefined, 'the pin changed the context the preview was made on');
  assert.notEqual((await fx.service.applyPreview()).status.kind, 'applied');
});

test('a pending preview is discarded, saying why, by a restore, an undone restore, a new message and a compaction; a refused Apply is no error', async (t) => {
  const summarizer = new StubSummarizer('PROPOSED SUMMARY');
  const fx = await serviceFixture(
    history(() => text(`ok\n${filler(40, 'ok')}`)),
    { files, summarizer, window: 64_000 },
  );
  t.after(fx.cleanup);
  await withHistory(fx);
  const dropped: string[] = [];
  const changes: unknown[] = [];
  const subscriptions = [
    fx.service.onDidDropPreview((why) => dropped.push(why)),
    fx.service.onDidChangePreview((p) => changes.push(p)),
  ];
  t.after(() => subscriptions.forEach((s) => s.dispose()));
  const propose = async () => {
    const outcome = await fx.service.compactNow({ preview: true });
    assert.ok(outcome.preview, describeOutcome(outcome.status));
    changes.length = 0;
  };
  const compacted = await fx.service.compactNow();
  assert.equal(compacted.status.kind, 'applied', describeOutcome(compacted.status));
  const checkpoint = fx.service.getCheckpoints().at(-1)!;

  await fx.service.restoreCheckpoint(checkpoint.id);
  await propose();
  await fx.service.undoRestore();
  await fx.service.restoreCheckpoint(checkpoint.id);
  assert.deepEqual(dropped, ['the restore was undone']);
  assert.deepEqual(changes, [undefined], 'the preview card and its document go');

  await propose();
  await fx.service.runTask('One more thing.');
  assert.deepEqual(dropped, ['the restore was undone', 'a new message was added']);
  assert.equal(fx.service.getPreview(), undefined);

  await propose();
  dropped.length = 0;
  const again = await fx.service.compactNow();
  assert.equal(again.status.kind, 'applied', describeOutcome(again.status));
  assert.deepEqual(dropped, ['a compaction rewrote the context']);

  // Apply with nothing left to apply is refused and said by the caller: the state is not an error.
  const refused = await fx.service.applyPreview();
  assert.equal(refused.status.kind, 'no-preview');
  assert.notEqual(fx.service.getState().state, 'error');
});

test('restore undoes dependent checkpoints first, restores the exact context, and compacting again works', async (t) => {
  let k = 0;
  const summarizer = new StubSummarizer(() => `SUMMARY-${++k}`);
  const fx = await serviceFixture(
    history((_b, n) => text(`answer ${n}\n${filler(40, 'answer')}`)),
    { files, summarizer, window: 64_000 },
  );
  t.after(fx.cleanup);
  await withHistory(fx);
  const original = fx.service.getTranscript().context;
  const first = await fx.service.compactNow();
  assert.equal(first.status.kind, 'applied');
  await fx.service.runTask('another request');
  await fx.service.runTask('and one more');
  const second = await fx.service.compactNow();
  assert.equal(second.status.kind, 'applied', describeOutcome(second.status));
  const firstSummary = first.checkpoints.find((c) => c.strategy === 'summary')!;
  const secondSummary = second.checkpoints.find((c) => c.strategy === 'summary')!;
  assert.ok(
    secondSummary.replaced.some((i) => i.id === firstSummary.inserted[0].id),
    'the second summary covers the first',
  );
  const restored = await fx.service.restoreCheckpoint(firstSummary.id);
  assert.deepEqual(restored.undone.at(-1), firstSummary.id);
  assert.ok(restored.undone.includes(secondSummary.id), 'the dependent checkpoint was undone too');
  let context = fx.service.getTranscript().context;
  const { entries } = fx.service.getTranscript();
  assert.deepEqual(checkContext(context, entries), []);
  // The replaced messages are back, raw and in order.
  const ids = context.map((i) => i.id);
  const back = firstSummary.replacedIds.map((id) => ids.indexOf(id));
  assert.ok(back.every((k, n) => k >= 0 && (n === 0 || k === back[n - 1] + 1)));
  await assert.rejects(fx.service.restoreCheckpoint(firstSummary.id), /already restored/);
  // Undoing every remaining checkpoint gives back the exact original context.
  for (const cp of [...fx.service.getCheckpoints()].reverse())
    if (!cp.restored) await fx.service.restoreCheckpoint(cp.id);
  context = fx.service.getTranscript().context;
  assert.deepEqual(
    context.slice(0, original.length).map((i) => i.id),
    original.map((i) => i.id),
  );
  assert.ok(context.every((i) => i.kind === 'raw'));
  const again = await fx.service.compactNow();
  assert.equal(again.status.kind, 'applied');
  assert.ok(fx.service.getCheckpoints().filter((c) => c.restored).length >= 2);
});

test('a pinned message is never summarized and stays verbatim', async (t) => {
  const summarizer = new StubSummarizer('SUMMARY-OK');
  const fx = await serviceFixture(
    history(() => text('ok')),
    { files, summarizer, window: 64_000 },
  );
  t.after(fx.cleanup);
  await withHistory(fx);
  const firstRequest = fx.service.getTranscript().entries.find((e) => e.message.role === 'user')!;
  await fx.service.pin(firstRequest.id);
  const outcome = await fx.service.compactNow();
  assert.equal(outcome.status.kind, 'applied');
  const context = fx.service.getTranscript().context;
  const kept = context.find((i) => i.id === firstRequest.id);
  assert.ok(kept && kept.kind === 'raw' && kept.pinned);
  assert.equal(kept.message, firstRequest.message);
  for (const cp of fx.service.getCheckpoints()) assert.ok(!cp.replacedIds.includes(firstRequest.id));
  const summarized = fx.service.getCheckpoints().find((c) => c.strategy === 'summary')!.replacedIds[0];
  await assert.rejects(fx.service.pin(summarized), /restore it first/);
});
