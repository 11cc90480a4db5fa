import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { importTranscriptText } from '../../src/transcripts';
import { clineToolOk } from '../../src/transcripts/formats/cline';
import { cline } from '../support/recordings';
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

test('cline: a result says whether the call succeeded in its own words, never by a missing is_error', async () => {
  const call = (id: string, command: string) => ({
    role: 'assistant',
    content: [{ type: 'tool_use', id, name: 'execute_command', input: { command } }],
  });
  const history = [
    { role: 'user', content: [{ type: 'text', text: '<task>\nrun the checks\n</task>' }] },
    call('b1', 'npm test'),
    // Native tool_result blocks: Cline writes no is_error on them, the wording tells.
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'b1', content: 'Command failed with exit code 2.\nOutput:\nFAIL a' },
      ],
    },
    call('b2', 'npm run lint'),
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'b2',
          content: 'Command executed successfully (exit code 0).\nOutput:\nok',
        },
      ],
    },
    call('b3', 'npm run build'),
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b3', content: 'boom', is_error: true }] },
    call('t1', 'npm test -- a'),
    {
      role: 'user',
      content: [
        {
          type: 'text',
          text: "[execute_command for 'npm test -- a'] Result:\nCommand failed with exit code 1.\nOutput:\nFAIL",
        },
      ],
    },
    call('t2', 'npm test -- b'),
    {
      role: 'user',
      content: [
        {
          type: 'text',
          text: "[execute_command for 'npm test -- b'] Result:\nCommand executed successfully (exit code 0).\nOutput:\nPASS",
        },
      ],
    },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'r1', name: 'read_file', input: { path: 'log.txt' } }],
    },
    {
      role: 'user',
      content: [{ type: 'text', text: "[read_file for 'log.txt'] Result:\n1 | Command failed earlier\n2 | Error: x" }],
    },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'w1', name: 'write_to_file', input: { path: 'a.ts', content: 'x' } }],
    },
    {
      role: 'user',
      content: [
        {
          type: 'text',
          text: "[write_to_file for 'a.ts'] Result:\nThe tool execution failed with the following error:\n<error>\nEACCES\n</error>",
        },
      ],
    },
  ];
  const t = await importTranscriptText(JSON.stringify(history), 'api_conversation_history.json');
  assert.equal(t.format, 'cline');
  const ok = Object.fromEntries(
    t.entries.filter((e) => e.message.role === 'tool').map((e) => [e.id.split('/')[1], e.meta?.toolOk]),
  );
  assert.deepEqual(ok, { b1: false, b2: true, b3: false, t1: false, t2: true, r1: undefined, w1: false });
});

test('cline: the recording writer of the tests gives a failed command toolOk false', async () => {
  const text = cline([
    { user: 'test it' },
    { tool: 'bash', command: 'npm test', output: 'FAIL a', ok: false, exit: 3 },
  ]);
  const t = await importTranscriptText(text, 'api_conversation_history.json');
  const result = t.entries.find((e) => e.message.role === 'tool');
  assert.equal(result?.meta?.toolOk, false);
});

test('cline: outcome wording, a person’s reply and content that merely reads like a failure', () => {
  assert.equal(clineToolOk("[execute_command for 'x'] Result:\nCommand failed with exit code 127."), false);
  assert.equal(clineToolOk('Command executed successfully (exit code 0).'), true);
  assert.equal(clineToolOk('Command executed.\nOutput:\nError: looks bad'), undefined, 'no exit status stated');
  assert.equal(clineToolOk('Command timed out after 30 seconds. Running in the background.'), undefined);
  assert.equal(clineToolOk("[read_file for 'a'] Result:\n1 | Error: in a file"), undefined);
  assert.equal(clineToolOk("[ask_followup_question for 'ok?'] Result:\n<answer>no</answer>"), undefined);
  assert.equal(clineToolOk('anything', true), false);
  assert.equal(clineToolOk('anything', false), true);
  assert.equal(clineToolOk('Command failed with exit code 1.', false), false, 'the wording states the exit status');
});
