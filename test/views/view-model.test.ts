/**
 * The sidebar's update path, host and webview side, over a real context service and loopback model:
 * deltas stay small while a reply streams, the webview's store patched by every delta ends equal to
 * a fresh snapshot, a gap is detected, and an automatic compaction gets a divider with its figures
 * and dims the lines it replaced.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Entry } from '../../src/compaction/types';
import { text, toolCalls } from '../../src/demo/modelserver/replies';
import type { Reply } from '../../src/demo/modelserver/wire';
import type { BudgetView, HostMessage, ViewState } from '../../src/webview/shared/protocol';
import { groupCheckpointRuns } from '../../src/webview/shared/checkpoint-runs';
import { feedSidebar } from '../../src/views/sidebar/sidebar-feed';
import { SidebarModel, WINDOW_STEP } from '../../src/views/sidebar/view-model';
import { Store } from '../../src/webview/shared/view-store';
import { filler, serviceFixture } from '../service/fixtures';

const chrome = { source: 'test', hasApiKey: true, sessions: [], readOnly: false };
const settings = () => ({ autoCompact: true, emptyBudget: { used: 0 } as BudgetView });

function streamed(words: number): Reply {
  const chunks = Array.from({ length: words }, (_, i) => `w${i} `);
  return { content: chunks.join(''), chunks, chunkDelayMs: 1 };
}

/** Strips what legitimately differs between a patched store and a fresh snapshot. */
function comparable(state: ViewState): unknown {
  return { ...state, transcript: state.transcript.map((item) => ({ ...item, time: undefined })) };
}

test('streamed replies travel as small deltas; the patched webview store equals a fresh snapshot', async (t) => {
  const fx = await serviceFixture(
    (_body, n) =>
      n === 1
        ? { ...toolCalls([{ id: 'c1', name: 'read_file', arguments: JSON.stringify({ path: 'a.txt' }) }]) }
        : streamed(120),
    {
      files: { 'a.txt': filler(40) },
      window: 64_000,
    },
  );
  t.after(fx.cleanup);
  const model = new SidebarModel(fx.service, chrome, settings);
  const store = new Store();
  store.apply(model.snapshot());
  const sizes: number[] = [];
  let textDeltas = 0;
  const feed = feedSidebar(fx.service, model, () => {
    const message = model.takeDelta();
    if (!message) return;
    sizes.push(JSON.stringify(message).length);
    if (message.type === 'delta' && message.delta.text) textDeltas++;
    assert.notEqual(store.apply(message).kind, 'gap');
  });
  t.after(() => feed.dispose());
  const outcome = await fx.service.runTask('Read a.txt and answer at length.');
  assert.equal(outcome.status, 'done');
  assert.ok(textDeltas >= 100, `text deltas: ${textDeltas}`);
  assert.ok(Math.max(...sizes) < 2048, `largest delta ${Math.max(...sizes)} bytes`);
  const fresh = model.snapshot() as Extract<HostMessage, { type: 'snapshot' }>;
  assert.deepEqual(comparable(store.view!), comparable({ ...fresh.state }));
  const kinds = store.view!.transcript.map((i) => i.kind);
  assert.deepEqual(kinds, ['user', 'tool-call', 'tool-result', 'assistant']);
  const reply = store.view!.transcript[3];
  assert.ok(
    reply.kind === 'assistant' && reply.text.startsWith('w0 w1') && reply.text.includes('w119') && !reply.streaming,
  );
});

test('a lost delta is a gap: the store refuses it and asks for a snapshot', () => {
  const model = new SidebarModel(undefined, chrome, settings);
  const store = new Store();
  store.apply(model.snapshot());
  model.stateChanged();
  model.takeDelta(); // lost on the way
  model.budgetChanged();
  const next = model.takeDelta()!;
  assert.equal(store.apply(next).kind, 'gap');
  assert.equal(store.apply(model.snapshot()).kind, 'snapshot');
});

test('long texts are capped in the view and served whole on demand; the transcript is windowed', async (t) => {
  const fx = await serviceFixture(() => text('ok'), { window: 2_000_000 });
  t.after(fx.cleanup);
  const long = 'x'.repeat(10_000);
  const entries: Entry[] = [];
  for (let i = 0; i < 450; i++)
    entries.push({ id: `u${i}`, message: { role: 'user', content: i === 449 ? long : `message ${i}` } });
  await fx.service.importTranscript({ source: 'test', entries });
  const model = new SidebarModel(fx.service, chrome, settings);
  const snapshot = model.snapshot() as Extract<HostMessage, { type: 'snapshot' }>;
  assert.equal(snapshot.state.transcript.length, WINDOW_STEP);
  assert.equal(snapshot.state.earlier, 450 - WINDOW_STEP);
  const last = snapshot.state.transcript.at(-1)!;
  assert.ok(last.kind === 'user' && last.text.length < 2_000 && last.fullLength === 10_000);
  assert.equal(model.fullText('u449')?.text, long);
  model.loadEarlier();
  const more = model.snapshot() as Extract<HostMessage, { type: 'snapshot' }>;
  assert.equal(more.state.transcript.length, 2 * WINDOW_STEP);
});

