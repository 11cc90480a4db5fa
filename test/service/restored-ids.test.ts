/**
 * The protection of restored messages is rebuilt from the stored checkpoint history: what a restore
 * brought back stays protected after a reload, until a manual compaction or a later checkpoint
 * that replaced those messages again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { protectedRestoredIds } from '../../src/service/session/restored-ids';
import type { CheckpointRecord } from '../../src/service/records';

function cp(
  id: string,
  time: string,
  trigger: 'auto' | 'manual',
  replacedIds: string[],
  restoredAt?: string,
): CheckpointRecord {
  return {
    id,
    time,
    trigger,
    strategy: 'extractive',
    replacedIds,
    replaced: [],
    inserted: [],
    summary: '',
    tokensBefore: 0,
    tokensAfter: 0,
    ...(restoredAt ? { restored: true, restoredAt } : {}),
  };
}

test('messages a restore brought back stay protected when the history is read again', () => {
  const ids = protectedRestoredIds([cp('c1', '2026-01-01T10:00:00Z', 'auto', ['e1', 'e2'], '2026-01-01T11:00:00Z')]);
  assert.deepEqual([...ids].sort(), ['e1', 'e2']);
});

test('a manual compaction after the restore ends the protection', () => {
  const ids = protectedRestoredIds([
    cp('c1', '2026-01-01T10:00:00Z', 'auto', ['e1', 'e2'], '2026-01-01T11:00:00Z'),
    cp('c2', '2026-01-01T12:00:00Z', 'manual', ['e9']),
  ]);
  assert.equal(ids.size, 0);
});

test('messages compacted again after the restore (the user agreed) are no longer protected; the rest are', () => {
  const ids = protectedRestoredIds([
    cp('c1', '2026-01-01T10:00:00Z', 'auto', ['e1', 'e2'], '2026-01-01T11:00:00Z'),
    cp('c2', '2026-01-01T12:00:00Z', 'auto', ['e1']),
  ]);
  assert.deepEqual([...ids], ['e2']);
});

test('checkpoints that were never restored protect nothing, and compactions before a restore do not end it', () => {
  const ids = protectedRestoredIds([
    cp('c0', '2026-01-01T09:00:00Z', 'manual', ['e0']),
    cp('c1', '2026-01-01T10:00:00Z', 'auto', ['e1'], '2026-01-01T11:00:00Z'),
  ]);
  assert.deepEqual([...ids], ['e1']);
});
