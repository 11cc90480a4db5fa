import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { importTranscriptText } from '../../src/transcripts';
import { assertWellFormed, pngBase64, transcriptError } from './helpers';

const env = '<environment_details>\n# Current Time\n1/1/2026\n</environment_details>';
const conversation = [
  {
    role: 'user',
    ts: 1777073160794,
    content: [
      { type: 'text', text: '<task>\nfix\n</task>' },
      { type: 'text', text: env },
    ],
  },
  {
    role: 'assistant',
    ts: 1777073173494,
    modelInfo: { modelId: 'claude_4_5_opus', providerId: 'openai', mode: 'act' },
    metrics: { tokens: { prompt: 10049, completion: 640, cached: 0 } },
    content: [
      { type: 'text', text: 'Reading both.' },
      { type: 'tool_use', id: 'tu1', name: 'read_file', input: { path: 'a.ts' }, call_id: 'tu1' },
      { type: 'tool_use', id: 'tu2', name: 'ask_followup_question', input: { question: 'ok?' }, call_id: 'tu2' },
    ],
  },
  {
    role: 'user',
    ts: 1777073180000,
    content: [
      { type: 'text', text: "[read_file for 'a.ts'] Result:\n1 | x" },
      { type: 'text', text: "[ask_followup_question for 'Two lines\n[with] brackets'] Result:\n<answer>yes</answer>" },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: pngBase64(10, 20) } },
      { type: 'text', text: env },
    ],
  },
  {
    role: 'assistant',
    ts: 1777073190000,
    content: [{ type: 'tool_use', id: 'tu3', name: 'execute_command', input: { command: 'npm test' } }],
  },
  {
    role: 'user',
    ts: 1777073200000,
    content: [
      { type: 'text', text: '[TASK RESUMPTION] This task was interrupted.' },
      { type: 'text', text: env },
    ],
  },
];

test('cline: result text blocks answer the preceding calls in order; the rest stays user text', async () => {
  const t = await importTranscriptText(JSON.stringify(conversation), 'api_conversation_history.json');
  assert.equal(t.format, 'cline');
  assertWellFormed(t);
  assert.deepEqual(
    t.entries.map((e) => [e.id, e.message.role]),
    [
      ['m0', 'user'],
      ['m1', 'assistant'],
      ['m2/tu1', 'tool'],
      ['m2/tu2', 'tool'],
      ['m2', 'user'],
      ['m3', 'assistant'],
      ['m4', 'user'],
    ],
  );
  assert.deepEqual(t.entries[2].message, {
    role: 'tool',
    tool_call_id: 'tu1',
    content: "[read_file for 'a.ts'] Result:\n1 | x",
  });
  assert.equal(t.entries[1].meta?.model, 'claude_4_5_opus');
  assert.equal(t.entries[1].meta?.reportedPromptTokens, 10049);
  assert.equal(t.entries[1].meta?.timestamp, new Date(1777073173494).toISOString());
  const rest = t.entries[4];
  assert.ok(Array.isArray(rest.message.content));
  assert.deepEqual(
    rest.message.content.map((p) => p.type),
    ['image_url', 'text'],
  );
  assert.deepEqual(rest.meta?.imageSizes, [{ width: 10, height: 20 }]);
  assert.ok(t.warnings.some((w) => /1 tool call\(s\) have no recorded result: tu3/.test(w)));
});

test('cline: unknown role names the line and field', async () => {
  const text = JSON.stringify([conversation[0], { role: 'robot', content: [] }], null, 2);
  const e = await transcriptError(() =>
    importTranscriptText(text, 'api_conversation_history.json', { format: 'cline' }),
  );
  assert.equal(e.field, '[1].role');
  assert.equal(e.line, text.split('\n').findIndex((l) => l.includes('"robot"')) + 1);
});
