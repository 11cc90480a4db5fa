/**
 * Why nothing can be compacted, as one sentence: the reasons read as noun phrases joined by commas
 * and "and", never as a bare list of labels.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeHeld } from '../../src/compaction/plan/held-words';
import { LEFT_OUT_REASONS } from '../../src/compaction/plan/planner';

test('the reasons for nothing to compact read as one sentence', () => {
  assert.equal(
    describeHeld(['latest user message', LEFT_OUT_REASONS.summaries(1)]),
    'all that is left is the latest user message and one summary',
  );
  assert.equal(
    describeHeld(['latest user message', LEFT_OUT_REASONS.summaries(2)]),
    'all that is left is the latest user message and two summaries',
  );
  assert.equal(LEFT_OUT_REASONS.summaries(3), 'three summaries');
  assert.equal(LEFT_OUT_REASONS.summaries(12), '12 summaries');
  assert.equal(describeHeld(['pinned']), 'all that is left is pinned messages');
  assert.equal(
    describeHeld(['leading system messages', 'tool calls still waiting for results', LEFT_OUT_REASONS.small]),
    'all that is left is the leading system messages, tool calls still waiting for their results and parts under 300 tokens, too small to shrink',
  );
  assert.equal(describeHeld([]), 'everything left must stay as it is');
});
