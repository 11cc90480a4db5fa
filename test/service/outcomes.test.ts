/**
 * The service passes the core's typed compaction outcome on unchanged, adds its own kinds (cancelled,
 * timed out, preview, no preview, stale preview), and decides from the kind alone whether the sidebar
 * shows a problem; the problem text is rendered from the status.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { text, toolCalls } from '../../src/demo/modelserver/replies';
import type { Responder } from '../../src/demo/modelserver/wire';
import { SummarizerError, type Summarizer } from '../../src/compaction/types';
import { describeOutcome } from '../../src/service/compaction/outcome';
import { filler, serviceFixture, StubSummarizer } from './fixtures';
import type { StateChange } from '../../src/service/records';

/** Three tasks, each reading one file. */
const history: Responder = (_body, n) =>
  n % 2 === 1
    ? toolCalls([{ id: `h${n}`, name: 'read_file', arguments: JSON.stringify({ path: `f${(n + 1) / 2}.txt` }) }])
    : text(`Read file ${n / 2}.`);
const files = { 'f1.txt': filler(60, 'a'), 'f2.txt': filler(60, 'b'), 'f3.txt': filler(60, 'c') };

async function withHistory(summarizer: Summarizer, extra: { compactionTimeoutMs?: number } = {}) {
  const fx = await serviceFixture(history, { files, summarizer, window: 64_000, ...extra });
  for (let i = 1; i <= 3; i++) await fx.service.runTask(`Read f${i}.txt`);
  const states: StateChange[] = [];
  fx.service.onDidChangeState((s) => states.push(s));
  return { fx, states };
}

test('applied: the status carries the figures of the outcome; no problem is shown', async (t) => {
  const { fx, states } = await withHistory(new StubSummarizer('SUMMARY-OK'));
  t.after(fx.cleanup);
  const outcome = await fx.service.compactNow();
  assert.equal(outcome.status.kind, 'applied', describeOutcome(outcome.status));
  assert.equal(outcome.status.kind, 'applied');
  if (outcome.status.kind !== 'applied') return;
  assert.equal(outcome.status.tokensBefore, outcome.tokensBefore);
  assert.equal(outcome.status.tokensAfter, outcome.tokensAfter);
  assert.equal(outcome.status.checkpoints, outcome.checkpoints.length);
  assert.ok(!states.some((s) => s.state === 'error'));
});

test('summarizer failed: the core status reaches the caller unchanged, and the sidebar state shows the text rendered from it', async (t) => {
  const error = new SummarizerError(
    'the summarizer at http://127.0.0.1:9 rejected the API key (HTTP 401): bad key',
    'http',
    { status: 401 },
  );
  const failing: Summarizer = { name: 'model', summarize: () => Promise.reject(error) };
  const { fx, states } = await withHistory(failing);
  t.after(fx.cleanup);
  const outcome = await fx.service.compactNow();
  assert.deepEqual(outcome.status, { kind: 'summarizer-failed', failure: 'auth', status: 401, message: error.message });
  assert.deepEqual(fx.service.getState(), {
    state: 'error',
    detail: describeOutcome(outcome.status),
    failure: { kind: 'auth', status: 401 },
  });
  assert.ok(states.some((s) => s.state === 'error' && s.detail?.includes('the summarizer rejected the API key')));
});

test('nothing eligible is quiet: no error state', async (t) => {
  const fx = await serviceFixture(history, { files });
  t.after(fx.cleanup);
  const outcome = await fx.service.compactNow();
  assert.notEqual(outcome.status.kind, 'applied');
  assert.equal(outcome.status.kind, 'nothing-eligible');
  assert.notEqual(fx.service.getState().state, 'error');
});

test('cancelled: the service reports its own kind, quietly', async (t) => {
  const { fx } = await withHistory(new StubSummarizer('SUMMARY-OK', 5_000));
  t.after(fx.cleanup);
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  const outcome = await fx.service.compactNow({}, controller.signal);
  assert.deepEqual(outcome.status, { kind: 'cancelled' });
  assert.equal(describeOutcome(outcome.status), describeOutcome(outcome.status));
  assert.notEqual(fx.service.getState().state, 'error');
});

test('timed out: the status carries the limit and the problem is shown', async (t) => {
  const { fx } = await withHistory(new StubSummarizer('SUMMARY-OK', 0, 'never'), { compactionTimeoutMs: 150 });
  t.after(fx.cleanup);
  const outcome = await fx.service.compactNow();
  assert.deepEqual(outcome.status, { kind: 'timed-out', timeoutMs: 150 });
  assert.deepEqual(fx.service.getState(), {
    state: 'error',
    detail: 'compaction timed out after 150 ms; the context is unchanged (try again, or use a faster summarizer)',
  });
});

test('preview: proposed, then discarded by a pin, so there is no preview to apply', async (t) => {
  const { fx } = await withHistory(new StubSummarizer('SUMMARY-OK'));
  t.after(fx.cleanup);
  const proposed = await fx.service.compactNow({ preview: true });
  assert.deepEqual(proposed.status, { kind: 'proposed' });
  await fx.service.pin(fx.service.getTranscript().entries[1].id);
  assert.equal(fx.service.getPreview(), undefined);
  const none = await fx.service.applyPreview();
  assert.deepEqual(none.status, { kind: 'no-preview' });
  assert.equal(describeOutcome(none.status), 'there is no summary preview to apply');
});

test('a task the model refuses carries the failure kind and HTTP status, not only its text', async (t) => {
  const fx = await serviceFixture((_body) => ({ type: 'status', status: 401, message: 'Incorrect API key provided' }));
  t.after(fx.cleanup);
  const outcome = await fx.service.runTask('Say hi.');
  assert.equal(outcome.status, 'error');
  assert.deepEqual(outcome.failure, { kind: 'auth', status: 401 });
  const server = await serviceFixture((_body) => ({
    type: 'status',
    status: 500,
    message: 'key-value store unavailable (auth cache)',
  }));
  t.after(server.cleanup);
  const failed = await server.service.runTask('Say hi.');
  assert.deepEqual(failed.failure?.kind, 'server');
});

test('a summarizer that rejects the key shows the error state with its typed failure', async (t) => {
  const error = new SummarizerError('the summarizer rejected the request (HTTP 403): forbidden', 'http', {
    status: 403,
  });
  const { fx, states } = await withHistory({ name: 'failing', summarize: () => Promise.reject(error) });
  t.after(fx.cleanup);
  await fx.service.compactNow();
  const shown = states.find((s) => s.state === 'error');
  assert.deepEqual(shown?.failure, { kind: 'auth', status: 403 });
});
