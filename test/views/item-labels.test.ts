import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pinLabel, pinOffered, READ_ONLY_NOTICE } from '../../src/webview/shared/item-labels';

test('pin buttons are named by action and author', () => {
  assert.equal(pinLabel('user', false), 'Pin message from user');
  assert.equal(pinLabel('assistant', true), 'Unpin message from agent');
  assert.equal(pinLabel('tool-result', false), 'Pin message from tool result');
});

test('a recording offers no pin buttons, and its read-only notice says why and how to pin', () => {
  assert.equal(pinOffered({ kind: 'user' }, true), false);
  assert.equal(pinOffered({ kind: 'user' }, false), true);
  assert.match(READ_ONLY_NOTICE, /Pins apply to working sessions/);
  assert.match(READ_ONLY_NOTICE, /Continue in a new task to pin/);
});
