/**
 * Tool results carry the success flag where the recorded format has one (`EntryMeta.toolOk`), and
 * none where it does not (then the sidebar falls back to reading the text).
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { importTranscriptText } from '../../src/transcripts';
import type { Entry } from '../../src/compaction/types';

const toolOks = (entries: Entry[]) => entries.filter((e) => e.message.role === 'tool').map((e) => e.meta?.toolOk);

test('claude-code: is_error of a tool result becomes the success flag', async () => {
  const base = {
    sessionId: 's1',
    cwd: '/w',
    version: '2.1.0',
    isSidechain: false,
    timestamp: '2026-01-01T00:00:00.000Z',
  };
  const line = (o: Record<string, unknown>) => JSON.stringify({ ...base, ...o });
  const text = [
    line({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'go' } }),
    line({
      type: 'assistant',
      uuid: 'a1',
      parentUuid: 'u1',
      message: {
        role: 'assistant',
        id: 'm1',
        model: 'claude-x',
        content: [
          { type: 'tool_use', id: 'c1', name: 'Bash', input: {} },
          { type: 'tool_use', id: 'c2', name: 'Bash', input: {} },
        ],
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    }),
    // The failed call's text does not look like an error; the succeeded one's does: only the flag can tell.
    line({
      type: 'user',
      uuid: 'r1',
      parentUuid: 'a1',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'Error: none, all passed' }],
      },
    }),
    line({
      type: 'user',
      uuid: 'r2',
      parentUuid: 'r1',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'c2', content: 'exit 1', is_error: true }],
      },
    }),
  ].join('\n');
  const t = await importTranscriptText(text, 's.jsonl');
  assert.deepEqual(toolOks(t.entries), [true, false]);
});

test('codex: an exit code in the output metadata becomes the success flag; plain output records none', async () => {
  const rec = (type: string, payload: Record<string, unknown>) =>
    JSON.stringify({ timestamp: '2025-11-17T21:30:00.000Z', type, payload });
  const item = (payload: Record<string, unknown>) => rec('response_item', payload);
  const text = [
    rec('session_meta', { id: 's', cwd: '/w', cli_version: '0.58.0' }),
    item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix it' }] }),
    item({ type: 'function_call', name: 'shell', arguments: '{}', call_id: 'c1' }),
    item({ type: 'function_call', name: 'shell', arguments: '{}', call_id: 'c2' }),
    item({ type: 'function_call', name: 'shell', arguments: '{}', call_id: 'c3' }),
    item({ type: 'function_call_output', call_id: 'c1', output: '{"output":"ok\\n","metadata":{"exit_code":0}}' }),
    item({ type: 'function_call_output', call_id: 'c2', output: '{"output":"boom\\n","metadata":{"exit_code":2}}' }),
    item({ type: 'function_call_output', call_id: 'c3', output: 'plain text' }),
  ].join('\n');
  const t = await importTranscriptText(text, 'rollout.jsonl');
  assert.deepEqual(toolOks(t.entries), [true, false, undefined]);
});

test("openhands: an observation's is_error and an agent error event become the success flag", async () => {
  const events = [
    {
      id: 'e1',
      source: 'user',
      kind: 'MessageEvent',
      llm_message: { role: 'user', content: [{ type: 'text', text: 'look' }] },
    },
    {
      id: 'e2',
      source: 'agent',
      kind: 'ActionEvent',
      thought: [],
      tool_name: 'terminal',
      tool_call_id: 't1',
      tool_call: { id: 't1', name: 'terminal', arguments: '{}' },
      llm_response_id: 'r1',
    },
    {
      id: 'e3',
      source: 'agent',
      kind: 'ActionEvent',
      thought: [],
      tool_name: 'terminal',
      tool_call_id: 't2',
      tool_call: { id: 't2', name: 'terminal', arguments: '{}' },
      llm_response_id: 'r1',
    },
    {
      id: 'e4',
      source: 'environment',
      kind: 'ObservationEvent',
      tool_name: 'terminal',
      tool_call_id: 't1',
      action_id: 'e2',
      observation: { content: [{ type: 'text', text: 'fine' }], is_error: false },
    },
    {
      id: 'e5',
      source: 'environment',
      kind: 'ObservationEvent',
      tool_name: 'terminal',
      tool_call_id: 't2',
      action_id: 'e3',
      observation: { content: [{ type: 'text', text: 'fine too' }], is_error: true },
    },
  ];
  const t = await importTranscriptText(JSON.stringify(events), 'events.json');
  assert.deepEqual(toolOks(t.entries), [true, false]);
});

test("openhands: a terminal observation's exit code decides where is_error stays false (failed, timed out, never finished)", async () => {
  const call = (n: number) => ({
    id: `a${n}`,
    source: 'agent',
    kind: 'ActionEvent',
    thought: [],
    tool_name: 'terminal',
    tool_call_id: `t${n}`,
    tool_call: { id: `t${n}`, name: 'terminal', arguments: JSON.stringify({ command: `step ${n}` }) },
    llm_response_id: `r${n}`,
  });
  const seen = (n: number, exit: number, suffix: string) => ({
    id: `o${n}`,
    source: 'environment',
    kind: 'ObservationEvent',
    tool_name: 'terminal',
    tool_call_id: `t${n}`,
    action_id: `a${n}`,
    observation: {
      content: [{ type: 'text', text: `output ${n}` }],
      is_error: false,
      exit_code: exit,
      metadata: { exit_code: exit, suffix },
      kind: 'TerminalObservation',
    },
  });
  const events = [
    {
      id: 'u',
      source: 'user',
      kind: 'MessageEvent',
      llm_message: { role: 'user', content: [{ type: 'text', text: 'go' }] },
    },
    call(1),
    seen(1, 0, '\n[The command completed with exit code 0.]'),
    call(2),
    seen(2, -1, '\n[The command timed out after 15.0 seconds. You may wait longer to see additional output.]'),
    call(3),
    seen(3, 1, '\n[The command completed with exit code 1. CTRL+C was sent.]'),
  ];
  const t = await importTranscriptText(JSON.stringify(events), 'events.json');
  assert.deepEqual(toolOks(t.entries), [true, false, false]);
  const results = t.entries.filter((e) => e.message.role === 'tool').map((e) => String(e.message.content));
  assert.match(results[1], /^output 2\n\[The command timed out after 15\.0 seconds/);
  assert.match(results[2], /CTRL\+C was sent\.\]$/);
});

test('openai chat messages record no success flag', async () => {
  const text = JSON.stringify({
    messages: [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'Error: nope' },
    ],
  });
  const t = await importTranscriptText(text, 'chat.json');
  assert.deepEqual(toolOks(t.entries), [undefined]);
});
