/**
 * The checkpoint history shows one entry per compaction run: a manual Compact Conversation that
 * collapsed tool results and then wrote a summary is one entry with two steps, whose Restore goes
 * back to before the run (its first checkpoint), while each step stays inspectable.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupCheckpointRuns } from '../../src/webview/shared/checkpoint-runs';
import type { CheckpointView } from '../../src/webview/shared/protocol';

function view(
  id: string,
  minute: number,
  before: number,
  after: number,
  extra: Partial<CheckpointView> = {},
): CheckpointView {
  return {
    id,
    time: new Date(Date.UTC(2026, 0, 1, 10, minute)).toISOString(),
    trigger: 'manual',
    strategy: 'summary',
    tokensBefore: before,
    tokensAfter: after,
    messagesReplaced: 3,
    withoutModel: 0,
    ...extra,
  };
}

test('a manual run of collapse then summary is one entry; other runs stay apart', () => {
  // Newest first, as the sidebar receives them.
  const history = [
    view('summary2', 9, 6000, 2000, { trigger: 'auto' }),
    view('summary1', 2, 7000, 3000, { run: 'collapse1' }),
    view('collapse1', 2, 9000, 7000, { strategy: 'collapse' }),
    view('old', 0, 5000, 4000),
  ];
  const runs = groupCheckpointRuns(history);
  assert.deepEqual(
    runs.map((r) => r.id),
    ['summary2', 'collapse1', 'old'],
  );
  const manual = runs[1];
  assert.deepEqual(
    manual.steps.map((s) => s.id),
    ['collapse1', 'summary1'],
    'steps in the order they were applied',
  );
  assert.equal(manual.trigger, 'manual');
  assert.equal(manual.tokensBefore, 9000, 'before the run');
  assert.equal(manual.tokensAfter, 3000, 'after its last step');
  assert.equal(manual.time, history[2].time);
  assert.equal(manual.restored, false);
  assert.equal(runs[0].steps.length, 1);
});

test('a restored run is marked restored and offers the undo when its restore is the undoable one', () => {
  const runs = groupCheckpointRuns([
    view('summary1', 2, 7000, 3000, { run: 'collapse1', restored: true }),
    view('collapse1', 2, 9000, 7000, { strategy: 'collapse', restored: true, undoRestore: true }),
  ]);
  assert.equal(runs.length, 1);
  assert.equal(runs[0].restored, true);
  assert.equal(runs[0].undoRestore, true);
  // Partly restored (not a state a restore produces, but the history must not hide it).
  const partly = groupCheckpointRuns([
    view('b', 2, 7000, 3000, { run: 'a', restored: true }),
    view('a', 2, 9000, 7000),
  ]);
  assert.equal(partly[0].restored, false);
  assert.equal(partly[0].tokensAfter, 7000, 'what the step still in force left');
});
