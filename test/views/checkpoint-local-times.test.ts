/**
 * The checkpoint document shows every time in local time (the records keep ISO 8601 UTC): no
 * "…Z" timestamp beside a local one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import type * as Documents from '../../src/views/documents/checkpoint-documents';
import { loadWithVscodeShim } from '../support/vscode-shim';
import type { CheckpointRecord } from '../../src/service/records';

const { renderCheckpoint, checkpointTitle } = loadWithVscodeShim<typeof Documents>(
  path.join(__dirname, '../../src/views/documents/checkpoint-documents'),
);

const record = {
  id: 'cp-1',
  time: '2026-03-04T10:15:00.000Z',
  trigger: 'manual',
  strategy: 'summary',
  tokensBefore: 11_900,
  tokensAfter: 3_800,
  replacedIds: ['e1', 'e2'],
  replaced: [],
  inserted: [],
  summary: 'The parser was fixed.',
  dropped: 0,
  restored: true,
  restoredAt: '2026-03-04T11:20:00.000Z',
} as unknown as CheckpointRecord;

test('the checkpoint document gives the applied and restored times in local time', () => {
  const text = renderCheckpoint(record);
  assert.doesNotMatch(text, /\d{4}-\d\d-\d\dT\d\d:\d\d/, 'an ISO (UTC) timestamp is shown');
  assert.ok(text.includes(`| Time | ${new Date(record.time).toLocaleString()} |`), text);
  assert.ok(text.includes(`| Restored | ${new Date(record.restoredAt!).toLocaleString()} |`), text);
});

test('the tab title gives local time, trigger and tokens', () => {
  const local = new Date(record.time)
    .toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
    .replace(':', '.');
  assert.equal(checkpointTitle(record), `${local} manual 11.9k → 3.8k`);
});
