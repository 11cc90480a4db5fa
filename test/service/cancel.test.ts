/** Cancel and timeout leave the conversation whole, in memory and on disk. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { checkContext, checkToolPairing } from '../../src/compaction/plan/invariants';
import { text, toolCalls } from '../../src/demo/modelserver/replies';
import { filler, serviceFixture, StubSummarizer } from './fixtures';
import { describeOutcome } from '../../src/service/compaction/outcome';

const files = { 'f1.txt': filler(60, 'a'), 'f2.txt': filler(60, 'b') };
const script = (n: number) =>
  n <= 4
    ? n % 2 === 1
      ? toolCalls([{ id: `h${n}`, name: 'read_file', arguments: JSON.stringify({ path: `f${(n + 1) / 2}.txt` }) }])
      : text(`Read ${n / 2}.`)
    : text('fine');

test('a compaction cancelled mid-summary changes nothing, in memory or on disk; the next message appends normally', async (t) => {
  const summarizer = new StubSummarizer('SUMMARY-OK', 2_000);
  const fx = await serviceFixture((_b, n) => script(n), { files, summarizer, window: 64_000 });
  t.after(fx.cleanup);
  await fx.service.runTask('read f1');
  await fx.service.runTask('read f2');
  const statePath = path.join(fx.service.sessionDir!, 'state.json');
  const stateBefore = readFileSync(statePath, 'utf8');
  const contextBefore = fx.service.getTranscript().context;
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 100);
  const started = Date.now();
  const outcome = await fx.service.compactNow({}, controller.signal);
  assert.ok(Date.now() - started < 1_000, 'returned promptly');
  assert.notEqual(outcome.status.kind, 'applied');
  assert.match(describeOutcome(outcome.status), /cancelled/);
  assert.deepEqual(fx.service.getTranscript().context, contextBefore);
  assert.equal(fx.service.getCheckpoints().length, 0);
  assert.equal(readFileSync(statePath, 'utf8'), stateBefore, 'state file untouched');
  const task = await fx.service.runTask('carry on');
  assert.equal(task.status, 'done');
  const reopened = await fx.reopen();
  const messages = reopened.getMessages();
  assert.equal(messages.at(-2)?.content, 'carry on');
  assert.equal(reopened.getCheckpoints().length, 0);
});

test('a summarizer that never answers times out cleanly and the session stays usable', async (t) => {
  const summarizer = new StubSummarizer('never', 0, 'never');
  const fx = await serviceFixture((_b, n) => script(n), {
    files,
    summarizer,
    window: 64_000,
    compactionTimeoutMs: 200,
  });
  t.after(fx.cleanup);
  await fx.service.runTask('read f1');
  await fx.service.runTask('read f2');
  const before = fx.service.getTranscript().context;
  const outcome = await fx.service.compactNow();
  assert.notEqual(outcome.status.kind, 'applied');
  assert.match(describeOutcome(outcome.status), /timed out after 200 ms/);
  assert.deepEqual(fx.service.getTranscript().context, before);
  assert.equal(fx.service.getState().state, 'error', 'the user is told');
  const task = await fx.service.runTask('next request');
  assert.equal(task.status, 'done');
  assert.equal(task.finalText, 'fine');
});

test('cancel during a tool and during an automatic compaction: nothing lost, transcript valid and persisted', async (t) => {
  const summarizer = new StubSummarizer('SUMMARY-OK', 5_000);
  let step = 0;
  const fx = await serviceFixture(
    (_b) => {
      step++;
      // Long reasoning text with each call: collapsing tool results alone cannot reach the target,
      // so the compaction has to wait for the (slow) summarizer.
      if (step <= 12)
        return toolCalls(
          [{ id: `r${step}`, name: 'read_file', arguments: JSON.stringify({ path: 'small.txt' }) }],
          filler(100, `think${step}`),
        );
      if (step === 13)
        return toolCalls([
          { id: 's1', name: 'run_command', arguments: JSON.stringify({ command: 'sleep 5' }) },
          { id: 's2', name: 'read_file', arguments: '{"path":"big.txt"}' },
        ]);
      return text('done');
    },
    {
      files: { 'small.txt': 'small', 'big.txt': filler(20, 'big') },
      summarizer,
      window: 16_000,
      reserved: 1_000,
      compactTo: 0.3,
    },
  );
  t.after(fx.cleanup);
  // First run: the compaction fires inside the loop and is slow; cancel while it runs.
  const states: string[] = [];
  const watch = fx.service.onDidChangeState((s) => {
    states.push(s.state);
    if (s.state === 'compacting') setTimeout(() => fx.service.cancel(), 50);
  });
  const first = await fx.service.runTask('read big.txt a few times');
  watch.dispose();
  summarizer.delayMs = 0;
  assert.equal(first.status, 'cancelled');
  assert.ok(states.includes('compacting'));
  assert.equal(fx.service.getCheckpoints().length, 0);
  let { entries, context } = fx.service.getTranscript();
  assert.deepEqual(checkContext(context, entries), []);
  // Second run: cancel while a command runs; both calls get a result.
  const sub = fx.service.onDidStartToolCall((e) => {
    if (e.callId === 's1') setTimeout(() => fx.service.cancel(), 100);
  });
  step = 12;
  const second = await fx.service.runTask('run the slow command');
  sub.dispose();
  assert.equal(second.status, 'cancelled');
  assert.ok(fx.service.getCheckpoints().length >= 1, 'the next run compacted');
  ({ entries, context } = fx.service.getTranscript());
  assert.deepEqual(checkToolPairing(context.map((i) => i.message)), []);
  const results = entries.filter(
    (e) => e.message.role === 'tool' && ['s1', 's2'].includes((e.message as { tool_call_id: string }).tool_call_id),
  );
  assert.equal(results.length, 2);
  // Everything appended is on disk: a restart sees the same messages.
  const reopened = await fx.reopen();
  assert.deepEqual(
    reopened.getTranscript().entries.map((e) => e.id),
    entries.map((e) => e.id),
  );
  assert.deepEqual(reopened.getMessages(), fx.service.getMessages());
});
