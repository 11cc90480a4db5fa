/** Tool results of the agent carry the tool host's success flag, stored with them and read back after a restart. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { text, toolCalls } from '../../src/demo/modelserver/replies';
import type { Responder } from '../../src/demo/modelserver/wire';
import { serviceFixture } from './fixtures';

const responder: Responder = (_body, n) =>
  n === 1
    ? toolCalls([
        { id: 'ok1', name: 'read_file', arguments: JSON.stringify({ path: 'here.txt' }) },
        { id: 'bad1', name: 'read_file', arguments: JSON.stringify({ path: 'missing.txt' }) },
      ])
    : text('Read what there was.');

test('a failed and a successful tool call store their flags; the flags survive reopening the session', async (t) => {
  const fx = await serviceFixture(responder, { files: { 'here.txt': 'hello' } });
  t.after(fx.cleanup);
  const finished: Array<[string, boolean]> = [];
  fx.service.onDidFinishToolCall((e) => finished.push([e.callId, e.ok]));
  await fx.service.runTask('Read both files.');
  const flags = (entries: ReturnType<typeof fx.service.getTranscript>['entries']) =>
    entries
      .filter((e) => e.message.role === 'tool')
      .map((e) => [e.message.role === 'tool' ? e.message.tool_call_id : '', e.meta?.toolOk]);
  assert.deepEqual(flags(fx.service.getTranscript().entries), [
    ['ok1', true],
    ['bad1', false],
  ]);
  assert.deepEqual(finished, [
    ['ok1', true],
    ['bad1', false],
  ]);
  const reopened = await fx.reopen();
  assert.deepEqual(flags(reopened.getTranscript().entries), [
    ['ok1', true],
    ['bad1', false],
  ]);
});
