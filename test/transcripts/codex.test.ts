import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { importTranscriptText } from '../../src/transcripts';
import { assertWellFormed, calls, transcriptError } from './helpers';

const rec = (type: string, payload: Record<string, unknown>) =>
  JSON.stringify({ timestamp: '2025-11-17T21:30:00.000Z', type, payload });
const item = (payload: Record<string, unknown>) => rec('response_item', payload);
const tokens = (input: number, total: number) =>
  rec('event_msg', {
    type: 'token_count',
    info: {
      total_token_usage: { total_tokens: total },
      last_token_usage: { input_tokens: input },
      model_context_window: 258400,
    },
  });

test('codex: calls, outputs, reasoning, token counts and parallel calls', async () => {
  const text = [
    rec('session_meta', { id: 's', cwd: '/w', cli_version: '0.58.0' }),
    item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix it' }] }),
    rec('turn_context', { model: 'gpt-5.1-codex' }),
    tokens(100, 110),
    item({ type: 'reasoning', summary: [], encrypted_content: 'gAAA' }),
    item({ type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: 'call_1' }),
    item({ type: 'function_call', name: 'shell', arguments: '{"command":["pwd"]}', call_id: 'call_2' }),
    item({ type: 'function_call_output', call_id: 'call_1', output: '{"output":"a\\n","metadata":{"exit_code":0}}' }),
    item({ type: 'function_call_output', call_id: 'call_2', output: '/w' }),
    tokens(100, 110),
    tokens(300, 420),
    item({
      type: 'custom_tool_call',
      name: 'apply_patch',
      input: '*** Begin Patch',
      call_id: 'call_3',
      status: 'completed',
    }),
    item({ type: 'custom_tool_call_output', call_id: 'call_3', output: [{ type: 'input_text', text: 'Success' }] }),
    item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Fixed.' }] }),
    item({ type: 'ghost_snapshot', ghost_commit: {} }),
  ].join('\n');
  const t = await importTranscriptText(text, 'rollout.jsonl');
  assert.equal(t.format, 'codex');
  assertWellFormed(t);
  assert.deepEqual(
    t.entries.map((e) => e.message.role),
    ['user', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'assistant'],
  );
  assert.deepEqual(calls(t.entries[1].message), [
    ['call_1', 'shell', '{"command":["ls"]}'],
    ['call_2', 'shell', '{"command":["pwd"]}'],
  ]);
  assert.equal(t.entries[1].meta?.reportedPromptTokens, 100);
  assert.equal(t.entries[1].meta?.model, 'gpt-5.1-codex');
  assert.equal(t.entries[2].message.content, '{"output":"a\\n","metadata":{"exit_code":0}}', 'output kept verbatim');
  assert.deepEqual(calls(t.entries[4].message), [['call_3', 'apply_patch', '{"input":"*** Begin Patch"}']]);
  assert.equal(t.entries[4].meta?.reportedPromptTokens, 300, 'a repeated count is not a new request');
  assert.equal(t.entries[5].message.content, 'Success');
  assert.equal(t.entries[6].meta?.reportedPromptTokens, undefined);
  assert.equal(t.contextWindow, 258400);
  assert.equal(t.model, 'gpt-5.1-codex');
  assert.deepEqual(t.skipped, { session_meta: 1, turn_context: 1, token_count: 3, reasoning: 1, ghost_snapshot: 1 });
  assert.deepEqual(
    t.entries.map((e) => e.id),
    ['L2', 'L6', 'L8', 'L9', 'L12', 'L13', 'L14'],
  );
});

test('codex: a compacted record becomes an imported compaction', async () => {
  const text = [
    item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'task' }] }),
    item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'step' }] }),
    rec('compacted', { message: 'Summary of the work so far.' }),
    item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go on' }] }),
  ].join('\n');
  const t = await importTranscriptText(text, 'r.jsonl');
  assert.deepEqual(t.compactions, [
    { replacedIds: ['L1', 'L2'], summary: 'Summary of the work so far.', summaryEntryId: 'L3' },
  ]);
  assert.equal(t.entries[2].meta?.importedSummary, true);
});

test('codex: malformed input names file, line and field', async () => {
  const first = item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'x' }] });
  let e = await transcriptError(() =>
    importTranscriptText(`${first}\n${item({ type: 'function_call_output', output: 'o' })}`, 'r.jsonl'),
  );
  assert.deepEqual([e.file, e.line, e.field], ['r.jsonl', 2, 'payload.call_id']);
  assert.equal(e.message, 'r.jsonl:2: payload.call_id: tool result has no call_id');

  e = await transcriptError(() =>
    importTranscriptText(`${first}\n${item({ type: 'message', role: 'robot', content: [] })}`, 'r.jsonl'),
  );
  assert.deepEqual([e.line, e.field], [2, 'payload.role']);
  assert.match(e.message, /unknown role "robot"/);

  const live = await importTranscriptText(`${first}\n${first.slice(0, 30)}`, 'r.jsonl');
  assert.ok(
    live.warnings.some((w) => /^line 2: the last record stops mid-value/.test(w)),
    live.warnings.join('\n'),
  );
  e = await transcriptError(() => importTranscriptText(`${first}\n${first.slice(0, 30)}\n${first}`, 'r.jsonl'));
  assert.deepEqual([e.line, e.field], [2, '']);
  assert.match(e.message, /invalid JSON/);
});
