/**
 * The service's visible state around problems: a problem while no task runs is the `error` state
 * until the next change; one met while a task runs (a failed save does not stop the task) keeps the
 * task's state with the problem as its detail, and becomes the `error` state once the task settles.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { ServiceStatus } from '../../src/service/status';
import type { StateChange } from '../../src/service/records';

function status(): { status: ServiceStatus; seen: StateChange[] } {
  const seen: StateChange[] = [];
  return {
    status: new ServiceStatus(
      (c) => seen.push(c),
      () => true,
    ),
    seen,
  };
}

test('with no task running, a problem is the error state until the next change', () => {
  const { status: s, seen } = status();
  s.problem('could not save the session state: the disk is full');
  assert.deepEqual(s.current, { state: 'error', detail: 'could not save the session state: the disk is full' });
  s.agent('streaming');
  assert.equal(s.current.state, 'streaming');
  assert.deepEqual(
    seen.map((c) => c.state),
    ['error', 'streaming'],
  );
});

test('a problem during a task keeps the task state, with the problem as detail, and is the error state once the task settles', () => {
  const { status: s, seen } = status();
  s.task(true);
  s.agent('streaming');
  s.problem('could not save the session state: the disk is full');
  assert.deepEqual(s.current, { state: 'streaming', detail: 'could not save the session state: the disk is full' });
  s.agent('running-tool', 'read_file');
  s.agent('idle');
  assert.ok(
    seen.every((c) => c.state !== 'error' && c.state !== 'idle'),
    `never error nor idle while the task runs: ${seen.map((c) => c.state).join(', ')}`,
  );
  s.task(false);
  assert.deepEqual(s.current, { state: 'error', detail: 'could not save the session state: the disk is full' });
  s.agent('idle');
  s.task(true);
  s.task(false);
  assert.equal(s.current.state, 'idle', 'shown once: the next task does not bring it back');
});
