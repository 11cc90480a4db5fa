import { test } from 'node:test';
import assert from 'node:assert/strict';
import { announcementFor, announcementWithFigure, PREVIEW_WAITS } from '../../src/webview/shared/announcements';
import type { CompactionView, ViewState } from '../../src/webview/shared/protocol';
import { Store } from '../../src/webview/shared/view-store';

const describe = (c: CompactionView) => `compaction ${c.id}`;

function state(sessionId: string, s: ViewState['state'], compactions: CompactionView[] = []): ViewState {
  return {
    state: s,
    source: 'Agent session',
    budget: {} as ViewState['budget'],
    checkpoints: [],
    compactions,
    transcript: [],
    earlier: 0,
    limit: 500,
    approvals: [],
    hasApiKey: true,
    sessions: [],
    sessionId,
    readOnly: false,
  };
}
const compaction = { id: 'c1' } as CompactionView;

test('the status line is cleared on load, on session switch and when the shown session is deleted', () => {
  const store = new Store();
  const load = announcementFor(
    store.apply({ type: 'snapshot', seq: 1, state: state('a', 'idle', [compaction]) }),
    false,
    describe,
  );
  assert.deepEqual(load, { clear: true, texts: [] });
  // Same session: a new compaction is announced, nothing cleared.
  const news = announcementFor(
    store.apply({ type: 'delta', seq: 2, delta: { compactions: [compaction, { id: 'c2' } as CompactionView] } }),
    false,
    describe,
  );
  assert.deepEqual(news, { clear: false, texts: ['compaction c2'] });
  // Switch (or the shown session deleted, so the host shows another one): cleared, the other session's compactions are no news.
  const moved = announcementFor(
    store.apply({
      type: 'delta',
      seq: 3,
      delta: { sessionId: 'b', compactions: [{ id: 'c9' } as CompactionView], state: 'streaming' },
    }),
    false,
    describe,
  );
  assert.deepEqual(moved, { clear: true, texts: [] });
  const snap = announcementFor(
    store.apply({ type: 'snapshot', seq: 4, state: state('c', 'idle', [compaction]) }),
    false,
    describe,
  );
  assert.deepEqual(snap, { clear: true, texts: [] });
});

test('the end of a cancelled run is announced as cancelled, a normal end as finished', () => {
  const store = new Store();
  store.apply({ type: 'snapshot', seq: 1, state: state('a', 'idle') });
  assert.deepEqual(
    announcementFor(store.apply({ type: 'delta', seq: 2, delta: { state: 'streaming' } }), false, describe).texts,
    ['The agent is working.'],
  );
  assert.deepEqual(
    announcementFor(store.apply({ type: 'delta', seq: 3, delta: { state: 'idle' } }), true, describe).texts,
    ['The agent was cancelled.'],
  );
  store.apply({ type: 'delta', seq: 4, delta: { state: 'streaming' } });
  assert.deepEqual(
    announcementFor(store.apply({ type: 'delta', seq: 5, delta: { state: 'idle' } }), false, describe).texts,
    ['The agent finished.'],
  );
});

test('a compaction run on its own ends as a compaction, never as "the agent finished"', () => {
  const store = new Store();
  store.apply({ type: 'snapshot', seq: 1, state: state('a', 'idle') });
  assert.deepEqual(
    announcementFor(store.apply({ type: 'delta', seq: 2, delta: { state: 'compacting' } }), false, describe).texts,
    ['Compacting the context.'],
  );
  // Its new compaction is the news; no word about an agent.
  assert.deepEqual(
    announcementFor(
      store.apply({ type: 'delta', seq: 3, delta: { state: 'idle', compactions: [compaction] } }),
      false,
      describe,
    ).texts,
    ['compaction c1'],
  );
  store.apply({ type: 'delta', seq: 4, delta: { state: 'compacting' } });
  assert.deepEqual(
    announcementFor(store.apply({ type: 'delta', seq: 5, delta: { state: 'error' } }), false, describe).texts,
    ['The compaction stopped with an error.'],
  );
  store.apply({ type: 'delta', seq: 6, delta: { state: 'compacting' } });
  assert.deepEqual(
    announcementFor(store.apply({ type: 'delta', seq: 7, delta: { state: 'idle' } }), true, describe).texts,
    ['The compaction was cancelled.'],
  );
  // A compaction inside an agent's run: the run's end is still the agent's.
  store.apply({ type: 'delta', seq: 8, delta: { state: 'streaming' } });
  store.apply({ type: 'delta', seq: 9, delta: { state: 'compacting' } });
  store.apply({ type: 'delta', seq: 10, delta: { state: 'streaming' } });
  assert.deepEqual(
    announcementFor(store.apply({ type: 'delta', seq: 11, delta: { state: 'idle' } }), false, describe).texts,
    ['The agent finished.'],
  );
});

