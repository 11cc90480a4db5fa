/**
 * What a summary covers, in words: the checkpoint document, the sidebar divider and the CLI all say
 * which messages a summary stands for and how many of them no model read because of the call limit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SummaryCoverage } from '../../src/compaction/types';
import { coverageNote, describeCoverage, unreadByModel, wholeCoverage } from '../../src/compaction/summary/coverage';
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
