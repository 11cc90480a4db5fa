/**
 * The over-budget warning never tells the user to compact while Compact is disabled: when all that
 * is left is held, it names the way out (restore the newest compaction and compact again) and
 * offers that run; with no compaction to restore, it says only a larger window makes room.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { overBudgetAdvice } from '../../src/webview/shared/gauge-geometry';

const held = 'all that is left is the latest user message and two summaries';

test('over budget with Compact available: the warning asks for a compaction and offers no restore', () => {
  const advice = overBudgetAdvice(552, undefined, [{ id: 'r1', restored: false }]);
  assert.equal(advice.text, '552 over the prompt budget: compact before the next request.');
  assert.equal(advice.restoreRunId, undefined);
});

test('over budget with nothing left to compact: no "compact before the next request", the newest unrestored run is offered', () => {
  const runs = [
    { id: 'newest', restored: true },
    { id: 'older', restored: false },
    { id: 'oldest', restored: false },
  ];
  const advice = overBudgetAdvice(552, held, runs);
  assert.doesNotMatch(advice.text, /compact before the next request/);
  assert.match(advice.text, /Compact has nothing left to replace \(all that is left is .*two summaries\)/);
  assert.match(advice.text, /restore the latest compaction, then compact again/);
  assert.equal(advice.restoreRunId, 'older');
});

test('over budget, nothing to compact and no compaction to restore: only a larger window is named', () => {
  const advice = overBudgetAdvice(1_200, held, [{ id: 'r1', restored: true }]);
  assert.doesNotMatch(advice.text, /compact before|restore/);
  assert.match(advice.text, /larger context window/);
  assert.equal(advice.restoreRunId, undefined);
});
