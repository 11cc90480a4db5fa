import { test } from 'node:test';
import assert from 'node:assert/strict';
import { announcementFor } from '../../src/webview/shared/announcements';
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
