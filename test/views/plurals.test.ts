/**
 * Counts in the sidebar say "1 checkpoint", never "1 checkpoints": the checkpoint count's tooltip
 * (which also says how many compactions the shown number of runs stands for) and the shared helper.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkpointCountTitle } from '../../src/webview/shared/checkpoint-runs';
import { plural } from '../../src/format/tokens';

test('the checkpoint count tooltip uses the singular for one and names the runs when they group checkpoints', () => {
  assert.equal(checkpointCountTitle(1, 1), '1 checkpoint');
  assert.equal(checkpointCountTitle(2, 2), '2 checkpoints');
  assert.equal(checkpointCountTitle(3, 1), '3 checkpoints in 1 compaction');
  assert.equal(checkpointCountTitle(5, 3), '5 checkpoints in 3 compactions');
  assert.equal(checkpointCountTitle(0, 0), '0 checkpoints');
});

test('plural picks the form by the count', () => {
  assert.equal(plural(1, 'message', 'messages'), '1 message');
  assert.equal(plural(0, 'message', 'messages'), '0 messages');
  assert.equal(plural(12, 'summary', 'summaries'), '12 summaries');
});
