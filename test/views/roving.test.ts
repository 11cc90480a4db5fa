/** The transcript list's keys: one Tab stop, arrows and Home/End between rows, Enter into a row's buttons and Escape back. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { controlIndex, rovingAction, rovingIndex } from '../../src/webview/shared/roving';

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

test('Enter, F2 and Right go into a row, Escape comes back; Tab and typing keep their meaning', () => {
  for (const key of ['Enter', 'F2', 'ArrowRight']) assert.deepEqual(rovingAction(key, true), { enter: true }, key);
  for (const key of ['Enter', 'F2'])
    assert.equal(rovingAction(key, false), undefined, `${key} on a button keeps its meaning`);
  assert.deepEqual(rovingAction('Escape', false), { leave: true });
  assert.equal(rovingAction('Escape', true), undefined);
  assert.equal(rovingAction('ArrowLeft', true), undefined);
  assert.deepEqual(rovingAction('ArrowDown', false), { move: 'next' }, 'from a button, Down goes to the next row');
  assert.equal(rovingAction('Home', false), undefined, 'Home stays with a text field or button');
  assert.equal(rovingAction('Tab', true), undefined);
  assert.equal(rovingAction('a', true), undefined);
});

test('Right and Left move between the buttons of a row; Left from the first goes back to the row', () => {
  assert.deepEqual(rovingAction('ArrowRight', false), { control: 'next' });
  assert.deepEqual(rovingAction('ArrowLeft', false), { control: 'previous' });
  assert.equal(controlIndex('next', 0, 4), 1);
  assert.equal(controlIndex('next', 3, 4), 3, 'clamped at the last button');
  assert.equal(controlIndex('previous', 2, 4), 1);
  assert.equal(controlIndex('previous', 0, 4), -1, 'from the first button: the row itself');
});
