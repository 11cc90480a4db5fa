import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConversationState } from '../../src/service/session/conversation-state';
import type { ContextItem, Entry } from '../../src/compaction/types';
import type { CompactionResult } from '../../src/compaction/outcome';

const entry = (id: string, role: 'user' | 'assistant', content: string): Entry => ({ id, message: { role, content } });
const summaryOf = (ids: string[], checkpointId: string): ContextItem => ({
  id: `s-${checkpointId}`,
  kind: 'summary',
  message: { role: 'user', content: `summary of ${ids.join(',')}` },
  covers: ids,
  checkpointId,
});

/** A compaction that replaces the first `n` items of `state` by one summary. */
function compactFirst(state: ConversationState, n: number, checkpointId: string): CompactionResult {
  const replaced = state.items.slice(0, n);
  const summary = summaryOf(
    replaced.flatMap((i) => i.covers),
    checkpointId,
  );
  return {
    status: { kind: 'applied', tokensBefore: 100, tokensAfter: 50, checkpoints: 1, steps: [] },
    tokensBefore: 100,
    tokensAfter: 50,
    checkpoints: [
      {
        id: checkpointId,
        trigger: 'manual',
        strategy: 'summary',
        replaced: [...replaced],
        inserted: [summary],
        replacedIds: replaced.flatMap((i) => i.covers),
        summary: summary.message.content as string,
        tokensBefore: 100,
        tokensAfter: 50,
      } as CompactionResult['checkpoints'][number],
    ],
    context: [summary, ...state.items.slice(n)],
  };
}

function fresh(): ConversationState {
  const state = new ConversationState();
  for (const [i, role] of (['user', 'assistant', 'user', 'assistant'] as const).entries())
    state.append(entry(state.newEntryId(), role, `m${i}`));
  return state;
}

test('appends go to the transcript and the end of the active context, with fresh ids, without a rewrite', () => {
  const state = fresh();
  assert.deepEqual(
    state.entries.map((e) => e.id),
    ['e000001', 'e000002', 'e000003', 'e000004'],
  );
  assert.deepEqual(
    state.items.map((i) => [i.id, i.kind]),
    state.entries.map((e) => [e.id, 'raw']),
  );
  assert.equal(state.version, 0);
});

test('a planned commit changes nothing until applied; applying stamps the checkpoint and bumps the version', () => {
  const state = fresh();
  const { next, records } = state.planCommit(compactFirst(state, 2, 'c1'), '2026-01-01T00:00:00.000Z');
  assert.equal(state.items.length, 4, 'planning does not touch the state');
  assert.equal(state.checkpoints.length, 0);
  state.apply(next);
  assert.equal(state.version, 1);
  assert.deepEqual(
    state.items.map((i) => i.id),
    ['s-c1', 'e000003', 'e000004'],
  );
  assert.deepEqual(
    records.map((r) => [r.id, r.time]),
    [['c1', '2026-01-01T00:00:00.000Z']],
  );
  assert.deepEqual(state.checkpoints, records);
});

test('the messages of a request follow appends, commits and restores, each call a fresh array', () => {
  const state = fresh();
  const contents = () => state.messages().map((m) => m.content);
  const first = state.messages();
  assert.deepEqual(contents(), ['m0', 'm1', 'm2', 'm3']);
  state.append(entry(state.newEntryId(), 'user', 'm4'));
  assert.deepEqual(contents(), ['m0', 'm1', 'm2', 'm3', 'm4']);
  assert.equal(first.length, 4, 'an array handed out earlier does not change');
  const { next } = state.planCommit(compactFirst(state, 2, 'c1'), '2026-01-01T00:00:00.000Z');
  state.apply(next);
  assert.deepEqual(contents(), ['summary of e000001,e000002', 'm2', 'm3', 'm4']);
  state.append(entry(state.newEntryId(), 'assistant', 'm5'));
  assert.deepEqual(contents(), ['summary of e000001,e000002', 'm2', 'm3', 'm4', 'm5']);
  state.apply(state.planRestore('c1', '2026-01-01T00:01:00.000Z').next);
  assert.deepEqual(contents(), ['m0', 'm1', 'm2', 'm3', 'm4', 'm5']);
  assert.deepEqual(
    state.messages(),
    state.items.map((i) => i.message),
  );
});

