/**
 * The sidebar's tool-result lines take success from the live tool event, else from the flag stored
 * with the result (`EntryMeta.toolOk`), and read the text only for recordings that store nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { itemsForEntry, toolCallLineId, type ToolNames } from '../../src/views/sidebar/transcript-items';
import type { Entry } from '../../src/compaction/types';

const call: Entry = {
  id: 'a1',
  message: {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'run_command', arguments: '{}' } }],
  },
};
const result = (content: string, toolOk?: boolean): Entry => ({
  id: 'r1',
  message: { role: 'tool', tool_call_id: 'c1', content },
  ...(toolOk === undefined ? {} : { meta: { toolOk } }),
});

function okOf(entry: Entry, outcomes = new Map<string, boolean>()): boolean | undefined {
  const names: ToolNames = new Map();
  itemsForEntry(call, names, { running: new Set(), outcomes });
  const [line] = itemsForEntry(entry, names, { running: new Set(), outcomes });
  return line?.kind === 'tool-result' ? line.ok : undefined;
}

test('the stored flag wins over the text', () => {
  assert.equal(okOf(result('Error: none found, all good', true)), true);
  assert.equal(okOf(result('3 tests passed', false)), false);
});

test('the live outcome of this session wins over the stored flag', () => {
  assert.equal(okOf(result('done', true), new Map([[toolCallLineId('a1', 'c1'), false]])), false);
});

test('without a flag (a recording that stores none) the text decides', () => {
  assert.equal(okOf(result('Error: file not found')), false);
  assert.equal(okOf(result('file contents')), true);
});
