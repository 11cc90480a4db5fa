/**
 * What a summary covers, in words: the checkpoint document, the sidebar divider and the CLI all say
 * which messages a summary stands for and how many of them no model read because of the call limit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SummaryCoverage } from '../../src/compaction/types';
import {
  coverageNote,
  describeCoverage,
  fallbackCoverage,
  FirstPositions,
  firstPositionAt,
  placeCoverage,
  unreadByModel,
  wholeCoverage,
} from '../../src/compaction/summary/coverage';
import type { ContextItem } from '../../src/compaction/types';
import { compactionHeadline } from '../../src/webview/shared/compaction-headline';

const split: SummaryCoverage = {
  messages: 662,
  maxCalls: 4,
  parts: [
    { first: 1, last: 611, writer: 'extractive', calls: 0, reason: 'call-limit' },
    { first: 612, last: 662, writer: 'model', calls: 4 },
  ],
};

test('a span the call limit split says how many messages had no model, and why', () => {
  assert.equal(unreadByModel(split), 611);
  assert.equal(describeCoverage(split), 'messages 1-662; 611 summarised without a model because of the 4-call limit');
  assert.equal(
    coverageNote(split),
    'Coverage: this summary stands for 662 messages; messages 1-611 summarised without a model (extracted notes) because of the 4-call limit; messages 612-662 read by the summarizer model.',
  );
});

test('a span read whole by one writer names its messages and carries no coverage line in the summary', () => {
  const whole = wholeCoverage(40, 'model', 2);
  assert.equal(unreadByModel(whole), 0);
  assert.equal(describeCoverage(whole), 'messages 1-40');
  assert.equal(coverageNote(whole), undefined);
  // The extractive summarizer chosen on purpose is not a call-limit part.
  assert.equal(unreadByModel(wholeCoverage(40, 'extractive', 0)), 0);
});

test('the divider headline says what the call limit left to the extractive writer', () => {
  const text = compactionHeadline({
    id: 'c1',
    checkpointIds: ['c1'],
    time: '2026-01-01T10:00:00.000Z',
    trigger: 'manual',
    tokensBefore: 365_000,
    tokensAfter: 5_200,
    collapsed: 0,
    summaries: 1,
    clipped: 0,
    messagesReplaced: 662,
    withoutModel: 611,
    coverage: describeCoverage(split),
  });
  assert.match(text, /1 summary, messages 1-662; 611 summarised without a model because of the 4-call limit$/);
});

test("a summarizer's coverage, counted from 1, is placed where its span starts in the conversation", () => {
  const context: ContextItem[] = [
    { id: 's', kind: 'raw', message: { role: 'system', content: 'x' }, covers: ['s'] },
    { id: 'k1~s', kind: 'summary', message: { role: 'user', content: 'x' }, covers: ['a', 'b', 'c'] },
    { id: 'k1~a', kind: 'summary', message: { role: 'assistant', content: 'Noted.' }, covers: [] },
    { id: 'd', kind: 'raw', message: { role: 'user', content: 'x' }, covers: ['d'] },
  ];
  assert.equal(firstPositionAt(context, 0), 1);
  assert.equal(firstPositionAt(context, 3), 5, 'after the system prompt and the three messages of the summary');
  // The same answers from sums made once, at every place and past the end.
  const positions = new FirstPositions(context);
  for (let i = 0; i <= context.length + 1; i++)
    assert.equal(positions.at(i), firstPositionAt(context, i), `place ${i}`);
  const placed = placeCoverage({ ...split, maxCalls: 2 }, 5, 4);
  assert.deepEqual(
    placed.parts.map((p) => [p.first, p.last]),
    [
      [5, 615],
      [616, 666],
    ],
  );
  assert.equal(placed.maxCalls, 4, "the compaction's limit, not what was left for the span");
  assert.equal(describeCoverage(placed), 'messages 5-666; 611 summarised without a model because of the 4-call limit');
  assert.equal(split.parts[0].first, 1, 'the input is not changed');
  assert.equal(
    placeCoverage(wholeCoverage(3, 'model', 1), 2, 4).maxCalls,
    undefined,
    'no limit named when none applied',
  );
});

test('a summary written without a model because the model call failed says so, with the failure on one line', () => {
  const failed = placeCoverage(
    fallbackCoverage(56, 'summary-model had a server error (HTTP 500)\nafter 2 attempt(s): down'),
    40,
    4,
  );
  assert.equal(unreadByModel(failed), 56);
  assert.equal(
    describeCoverage(failed),
    'messages 40-95; 56 summarised without a model because the model call failed: summary-model had a server error (HTTP 500) after 2 attempt(s): down',
  );
  assert.equal(
    coverageNote(failed),
    'Coverage: this summary stands for 56 messages; messages 40-95 summarised without a model (extracted notes) because the model call failed.',
  );
});
