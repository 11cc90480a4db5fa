/**
 * The sidebar protocol's validator: every message the webview posts goes through
 * `parseWebviewMessage`; anything malformed must come back undefined (the host logs and drops it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseWebviewMessage } from '../../src/webview/shared/protocol';
import { MAX_FOCUS_CHARS, MAX_TASK_CHARS } from '../../src/webview/shared/input-limits';

test('well-formed messages of every kind are accepted as sent', () => {
  const valid = [
    { type: 'ready' },
    { type: 'runTask', text: 'fix the build' },
    { type: 'cancel' },
    { type: 'compact' },
    { type: 'compact', focus: 'the migration' },
    { type: 'openCheckpoint', id: 'cp-1' },
    { type: 'diffCheckpoint', id: 'cp-1' },
    { type: 'restoreCheckpoint', id: 'cp-1' },
    { type: 'undoRestore' },
    { type: 'copySummary', id: 'cp-1' },
    { type: 'approve', requestId: 'r1', approved: false },
    { type: 'applyPreview' },
    { type: 'discardPreview' },
    { type: 'importTranscript' },
    { type: 'setApiKey' },
    { type: 'resync' },
    { type: 'applyPreview', summaries: ['the edited summary', 'and the second'] },
    { type: 'editPreview', summaries: ['the summary as being typed'] },
    { type: 'openSettings' },
    { type: 'showLog' },
    { type: 'testConnection' },
    { type: 'loadEarlier' },
    { type: 'expandItem', id: 'e-1' },
    { type: 'compactionDetail', id: 'cp-1' },
    { type: 'togglePin', entryId: 'e-1' },
    { type: 'newSession' },
    { type: 'switchSession', id: 's-1' },
    { type: 'renameSession', id: 's-1' },
    { type: 'deleteSession', id: 's-1' },
    { type: 'continueInNewTask' },
  ];
  for (const message of valid) assert.deepEqual(parseWebviewMessage(message), message, JSON.stringify(message));
});

test('malformed messages are rejected', () => {
  const malformed: unknown[] = [
    undefined,
    null,
    'ready',
    42,
    [],
    {},
    { type: 'unknown' },
    { type: 'runTask' },
    { type: 'runTask', text: '' },
    { type: 'runTask', text: 'x'.repeat(MAX_TASK_CHARS + 1) },
    { type: 'runTask', text: 7 },
    { type: 'openCheckpoint' },
    { type: 'openCheckpoint', id: '' },
    { type: 'restoreCheckpoint', id: 'x'.repeat(201) },
    { type: 'approve', requestId: 'r1' },
    { type: 'approve', requestId: 'r1', approved: 'yes' },
    { type: 'compact', focus: 3 },
    { type: 'compact', focus: 'x'.repeat(MAX_FOCUS_CHARS + 1) },
    { type: 'applyPreview', summaries: [] },
    { type: 'applyPreview', summaries: 'one string' },
    { type: 'applyPreview', summaries: [5] },
    { type: 'editPreview' },
    { type: 'editPreview', summaries: [] },
    { type: 'togglePin' },
    { type: 'switchSession', id: '' },
    { type: 'expandItem' },
  ];
  for (const message of malformed)
    assert.equal(parseWebviewMessage(message), undefined, JSON.stringify(message)?.slice(0, 80));
});

test('fields outside the protocol are not passed on to the host', () => {
  const parsed = parseWebviewMessage({ type: 'openCheckpoint', id: 'cp-1', command: 'workbench.action.terminal.new' });
  assert.deepEqual(parsed, { type: 'openCheckpoint', id: 'cp-1' });
});
