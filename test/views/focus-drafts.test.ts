/** The Compact focus text is kept per session and survives the webview's saved state. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FocusDrafts, MAX_FOCUS_DRAFTS } from '../../src/webview/shared/focus-drafts';

test('a focus typed for one session is offered for that session only', () => {
  const drafts = new FocusDrafts();
  drafts.set('a', 'the database migration');
  assert.equal(drafts.get('b'), '', 'another session starts empty');
  drafts.set('b', 'the flaky test');
  assert.equal(drafts.get('a'), 'the database migration', 'back in the first session');
  assert.equal(drafts.get('b'), 'the flaky test');
  assert.equal(drafts.get(undefined), '');
  // Compacting (or clearing the box) forgets that session's draft only.
  drafts.set('a', '');
  assert.equal(drafts.get('a'), '');
  assert.equal(drafts.get('b'), 'the flaky test');
});

test('drafts survive the saved state, malformed entries are skipped, and the oldest go past the limit', () => {
  const restored = new FocusDrafts({ ...new FocusDrafts().saved(), x: 'kept', y: 42, z: '' });
  assert.equal(restored.get('x'), 'kept');
  assert.deepEqual(restored.saved(), { x: 'kept' });
  assert.equal(new FocusDrafts('nonsense').get('x'), '');
  const many = new FocusDrafts();
  for (let i = 0; i <= MAX_FOCUS_DRAFTS; i++) many.set(`s${i}`, `focus ${i}`);
  assert.equal(many.get('s0'), '', 'the oldest is dropped');
  assert.equal(many.get(`s${MAX_FOCUS_DRAFTS}`), `focus ${MAX_FOCUS_DRAFTS}`);
  assert.equal(Object.keys(many.saved()).length, MAX_FOCUS_DRAFTS);
  // Typing again in an old session makes it recent.
  many.set('s1', 'again');
  many.set('new', 'newest');
  assert.equal(many.get('s1'), 'again');
  assert.equal(many.get('s2'), '');
});
