/** Tab at the sidebar page's ends wraps to its other end, never to the webview frame's unseen stops. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tabWrapTarget } from '../../src/webview/shared/tab-wrap';

test('Tab past the last visible stop goes to the first; Shift+Tab before the first goes to the last', () => {
  assert.equal(tabWrapTarget(4, 5, false), 'first', 'after the checkpoint list: the session dropdown');
  assert.equal(tabWrapTarget(0, 5, true), 'last');
  assert.equal(tabWrapTarget(2, 5, false), undefined, 'in between: the browser order');
  assert.equal(tabWrapTarget(2, 5, true), undefined);
  assert.equal(tabWrapTarget(0, 1, false), 'first', 'a single stop keeps focus');
  assert.equal(tabWrapTarget(-1, 5, false), undefined, 'focus outside the stops: left alone');
  assert.equal(tabWrapTarget(0, 0, false), undefined);
});