test('a restored checkpoint and an undone restore are announced, so the status line never keeps the old figures', () => {
  const store = new Store();
  store.apply({ type: 'snapshot', seq: 1, state: state('a', 'idle', [compaction]) });
  const restored = announcementFor(
    store.apply({ type: 'delta', seq: 2, delta: { compactions: [{ ...compaction, restored: true }] } }),
    false,
    describe,
    (c, undone) => `${undone ? 'undone' : 'restored'} ${c.id}`,
  );
  assert.deepEqual(restored.texts, ['restored c1']);
  const undone = announcementFor(
    store.apply({ type: 'delta', seq: 3, delta: { compactions: [compaction] } }),
    false,
    describe,
    (c, u) => `${u ? 'undone' : 'restored'} ${c.id}`,
  );
  assert.deepEqual(undone.texts, ['undone c1']);
  // The same list again: nothing to say.
  assert.deepEqual(
    announcementFor(store.apply({ type: 'delta', seq: 4, delta: { compactions: [compaction] } }), false, describe)
      .texts,
    [],
  );
});

test('a compaction that ends with a proposed summary says it waits for review, never "The compaction ended."', () => {
  const preview = { summaries: [] } as unknown as NonNullable<ViewState['preview']>;
  const store = new Store();
  store.apply({ type: 'snapshot', seq: 1, state: state('a', 'idle') });
  store.apply({ type: 'delta', seq: 2, delta: { state: 'compacting' } });
  // The preview arrives with the end of the run.
  assert.deepEqual(
    announcementFor(store.apply({ type: 'delta', seq: 3, delta: { state: 'idle', preview } }), false, describe).texts,
    [PREVIEW_WAITS],
  );
  store.apply({ type: 'delta', seq: 4, delta: { preview: null } });
  // The preview arrives after the run's end: the end is not told as over, and the preview is announced.
  store.apply({ type: 'delta', seq: 5, delta: { state: 'compacting' } });
  store.apply({ type: 'delta', seq: 6, delta: { state: 'idle', preview } });
  store.apply({ type: 'delta', seq: 7, delta: { preview: null } });
  store.apply({ type: 'delta', seq: 8, delta: { state: 'compacting' } });
  assert.deepEqual(announcementFor(store.apply({ type: 'delta', seq: 9, delta: { preview } }), false, describe).texts, [
    PREVIEW_WAITS,
  ]);
  // Without a preview the run's end is still told as it was.
  store.apply({ type: 'delta', seq: 10, delta: { preview: null } });
  assert.deepEqual(
    announcementFor(store.apply({ type: 'delta', seq: 11, delta: { state: 'idle' } }), false, describe).texts,
    ['The compaction ended.'],
  );
});

test('a status sentence stating the tokens now goes when the gauge shows another figure or window', () => {
  const store = new Store();
  const budget = (used: number, inputBudget = 100_000) => ({ used, inputBudget }) as ViewState['budget'];
  const said = (c: CompactionView, used: number | undefined) => `compaction ${c.id}. ${used} tokens now.`;
  const restored = (_c: CompactionView, undone: boolean, used: number | undefined) => `restored ${undone} ${used}`;
  const step = (message: Parameters<Store['apply']>[0], stated?: ReturnType<typeof announcementWithFigure>['stated']) =>
    announcementWithFigure(store.apply(message), false, store.view?.budget, stated, said, restored);

  const load = step({ type: 'snapshot', seq: 1, state: { ...state('a', 'idle'), budget: budget(365_000) } });
  assert.equal(load.stated, undefined);
  const compacted = step({
    type: 'delta',
    seq: 2,
    delta: { compactions: [compaction], budget: budget(30_000) },
  });
  assert.deepEqual(compacted.texts, ['compaction c1. 30000 tokens now.'], "the gauge's figure after the compaction");
  assert.deepEqual(compacted.stated, { used: '30k', inputBudget: 100_000 });
  // Nothing the sentence states changed: it stays.
  const same = step({ type: 'delta', seq: 3, delta: { budget: budget(30_100) } }, compacted.stated);
  assert.deepEqual(same, { clear: false, texts: [], stated: compacted.stated });
  // The context grew (a new task continued in it): the figure is no longer true.
  const grown = step({ type: 'delta', seq: 4, delta: { budget: budget(33_000) } }, same.stated);
  assert.deepEqual(grown, { clear: true, texts: [], stated: undefined });
  // Another window, same tokens: "over budget" or not changed, so the sentence goes too.
  const again = step({ type: 'delta', seq: 5, delta: { compactions: [compaction, { id: 'c2' } as CompactionView] } });
  assert.deepEqual(again.stated, { used: '33k', inputBudget: 100_000 });
  const window = step({ type: 'delta', seq: 6, delta: { budget: budget(33_000, 6_000) } }, again.stated);
  assert.deepEqual(window, { clear: true, texts: [], stated: undefined });
  // A sentence without a figure replaces one with it: nothing left to go stale.
  const finished = step({ type: 'delta', seq: 7, delta: { state: 'streaming' } }, { used: '33k', inputBudget: 6_000 });
  assert.deepEqual(finished, { clear: false, texts: ['The agent is working.'], stated: undefined });
});
