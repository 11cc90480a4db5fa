/**
 * keepMessageActions(false), as a one-shot process sets it: the actions read are the same, and they
 * are read afresh rather than answered from what an earlier reading kept per message.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { itemsFromEntries } from '../../src/compaction/context';
import { generateSession } from '../../bench/corpus';
import { actionsOf, keepMessageActions } from '../../src/compaction/summary/ledger/actions';

test('actions without kept per-message actions equal those with them, and are read afresh', () => {
  const items = itemsFromEntries(generateSession(11, 200 * 300).slice(0, 200));
  try {
    keepMessageActions(true);
    const first = actionsOf([...items]);
    assert.ok(first.length > 0, 'the session has actions');
    const kept = actionsOf([...items]);
    // With the memo on, a second reading hands back the very action objects of the first.
    assert.equal(kept[0], first[0]);
    keepMessageActions(false);
    const fresh = actionsOf([...items]);
    assert.deepEqual(fresh, first);
    assert.notEqual(fresh[0], first[0]);
    assert.notEqual(actionsOf([...items])[0], fresh[0]);
  } finally {
    keepMessageActions(true);
  }
});
