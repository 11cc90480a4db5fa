import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pinLabel } from '../../src/views/item-labels';

test('pin buttons are named by action and author', () => {
  assert.equal(pinLabel('user', false), 'Pin message from user');
  assert.equal(pinLabel('assistant', true), 'Unpin message from agent');
  assert.equal(pinLabel('tool-result', false), 'Pin message from tool result');
});