test('restore brings the replaced messages back, marks the checkpoint, and refuses a second restore', () => {
  const state = fresh();
  state.apply(state.planCommit(compactFirst(state, 2, 'c1'), 't1').next);
  const { next, event } = state.planRestore('c1', 't2');
  state.apply(next);
  assert.deepEqual(event, { id: 'c1', undone: ['c1'] });
  assert.deepEqual(
    state.items.map((i) => i.id),
    ['e000001', 'e000002', 'e000003', 'e000004'],
  );
  assert.equal(state.checkpoints[0].restored, true);
  assert.equal(state.checkpoints[0].restoredAt, 't2');
  assert.throws(() => state.planRestore('c1', 't3'), /already restored/);
  assert.throws(() => state.planRestore('nope', 't3'), /no checkpoint with id nope/);
});

test('restoring a checkpoint whose summary a later one consumed undoes the later one first', () => {
  const state = fresh();
  state.apply(state.planCommit(compactFirst(state, 2, 'c1'), 't1').next);
  state.apply(state.planCommit(compactFirst(state, 2, 'c2'), 't2').next);
  assert.deepEqual(
    state.items.map((i) => i.id),
    ['s-c2', 'e000004'],
  );
  const { next, event } = state.planRestore('c1', 't3');
  state.apply(next);
  assert.deepEqual(event.undone, ['c2', 'c1']);
  assert.deepEqual(
    state.items.map((i) => i.id),
    ['e000001', 'e000002', 'e000003', 'e000004'],
  );
});

test('pins mark raw items, survive a commit, and are refused for a summarized message', () => {
  const state = fresh();
  state.apply(state.planPin('e000003', true));
  assert.deepEqual([...state.pinned], ['e000003']);
  assert.equal(state.items.find((i) => i.id === 'e000003')?.pinned, true);
  state.apply(state.planCommit(compactFirst(state, 2, 'c1'), 't1').next);
  assert.equal(state.items.find((i) => i.id === 'e000003')?.pinned, true, 'the pin is kept on the committed context');
  assert.throws(() => state.planPin('e000001', true), /summarized by checkpoint c1; restore it first/);
  assert.throws(() => state.planPin('e999999', true), /no message e999999/);
  state.apply(state.planPin('e000003', false));
  assert.equal(state.items.find((i) => i.id === 'e000003')?.pinned, undefined);
});

test('adopting saved state keeps unaccounted entries raw and continues ids past the loaded ones', () => {
  const state = new ConversationState();
  const entries = [entry('e000001', 'user', 'a'), entry('e000002', 'assistant', 'b'), entry('e000003', 'user', 'c')];
  // The saved context lost the newest entry (a crash between append and state write).
  state.adopt(entries, {
    context: [
      { id: 'e000001', kind: 'raw', message: entries[0].message, covers: ['e000001'] },
      { id: 'e000002', kind: 'raw', message: entries[1].message, covers: ['e000002'] },
    ],
    checkpoints: [],
    pinned: ['e000002'],
  });
  assert.deepEqual(
    state.items.map((i) => [i.id, i.pinned === true]),
    [
      ['e000001', false],
      ['e000002', true],
      ['e000003', false],
    ],
  );
  assert.equal(state.newEntryId(), 'e000004');
  assert.equal(state.entryCountAt(state.items.slice(0, 2)), 2);
  assert.ok(state.version > 0, 'adopting counts as a rewrite');
});

test('a restore can be undone: the compacted context comes back, with the messages appended since', () => {
  const state = fresh();
  state.apply(state.planCommit(compactFirst(state, 2, 'c1'), 't1').next);
  const compacted = state.items.map((i) => i.id);
  assert.equal(state.redoable, undefined, 'nothing to undo before a restore');
  const restore = state.planRestore('c1', 't2');
  state.apply(restore.next);
  assert.deepEqual(state.redoable, { id: 'c1', undone: ['c1'] });
  state.append(entry(state.newEntryId(), 'user', 'after the restore'));
  const { next, event } = state.planRedo();
  assert.equal(state.items.length, 5, 'planning does not touch the state');
  state.apply(next);
  assert.deepEqual(event, { id: 'c1', undone: ['c1'] });
  assert.deepEqual(
    state.items.map((i) => i.id),
    [...compacted, 'e000005'],
  );
  assert.equal(state.checkpoints[0].restored, undefined);
  assert.equal(state.checkpoints[0].restoredAt, undefined);
  assert.equal(state.redoable, undefined, 'the undo is used up');
  assert.throws(() => state.planRedo(), /no restore to undo/);
  // The checkpoint is in force again: it can be restored once more.
  assert.doesNotThrow(() => state.planRestore('c1', 't3'));
});

test('a restore can no longer be undone once the context was rewritten after it', () => {
  const state = fresh();
  state.apply(state.planCommit(compactFirst(state, 2, 'c1'), 't1').next);
  const restore = state.planRestore('c1', 't2');
  state.apply(restore.next);
  state.apply(state.planPin('e000003', true));
  assert.equal(state.redoable, undefined);
  assert.throws(() => state.planRedo(), /the context changed since the last restore/);
});

