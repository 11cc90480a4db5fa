/**
 * A summary the user edited in a recording, larger by itself than the target of the window the
 * recording is continued at: Continue in a New Task summarises it again and lands at the target,
 * and Compact is offered (and works) while it alone holds the context over the window. Either way
 * the line typed into it stands under its heading in the new summary.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeOutcome } from '../../src/service/compaction/outcome';
import { HAND_HEADING } from '../../src/compaction/summary/hand-lines';
import type { ContextItem } from '../../src/compaction/types';
import { continuedAtSmallerWindow, NOTE } from './continued-recording';

/** The summary text in the context, checked to hold {@link NOTE} once, under its heading. */
function noteUnderHeading(context: readonly ContextItem[]): void {
  const summaries = context.filter((i) => i.kind === 'summary').map((i) => String(i.message.content));
  assert.equal(summaries.length, 1, 'one summary');
  const [text] = summaries;
  assert.match(text, new RegExp(`${HAND_HEADING}\\n${NOTE}`), text.slice(-2000));
  assert.equal(text.split(NOTE).length, 2, 'the note once');
}

test('continuing at a smaller window summarises an edited summary larger than the target again, down to the target', async (t) => {
  const fx = await continuedAtSmallerWindow(t, {
    recorded: 128_000,
    count: 240,
    lastWords: 200,
    window: 32_000,
    prompt: 3_000,
  });
  const before = fx.service.getBudget();
  const target = 0.5 * before.inputBudget;
  const summary = fx.service.getTranscript().context.find((i) => i.kind === 'summary');
  assert.ok(summary, 'the edited summary');
  const outcome = await fx.service.compactNow({ trigger: 'continue', calls: 'extractive' });
  assert.equal(outcome.status.kind, 'applied', describeOutcome(outcome.status));
  assert.ok(
    outcome.tokensAfter <= target * 1.02,
    `${outcome.tokensBefore} → ${outcome.tokensAfter} tokens, target ${target}`,
  );
  noteUnderHeading(fx.service.getTranscript().context);
});

test('Compact is offered while one summary alone holds the context over the window, and brings it within it', async (t) => {
  const fx = await continuedAtSmallerWindow(t, {
    recorded: 128_000,
    count: 240,
    lastWords: 200,
    window: 8_000,
    prompt: 400,
  });
  const before = fx.service.getBudget();
  assert.ok(before.used > 2 * before.inputBudget, `${before.used} of ${before.inputBudget} tokens`);
  assert.equal(fx.service.compactBlocker(), undefined, 'Compact is not disabled');
  const outcome = await fx.service.compactNow({ calls: 'extractive' });
  assert.equal(outcome.status.kind, 'applied', describeOutcome(outcome.status));
  assert.ok(outcome.tokensAfter <= before.inputBudget, `${outcome.tokensBefore} → ${outcome.tokensAfter} tokens`);
  noteUnderHeading(fx.service.getTranscript().context);
});
