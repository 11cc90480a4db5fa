import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { importTranscriptText } from '../../src/transcripts';
import { assertWellFormed, transcriptError } from './helpers';

const traj = {
  trajectory: [{ action: 'ls', observation: 'a', response: '…', messages: [] }],
  history: [
    { role: 'system', content: 'You are a helpful assistant.', agent: 'main', message_type: 'system_prompt' },
    { role: 'user', content: 'Fix the bug.', agent: 'main', message_type: 'observation' },
    {
      role: 'assistant',
      content: 'Look first.\n\n<function=bash>\n<parameter=command>ls</parameter>\n</function>',
      thought: 'Look first.',
      action: 'ls',
      agent: 'main',
      tool_calls: null,
      message_type: 'action',
    },
    { role: 'user', content: 'OBSERVATION:\na.py', agent: 'main', message_type: 'observation' },
  ],
  info: { exit_status: 'submitted' },
  replay_config: JSON.stringify({ agent: { model: { name: 'my-model' } } }),
};

test('swe-agent: history becomes messages; actions stay text; extra fields are dropped', async () => {
  const t = await importTranscriptText(JSON.stringify(traj, null, 2), 'x.traj');
  assert.equal(t.format, 'swe-agent');
  assertWellFormed(t);
  assert.deepEqual(
    t.entries.map((e) => e.id),
    ['h0', 'h1', 'h2', 'h3'],
  );
  assert.deepEqual(t.entries[2].message, { role: 'assistant', content: traj.history[2].content });
  assert.equal(t.entries[2].meta?.model, 'my-model');
  assert.equal(t.model, 'my-model');
  assert.deepEqual(t.skipped, { 'trajectory-step': 1 });
});

test('swe-agent: unknown role names the line and field', async () => {
  const broken = { ...traj, history: traj.history.map((h, i) => (i === 3 ? { ...h, role: 'robot' } : h)) };
  const text = JSON.stringify(broken, null, 2);
  const e = await transcriptError(() => importTranscriptText(text, 'x.traj'));
  assert.equal(e.field, 'history[3].role');
  assert.equal(e.line, text.split('\n').findIndex((l) => l.includes('"role": "robot"')) + 1);
  assert.match(
    e.message,
    /^x\.traj:\d+: history\[3\]\.role: unknown role "robot" \(expected one of system, developer, user, assistant, tool\)$/,
  );
});
