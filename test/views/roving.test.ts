/** The transcript list's keys: one Tab stop, arrows and Home/End between rows, Enter into a row's buttons and Escape back. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rovingAction, rovingIndex } from '../../src/views/roving';

test('Up/Down/Home/End move between rows, clamped at both ends', () => {
  assert.deepEqual(rovingAction('ArrowDown', true), { move: 'next' });
  assert.deepEqual(rovingAction('ArrowUp', true), { move: 'previous' });
  assert.deepEqual(rovingAction('Home', true), { move: 'first' });
  assert.deepEqual(rovingAction('End', true), { move: 'last' });
  assert.equal(rovingIndex('next', 3, 10), 4);
  assert.equal(rovingIndex('next', 9, 10), 9);
  assert.equal(rovingIndex('previous', 0, 10), 0);
  assert.equal(rovingIndex('previous', 5, 10), 4);
  assert.equal(rovingIndex('first', 7, 10), 0);
  assert.equal(rovingIndex('last', 0, 10), 9);
  assert.equal(rovingIndex('previous', 12, 10), 9, 'a row gone from the end: the last one before it');
  assert.equal(rovingIndex('next', 0, 0), -1);
});

test('Enter, F2 and Right go into a row, Escape and Left come back; Tab and typing keep their meaning', () => {
  for (const key of ['Enter', 'F2', 'ArrowRight']) {
    assert.deepEqual(rovingAction(key, true), { enter: true }, key);
    assert.equal(rovingAction(key, false), undefined, `${key} on a button keeps its meaning`);
  }
  for (const key of ['Escape', 'ArrowLeft']) {
    assert.deepEqual(rovingAction(key, false), { leave: true }, key);
    assert.equal(rovingAction(key, true), undefined);
  }
  assert.deepEqual(rovingAction('ArrowDown', false), { move: 'next' }, 'from a button, Down goes to the next row');
  assert.equal(rovingAction('Home', false), undefined, 'Home stays with a text field or button');
  assert.equal(rovingAction('Tab', true), undefined);
  assert.equal(rovingAction('a', true), undefined);
});