test('"earlier" counts the messages before the window, not the lines (a step gives several lines)', async (t) => {
  const fx = await serviceFixture(() => text('ok'), { window: 2_000_000 });
  t.after(fx.cleanup);
  // 150 steps of three lines each (assistant text, its tool call, the tool result) from two messages.
  const entries: Entry[] = [
    { id: 'sys', message: { role: 'system', content: 'no line for this one' } },
    { id: 'u0', message: { role: 'user', content: 'start' } },
  ];
  for (let s = 0; s < 150; s++) {
    entries.push({
      id: `a${s}`,
      message: {
        role: 'assistant',
        content: `step ${s}`,
        tool_calls: [{ id: `c${s}`, type: 'function', function: { name: 'read_file', arguments: '{}' } }],
      },
    });
    entries.push({ id: `t${s}`, message: { role: 'tool', tool_call_id: `c${s}`, content: `result ${s}` } });
  }
  await fx.service.importTranscript({ source: 'test', entries });
  const model = new SidebarModel(fx.service, chrome, settings);
  const state = (model.snapshot() as Extract<HostMessage, { type: 'snapshot' }>).state;
  const lines = 1 + 150 * 3;
  assert.equal(state.transcript.length, WINDOW_STEP);
  const firstShown = state.transcript[0].entryId;
  // Messages that give lines, before the first one shown (the system message gives none).
  const before = entries.filter((e) => e.id !== 'sys').findIndex((e) => e.id === firstShown);
  assert.equal(state.earlier, before);
  assert.ok(
    state.earlier < lines - WINDOW_STEP,
    `${state.earlier} messages, fewer than the ${lines - WINDOW_STEP} lines not shown`,
  );
});

test('an automatic compaction gets a divider at its place with its figures, and dims what it replaced', async (t) => {
  const files: Record<string, string> = {};
  for (let i = 1; i <= 6; i++) files[`src/f${i}.txt`] = filler(130, `f${i}`);
  const fx = await serviceFixture(
    (_body, n) =>
      n <= 6
        ? toolCalls([{ id: `c${n}`, name: 'read_file', arguments: JSON.stringify({ path: `src/f${n}.txt` }) }])
        : text('All read.'),
    { files, window: 8_000, reserved: 500 },
  );
  t.after(fx.cleanup);
  const model = new SidebarModel(fx.service, chrome, settings);
  const store = new Store();
  store.apply(model.snapshot());
  const feed = feedSidebar(fx.service, model, () => {
    const message = model.takeDelta();
    if (message) store.apply(message);
  });
  t.after(() => feed.dispose());
  const outcome = await fx.service.runTask('Read every file under src/.');
  assert.equal(outcome.status, 'done');
  assert.ok(outcome.compactions >= 1);
  const view = store.view!;
  assert.ok(view.compactions.length >= 1, 'a divider');
  const divider = view.compactions[0];
  assert.equal(divider.trigger, 'auto');
  assert.ok(divider.tokensAfter < divider.tokensBefore);
  assert.equal(divider.thresholdTokens, fx.service.getBudget().compactAt.tokens);
  assert.ok(divider.collapsed + divider.summaries + divider.clipped > 0);
  // The divider stands after a line that existed before it, and before the final answer.
  const at = view.transcript.findIndex((i) => i.id === divider.afterId);
  const answer = view.transcript.findIndex((i) => i.kind === 'assistant' && i.text === 'All read.');
  assert.ok(at >= 0 && at < answer, `divider after line ${at}, answer at ${answer}`);
  const dimmed = view.transcript.filter((i) => i.compactedBy === divider.id);
  assert.ok(dimmed.length > 0, 'replaced lines are marked');
  for (const line of dimmed)
    assert.ok(view.transcript.indexOf(line) <= at, 'only lines before the divider are replaced');
  const detail = model.compactionDetail(divider.id)!;
  assert.ok(detail.summary.length > 0);
  assert.ok(
    detail.replaced.some((r) => r.tool === 'read_file'),
    'replaced items name their tool',
  );
  // The peak: the gauge remembers where it was before dropping, unless it climbed past it again.
  const peak = view.budget.peak;
  if (peak) assert.ok(peak.tokens > view.budget.used);
  // The history shows one entry per run, as the transcript shows one divider: same ids, same steps.
  const runs = groupCheckpointRuns(view.checkpoints);
  assert.deepEqual(
    runs.map((r) => r.id),
    view.compactions.map((c) => c.id).reverse(),
  );
  assert.deepEqual(
    runs.map((r) => r.steps.map((s) => s.id)),
    view.compactions.map((c) => c.checkpointIds).reverse(),
  );
  assert.equal(
    runs.reduce((n, r) => n + r.steps.length, 0),
    view.checkpoints.length,
    'every checkpoint stays inspectable',
  );
  // Restoring the compaction removes the dimming and marks the divider restored.
  await fx.service.restoreCheckpoint(divider.checkpointIds[0]);
  assert.ok(store.view!.compactions[0].restored);
  assert.equal(store.view!.transcript.filter((i) => i.compactedBy === divider.id).length, 0);
});
