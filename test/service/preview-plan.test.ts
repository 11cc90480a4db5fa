/**
 * The preview is the plan: a manual compaction with `preview` shows every summary Apply writes, in
 * order, with the tokens after; Apply writes exactly that (with the user's edits) or, when the
 * conversation changed since, nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { text, toolCalls } from '../../src/demo/modelserver/replies';
import type { Responder } from '../../src/demo/modelserver/wire';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { filler, serviceFixture, StubSummarizer } from './fixtures';
import { describeOutcome } from '../../src/service/compaction/outcome';

const files = {
  'f1.txt': filler(60, 'a'),
  'f2.txt': filler(60, 'b'),
  'f3.txt': filler(60, 'c'),
  'g1.txt': filler(60, 'd'),
  'g2.txt': filler(60, 'e'),
  'g3.txt': filler(60, 'f'),
};

/**
 * Three earlier tasks reading one file each, then a task of three reading steps and an answer: a
 * manual compaction then summarises the earlier tasks and the current task's older steps, two spans.
 */
const responder: Responder = (_body, n) => {
  if (n <= 6)
    return n % 2 === 1
      ? toolCalls([{ id: `h${n}`, name: 'read_file', arguments: JSON.stringify({ path: `f${(n + 1) / 2}.txt` }) }])
      : text(`Read file ${n / 2}.`);
  const k = n - 6;
  if (k <= 3) return toolCalls([{ id: `g${k}`, name: 'read_file', arguments: JSON.stringify({ path: `g${k}.txt` }) }]);
  return text(`Done after ${k} calls.\n${filler(20, 'answer')}`);
};

async function twoSpanSession() {
  let k = 0;
  const summarizer = new StubSummarizer(() => `PROPOSED SUMMARY ${++k}`);
  const fx = await serviceFixture(responder, { files, summarizer, window: 64_000 });
  for (let i = 1; i <= 3; i++) await fx.service.runTask(`Read f${i}.txt`);
  await fx.service.runTask('Read g1.txt, g2.txt and g3.txt, one at a time.');
  return { fx, summarizer };
}

/** The active context as the model would be sent it, message texts in order. */
function contextTexts(fx: Awaited<ReturnType<typeof serviceFixture>>): string[] {
  return fx.service.getMessages().map((m) => `${m.role}: ${textWithPlaceholders(m.content)}`);
}

test('the preview shows every summary Apply writes, and Apply writes exactly those, with the figure shown', async (t) => {
  const { fx } = await twoSpanSession();
  t.after(fx.cleanup);
  const before = fx.service.getCheckpoints().length;
  const proposed = await fx.service.compactNow({ preview: true });
  const preview = proposed.preview;
  assert.ok(preview, describeOutcome(proposed.status));
  assert.equal(preview.summaries.length, 2, 'two spans, two summaries, both shown');
  assert.deepEqual(
    preview.summaries.map((s) => s.summary.split('\n')[0]),
    ['PROPOSED SUMMARY 1', 'PROPOSED SUMMARY 2'],
    'in the order they stand in the context',
  );
  assert.equal(fx.service.getCheckpoints().length, before, 'nothing written by the preview');

  const applied = await fx.service.applyPreview();
  assert.equal(applied.status.kind, 'applied', describeOutcome(applied.status));
  const written = fx.service
    .getCheckpoints()
    .slice(before)
    .filter((c) => c.strategy === 'summary' || c.strategy === 'extractive');
  assert.deepEqual(
    written.map((c) => c.summary),
    preview.summaries.map((s) => s.summary),
    'the summaries applied are the summaries previewed',
  );
  assert.deepEqual(
    written.map((c) => c.id),
    preview.summaries.map((s) => s.checkpointId),
  );
  assert.equal(applied.tokensAfter, preview.tokensAfter, 'the token figure shown is the one reached');
  assert.equal(fx.service.getBudget().used, preview.tokensAfter);
  for (const s of preview.summaries)
    assert.equal(
      contextTexts(fx).filter((m) => m.endsWith(s.summary)).length,
      1,
      'each previewed summary stands in the context once',
    );
});

test('edits of each summary are applied as edited and marked so; a preview of a conversation that changed since writes nothing', async (t) => {
  const { fx } = await twoSpanSession();
  t.after(fx.cleanup);
  const proposed = await fx.service.compactNow({ preview: true });
  assert.equal(proposed.preview?.summaries.length, 2);
  const applied = await fx.service.applyPreview([undefined, 'THE SECOND, AS EDITED']);
  assert.equal(applied.status.kind, 'applied', describeOutcome(applied.status));
  const written = applied.checkpoints.filter((c) => c.strategy === 'summary' || c.strategy === 'extractive');
  assert.deepEqual(
    written.map((c) => c.summary),
    [proposed.preview.summaries[0].summary, 'THE SECOND, AS EDITED'],
  );
  // The edited one is marked as edited by hand, in the saved record too; the other is not.
  assert.deepEqual(
    written.map((c) => c.editedByHand === true),
    [false, true],
  );
  const saved = fx.service.getCheckpoints().find((c) => c.id === written[1].id);
  assert.equal(saved?.editedByHand, true);

  // Undo it, preview again, then let the conversation grow: the preview is gone and Apply writes nothing.
  await fx.service.restoreCheckpoint(applied.checkpoints[0].id);
  const again = await fx.service.compactNow({ preview: true });
  assert.ok(again.preview, describeOutcome(again.status));
  await fx.service.runTask('Read f1.txt');
  const count = fx.service.getCheckpoints().length;
  const context = contextTexts(fx);
  assert.equal(fx.service.getPreview(), undefined);
  const stale = await fx.service.applyPreview();
  assert.equal(stale.status.kind, 'no-preview');
  assert.equal(fx.service.getCheckpoints().length, count);
  assert.deepEqual(contextTexts(fx), context, 'the context is as it was');
});

test("a checkpoint's duration is the time to prepare it, not the time the preview waited for the user", async (t) => {
  const { fx } = await twoSpanSession();
  t.after(fx.cleanup);
  const before = fx.service.getCheckpoints().length;
  const started = Date.now();
  const proposed = await fx.service.compactNow({ preview: true });
  assert.ok(proposed.preview, describeOutcome(proposed.status));
  const preparing = Date.now() - started;
  const wait = 600;
  await new Promise((resolve) => setTimeout(resolve, wait));
  const applied = await fx.service.applyPreview();
  assert.equal(applied.status.kind, 'applied', describeOutcome(applied.status));
  const written = fx.service.getCheckpoints().slice(before);
  assert.ok(written.length > 0);
  for (const c of written)
    assert.ok(
      (c.durationMs ?? Infinity) <= preparing,
      `duration ${c.durationMs} ms within the ${preparing} ms of preparing`,
    );
});
