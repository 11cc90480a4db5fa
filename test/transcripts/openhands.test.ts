import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { importTranscriptText } from '../../src/transcripts';
import { assertWellFormed, calls, transcriptError } from './helpers';

const events = [
  {
    id: 'e0',
    timestamp: '2026-02-09T12:00:00',
    source: 'agent',
    kind: 'SystemPromptEvent',
    system_prompt: { type: 'text', text: 'You are an agent.' },
    tools: [{ title: 'terminal', description: 'Run bash', kind: 'TerminalTool' }],
  },
  {
    id: 'e1',
    timestamp: '2026-02-09T12:00:01',
    source: 'user',
    kind: 'MessageEvent',
    llm_message: { role: 'user', content: [{ type: 'text', text: 'look' }], thinking_blocks: [] },
  },
  {
    id: 'e2',
    source: 'agent',
    kind: 'ActionEvent',
    thought: [{ type: 'text', text: 'Listing.' }],
    thinking_blocks: [{ type: 'thinking', thinking: 'x' }],
    tool_name: 'terminal',
    tool_call_id: 't1',
    tool_call: { id: 't1', name: 'terminal', arguments: '{"command":"ls"}' },
    llm_response_id: 'r1',
  },
  {
    id: 'e3',
    source: 'agent',
    kind: 'ActionEvent',
    thought: [],
    tool_name: 'terminal',
    tool_call_id: 't2',
    tool_call: { id: 't2', name: 'terminal', arguments: '{"command":"pwd"}' },
    llm_response_id: 'r1',
  },
  {
    id: 'e4',
    source: 'environment',
    kind: 'ObservationEvent',
    tool_name: 'terminal',
    tool_call_id: 't1',
    action_id: 'e2',
    observation: { content: [{ type: 'text', text: 'a b' }], is_error: false },
  },
  {
    id: 'e5',
    source: 'environment',
    kind: 'ObservationEvent',
    tool_name: 'terminal',
    tool_call_id: 't2',
    action_id: 'e3',
    observation: { content: [{ type: 'text', text: '/w' }], is_error: false },
  },
  {
    id: 'e6',
    source: 'user',
    kind: 'MessageEvent',
    llm_message: { role: 'user', content: [{ type: 'text', text: 'summarize' }] },
  },
  {
    id: 'e7',
    source: 'environment',
    kind: 'Condensation',
    forgotten_event_ids: ['e2', 'e3', 'e4', 'e5'],
    summary: 'Listed files.',
    summary_offset: 2,
  },
  {
    id: 'e8',
    source: 'agent',
    kind: 'MessageEvent',
    llm_message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
  },
];

test('openhands: actions of one response merge; observations answer them; condensation is imported', async () => {
  const t = await importTranscriptText(JSON.stringify(events, null, 2), 'events.json');
  assert.equal(t.format, 'openhands');
  assertWellFormed(t);
  assert.deepEqual(
    t.entries.map((e) => e.id),
    ['e0', 'e1', 'e2', 'e4', 'e5', 'e6', 'e8'],
  );
  assert.equal(t.entries[2].message.content, 'Listing.');
  assert.deepEqual(
    calls(t.entries[2].message).map((c) => c[0]),
    ['t1', 't2'],
  );
  assert.deepEqual(t.compactions, [{ replacedIds: ['e2', 'e4', 'e5'], summary: 'Listed files.' }]);
  assert.equal(t.tools[0].type === 'function' && t.tools[0].function.name, 'terminal');
  assert.deepEqual(t.skipped, { thinking: 1, Condensation: 1 });
});

test('openhands: an observation without tool_call_id names the event line and field', async () => {
  const broken = events.map((e) => (e.id === 'e4' ? { ...e, tool_call_id: undefined } : e));
  const text = JSON.stringify(broken, null, 2);
  const e = await transcriptError(() => importTranscriptText(text, 'events.json'));
  assert.equal(e.field, '[4].tool_call_id');
  const expectedLine = text.split('\n').findIndex((l) => l.includes('"id": "e4"'));
  assert.equal(e.line, expectedLine, 'line where event 4 starts (the line before its id)');
  assert.match(e.message, /^events\.json:\d+: \[4\]\.tool_call_id: observation has no tool_call_id$/);
});

test('openhands: unknown message role', async () => {
  const broken = events.map((e) => (e.id === 'e6' ? { ...e, llm_message: { role: 'robot', content: [] } } : e));
  const text = JSON.stringify(broken, null, 2);
  const e = await transcriptError(() => importTranscriptText(text, 'events.json'));
  assert.equal(e.field, '[6].llm_message.role');
  assert.equal(e.line, text.split('\n').findIndex((l) => l.includes('"role": "robot"')) + 1);
});
