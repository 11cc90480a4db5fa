/**
 * Restore from the history or the palette names the compaction run the history shows (trigger, time,
 * tokens before → after) and restores every step of it still in force, so the context goes back to
 * before the run; dismissing restores nothing.
 */
import '../support/vscode-fake/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CheckpointView } from '../../src/webview/shared/protocol';
import { restoreRun } from '../../src/views/commands/restore-run';
import { host, resetVscodeFake } from '../support/vscode-fake';
import type { CheckpointRestored } from '../../src/service/records';
import type { BudgetSnapshot } from '../../src/service/meter/budget-types';
import { formatClock } from '../../src/format/display';

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

// Newest first, as the history lists them: a manual run of two steps, then an automatic one.
const history = [
  view('auto1', 9, 6000, 5000, { trigger: 'auto' }),
  view('summary1', 2, 7000, 3000, { run: 'collapse1' }),
  view('collapse1', 2, 9000, 7000, { strategy: 'collapse' }),
];
const budget = { used: 5000, inputBudget: 100_000, compactAt: { tokens: 80_000 } } as unknown as BudgetSnapshot;

function target(restored: string[][]) {
  return {
    checkpoints: () => history,
    budget: () => budget,
    // The service's plan: here the two steps alone, bringing the context to 11,000 tokens.
    plan: (ids: readonly string[]) => ({ undone: [...ids], tokens: 11_000 }),
    restore: async (ids: readonly string[]): Promise<CheckpointRestored> => {
      restored.push([...ids]);
      return { id: ids[0], undone: [...ids] };
    },
  };
}

test('the confirmation names the run, and Restore restores all its steps under the run id', async () => {
  resetVscodeFake();
  const restored: string[][] = [];
  host.user.message = () => undefined;
  assert.equal(await restoreRun(target(restored), 'collapse1'), undefined, 'dismissed');
  assert.deepEqual(restored, []);
  const asked = host.messages[0];
  assert.equal(asked.modal, true);
  assert.deepEqual(asked.items, ['Restore']);
  const time = formatClock(history[2].time);
  assert.equal(asked.message, `Restore the context to before the manual compaction of ${time} (9.0k → 3.0k tokens)?`);
  assert.match(asked.detail ?? '', /all 2 of its steps/);
  assert.match(
    asked.detail ?? '',
    /grows from 5,000 to about 11,000 tokens \(11% of the 100,000-token budget\)/,
    "the figure is the service plan's",
  );
  assert.doesNotMatch(
    asked.detail ?? '',
    /later compaction/,
    'the later automatic run is not built on it, so it is not named',
  );
  assert.doesNotMatch(asked.message, /checkpoint/);

  host.user.message = (shown) => (shown.modal ? 'Restore' : undefined);
  // The history entry's id, or any step's id: the same run, restored whole.
  const done = await restoreRun(target(restored), 'summary1');
  assert.equal(done?.run.id, 'collapse1');
  assert.deepEqual(restored, [['collapse1', 'summary1']]);
});

test('from the palette the user picks among runs, not checkpoints', async () => {
  resetVscodeFake();
  const restored: string[][] = [];
  let offered: string[] = [];
  host.user.quickPick = (items) => {
    offered = items.map((i) => `${i.label} | ${i.description}`);
    return items[1];
  };
  host.user.message = (shown) => (shown.modal ? 'Restore' : undefined);
  await restoreRun(target(restored), undefined);
  assert.equal(offered.length, 2, 'one item per run');
  assert.match(offered[0], /^automatic compaction · .* \| 6.0k → 5.0k tokens$/);
  assert.match(offered[1], /^manual compaction · .* \| 9.0k → 3.0k tokens, 2 steps$/);
  assert.deepEqual(restored, [['collapse1', 'summary1']]);
});

test('a restore past the window never promises the messages stay out of compaction "while the context fits"', async () => {
  resetVscodeFake();
  host.user.message = () => undefined;
  const fits = target([]);
  await restoreRun(fits, 'collapse1');
  assert.match(host.messages[0].detail ?? '', /kept out of automatic compaction while the context fits the window/);
  resetVscodeFake();
  host.user.message = () => undefined;
  const over = { ...target([]), plan: (ids: readonly string[]) => ({ undone: [...ids], tokens: 250_000 }) };
  await restoreRun(over, 'collapse1');
  const detail = host.messages[0].detail ?? '';
  assert.match(detail, /more than the window holds: the next request will ask you before compacting them again/);
  assert.doesNotMatch(detail, /while the context fits/);
});

test('restoring in a read-only recording never speaks of its next request: a recording sends none', async () => {
  resetVscodeFake();
  host.user.message = () => undefined;
  const over = { used: 5000, inputBudget: 10_000, compactAt: { tokens: 8_000 } } as unknown as BudgetSnapshot;
  await restoreRun({ ...target([]), budget: () => over, readOnly: () => true }, 'collapse1');
  const recording = host.messages[0].detail ?? '';
  assert.match(recording, /more than the window holds/);
  assert.doesNotMatch(recording, /next request|automatic compaction/);
  assert.match(
    recording,
    /A recording sends no request, so nothing compacts them again until you run Compact Conversation/,
  );
  // A working session's next request does ask.
  await restoreRun({ ...target([]), budget: () => over }, 'collapse1');
  assert.match(
    host.messages[1].detail ?? '',
    /more than the window holds: the next request will ask you before compacting them again/,
  );
});

test('a later run built on the restored one is named as the history shows it: one compaction of its steps', async () => {
  resetVscodeFake();
  host.user.message = () => undefined;
  // The service undoes both steps of the later run with the one asked for.
  const built = {
    ...target([]),
    plan: (ids: readonly string[]) => ({ undone: [...ids, 'summary1', 'collapse1'], tokens: 11_000 }),
  };
  await restoreRun(built, 'auto1');
  assert.match(host.messages[0].detail ?? '', /, with 1 later compaction \(2 steps\) built on it:/);
});