test('the steps of one run are restored together, as one restore that one undo takes back', () => {
  const state = fresh();
  state.apply(state.planCommit(compactFirst(state, 2, 'c1'), 't1').next);
  // A second step of the same run over other messages (it does not consume c1's summary).
  const rest = state.items.slice(1);
  const second = compactFirst(state, 0, 'c2');
  const summary = summaryOf(
    rest.flatMap((i) => i.covers),
    'c2',
  );
  second.checkpoints[0] = {
    ...second.checkpoints[0],
    replaced: [...rest],
    inserted: [summary],
    replacedIds: rest.flatMap((i) => i.covers),
  };
  second.context = [state.items[0], summary];
  state.apply(state.planCommit(second, 't1').next);
  assert.deepEqual(
    state.items.map((i) => i.id),
    ['s-c1', 's-c2'],
  );
  // The first step alone leaves the second in force: not "before the run".
  assert.deepEqual(state.planRestore('c1', 't2').event.undone, ['c1']);
  const { next, event } = state.planRestore(['c1', 'c2'], 't2');
  state.apply(next);
  assert.deepEqual(event, { id: 'c1', undone: ['c1', 'c2'] });
  assert.deepEqual(
    state.items.map((i) => i.id),
    ['e000001', 'e000002', 'e000003', 'e000004'],
  );
  assert.ok(state.checkpoints.every((c) => c.restored));
  state.apply(state.planRedo().next);
  assert.deepEqual(
    state.items.map((i) => i.id),
    ['s-c1', 's-c2'],
    'one undo brings the whole run back',
  );
  assert.ok(state.checkpoints.every((c) => !c.restored));
});

/** A checkpoint of `state` replacing `replaced` (items as they stand) by one summary. */
function step(replaced: ContextItem[], checkpointId: string): CompactionResult['checkpoints'][number] {
  const summary = summaryOf(
    replaced.flatMap((i) => i.covers),
    checkpointId,
  );
  return {
    id: checkpointId,
    trigger: 'manual',
    strategy: 'summary',
    replaced,
    inserted: [summary],
    replacedIds: replaced.flatMap((i) => i.covers),
    summary: summary.message.content as string,
    tokensBefore: 100,
    tokensAfter: 50,
  } as CompactionResult['checkpoints'][number];
}

test('restoring a checkpoint undoes every step of a later run built on its summary, also the steps that did not consume it', () => {
  const state = fresh();
  state.apply(state.planCommit(compactFirst(state, 2, 'a'), 't1').next);
  const [summaryA, third, fourth] = state.items;
  // A later run of two steps: the newest message alone, then every summary again (A's among them).
  const x = step([fourth], 'x');
  const y = step([summaryA, third, x.inserted[0]], 'y');
  const run: CompactionResult = {
    status: { kind: 'applied', tokensBefore: 100, tokensAfter: 50, checkpoints: 2, steps: [] },
    tokensBefore: 100,
    tokensAfter: 50,
    checkpoints: [x, y],
    context: [...y.inserted],
  };
  state.apply(state.planCommit(run, 't2').next);
  // A run committed later, not built on A: it stays in force.
  state.append(entry(state.newEntryId(), 'user', 'm4'));
  state.append(entry(state.newEntryId(), 'assistant', 'm5'));
  const later = compactFirst(state, 0, 'z');
  const tail = state.items.slice(1);
  later.checkpoints[0] = step(tail, 'z');
  later.context = [state.items[0], ...later.checkpoints[0].inserted];
  state.apply(state.planCommit(later, 't3').next);
  assert.deepEqual(
    state.items.map((i) => i.id),
    ['s-y', 's-z'],
  );

  const { next, event } = state.planRestore('a', 't4');
  state.apply(next);
  assert.deepEqual([...event.undone].sort(), ['a', 'x', 'y']);
  assert.deepEqual(
    state.items.map((i) => i.id),
    ['e000001', 'e000002', 'e000003', 'e000004', 's-z'],
    'the context is as before A, with the unrelated later run still in force',
  );
  assert.deepEqual(
    state.checkpoints.map((c) => [c.id, Boolean(c.restored)]),
    [
      ['a', true],
      ['x', true],
      ['y', true],
      ['z', false],
    ],
  );
  state.apply(state.planRedo().next);
  assert.deepEqual(
    state.items.map((i) => i.id),
    ['s-y', 's-z'],
    'one undo brings both runs back',
  );
});
