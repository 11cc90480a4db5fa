/**
 * The divider's headline says what happened in plain words: the automatic trigger level is named as
 * a trigger (not "compacted at 5.6k", which reads as the size after), then the sizes before and after.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compactionHeadline } from '../../src/webview/shared/compaction-headline';
import type { CompactionView } from '../../src/webview/shared/protocol';

const base: CompactionView = {
  id: 'cp1',
  checkpointIds: ['cp1'],
  time: '2026-01-01T10:00:00.000Z',
  trigger: 'auto',
  thresholdTokens: 5_600,
  thresholdFraction: 0.8,
  tokensBefore: 5_900,
  tokensAfter: 2_100,
  collapsed: 3,
  summaries: 1,
  clipped: 0,
  messagesReplaced: 9,
  withoutModel: 0,
};

test('an automatic compaction names its trigger as a trigger, then the sizes before and after', () => {
  const text = compactionHeadline(base);
  assert.equal(
    text,
    'Compacted automatically: the context passed the 5.6k-token trigger (80% of budget) and went from 5.9k to 2.1k tokens; 3 tool results collapsed, 1 summary',
  );
  assert.doesNotMatch(text, /compacted at/i);
});

test('manual and recorded compactions say who compacted, with the sizes', () => {
  assert.equal(
    compactionHeadline({
      ...base,
      trigger: 'manual',
      thresholdTokens: undefined,
      thresholdFraction: undefined,
      collapsed: 0,
    }),
    'Compacted on request: the context went from 5.9k to 2.1k tokens; 1 summary',
  );
  assert.equal(
    compactionHeadline({ ...base, trigger: 'import', summaries: 0, collapsed: 0 }),
    'Compacted by the original agent (recorded): the context went from 5.9k to 2.1k tokens',
  );
  assert.equal(
    compactionHeadline({ ...base, trigger: 'continue', collapsed: 0 }),
    'Compacted on continuing the recording in a new task: the context went from 5.9k to 2.1k tokens; 1 summary',
  );
});
