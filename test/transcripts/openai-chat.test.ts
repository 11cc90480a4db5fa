import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { importTranscriptText } from '../../src/transcripts';
import { assertWellFormed, calls, pngBase64, transcriptError } from './helpers';

const call = (id: string, name: string, args = '{}') => ({ id, type: 'function', function: { name, arguments: args } });

test('openai-chat: a plain message array imports as is', async () => {
  const messages = [
    { role: 'system', content: 'You are helpful.' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'what is this?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${pngBase64(3, 4)}` } },
      ],
    },
    { role: 'assistant', content: null, tool_calls: [call('c1', 'look')] },
    { role: 'tool', tool_call_id: 'c1', content: 'a cat' },
    { role: 'assistant', content: 'A cat.', reasoning_content: 'kept as found' },
  ];
  const t = await importTranscriptText(JSON.stringify(messages), 'chat.json');
  assert.equal(t.format, 'openai-chat');
  assertWellFormed(t);
  assert.deepEqual(
    t.entries.map((e) => e.message),
    messages,
  );
  assert.deepEqual(
    t.entries.map((e) => e.id),
    ['m0', 'm1', 'm2', 'm3', 'm4'],
  );
  assert.deepEqual(t.entries[1].meta?.imageSizes, [{ width: 3, height: 4 }]);
  assert.equal(t.stats.images, 1);
  assert.deepEqual(t.tools, []);
});

test('openai-chat: {messages, tools} keeps the tool schemas', async () => {
  const tools = [
    {
      type: 'function',
      function: { name: 'look', description: 'Look', parameters: { type: 'object', properties: {} } },
    },
  ];
  const t = await importTranscriptText(
    JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], tools }),
    'req.json',
  );
  assert.equal(t.format, 'openai-chat');
  assert.deepEqual(t.tools, tools);
});

test('openai-chat: split parallel calls merge, early and orphan results are repaired', async () => {
  const messages = [
    { role: 'user', content: 'write two files' },
    { role: 'assistant', content: null, tool_calls: [call('c1', 'Write')] },
    { role: 'assistant', content: null, tool_calls: [call('c2', 'Write')] },
    { role: 'tool', tool_call_id: 'c1', content: 'ok 1' },
    { role: 'tool', tool_call_id: 'c2', content: 'ok 2' },
    { role: 'tool', tool_call_id: 'c3', content: 'early' },
    { role: 'assistant', content: null, tool_calls: [call('c3', 'Read')] },
    { role: 'tool', tool_call_id: 'c9', content: 'stray' },
  ];
  const t = await importTranscriptText(JSON.stringify(messages), 'chat.json');
  assertWellFormed(t);
  assert.deepEqual(
    t.entries.map((e) => e.id),
    ['m0', 'm1', 'm3', 'm4', 'm6', 'm5', 'm7'],
  );
  assert.deepEqual(
    calls(t.entries[1].message).map((c) => c[0]),
    ['c1', 'c2'],
  );
  assert.equal(t.entries[6].message.role, 'user');
  assert.match(String(t.entries[6].message.content), /not in the transcript \(id c9\)\]\nstray$/);
  assert.equal(t.warnings.length, 2);
});

test('openai-chat: [compact_boundary] markers become imported compactions', async () => {
  const summary = 'This session is being continued from a previous conversation that ran out of context. Summary: A.';
  const doc = {
    format: 'openai-chat',
    model: 'm-1',
    messages: [
      { role: 'user', content: 'task' },
      { role: 'assistant', content: 'step 1' },
      { role: 'system', content: '[compact_boundary] Conversation compacted' },
      { role: 'user', content: summary },
      { role: 'assistant', content: 'step 2' },
      { role: 'system', content: '[compact_boundary] Conversation compacted' },
      { role: 'user', content: `${summary} B.` },
    ],
  };
  const t = await importTranscriptText(JSON.stringify(doc, null, 2), 'trajectory.json');
  assertWellFormed(t);
  assert.equal(t.model, 'm-1');
  assert.deepEqual(
    t.entries.map((e) => e.id),
    ['m0', 'm1', 'm3', 'm4', 'm6'],
  );
  assert.deepEqual(t.compactions, [
    { replacedIds: ['m0', 'm1'], summary, summaryEntryId: 'm3' },
    { replacedIds: ['m3', 'm4'], summary: `${summary} B.`, summaryEntryId: 'm6' },
  ]);
  assert.equal(t.entries[2].meta?.importedSummary, true);
  assert.deepEqual(t.skipped, { compact_boundary: 2 });
});

test('openai-chat: malformed messages name file, line and field', async () => {
  const doc = {
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: [call('c1', 'x')] },
      { role: 'tool', content: 'no id' },
    ],
  };
  const text = JSON.stringify(doc, null, 2);
  let e = await transcriptError(() => importTranscriptText(text, 'file.json'));
  assert.equal(e.field, 'messages[2].tool_call_id');
  assert.equal(
    e.line,
    text.split('\n').findIndex((l) => l.includes('"no id"')) - 1,
    'the line where messages[2] starts (its tool_call_id is missing)',
  );
  assert.equal(e.message, `file.json:${e.line}: messages[2].tool_call_id: tool result has no tool_call_id`);

  const robot = JSON.stringify(
    [
      { role: 'user', content: 'a' },
      { role: 'robot', content: 'b' },
    ],
    null,
    2,
  );
  e = await transcriptError(() => importTranscriptText(robot, 'file.json'));
  assert.equal(e.field, '[1].role');
  assert.equal(e.line, 7);
  assert.equal(
    e.message,
    'file.json:7: [1].role: unknown role "robot" (expected one of system, developer, user, assistant, tool)',
  );

  const roleless = JSON.stringify([{ role: 'user', content: 'a' }, { content: 'b' }], null, 2);
  e = await transcriptError(() => importTranscriptText(roleless, 'file.json'));
  assert.equal(
    e.message,
    'file.json:6: [1].role: message has no "role" (expected one of system, developer, user, assistant, tool)',
  );

  e = await transcriptError(() =>
    importTranscriptText('[\n  {"role": "user", "content": "a"},\n  {"role": \n', 'cut.json', {
      format: 'openai-chat',
    }),
  );
  assert.equal(e.field, '');
  assert.match(e.message, /^cut\.json:\d+: invalid JSON/);
});

test('openai-chat: image parts in a tool message move to a user message after the step', async () => {
  const url = `data:image/png;base64,${pngBase64(5, 6)}`;
  const messages = [
    { role: 'user', content: 'shoot both' },
    { role: 'assistant', content: null, tool_calls: [call('c1', 'shot'), call('c2', 'shot')] },
    {
      role: 'tool',
      tool_call_id: 'c1',
      content: [
        { type: 'text', text: 'first' },
        { type: 'image_url', image_url: { url } },
      ],
    },
    { role: 'tool', tool_call_id: 'c2', content: 'second' },
  ];
  const t = await importTranscriptText(JSON.stringify(messages), 'chat.json');
  assertWellFormed(t);
  assert.deepEqual(
    t.entries.map((e) => [e.id, e.message.role]),
    [
      ['m0', 'user'],
      ['m1', 'assistant'],
      ['m2', 'tool'],
      ['m3', 'tool'],
      ['m2/images', 'user'],
    ],
  );
  assert.equal(t.entries[2].message.content, 'first\n[1 image(s): attached in the next user message]');
  assert.deepEqual(t.entries[4].meta?.imageSizes, [{ width: 5, height: 6 }]);
  assert.equal(t.stats.images, 1);
});

test('openai-chat: a message with no content is refused, except an assistant message with tool calls', async () => {
  const e = await transcriptError(() =>
    importTranscriptText(JSON.stringify([{ role: 'user', content: 'hi' }, { role: 'user' }]), 'empty.json'),
  );
  assert.equal(e.field, '[1].content');
  assert.match(e.message, /^empty\.json:1: \[1\]\.content: user message has no content$/);
  const ok = await importTranscriptText(
    JSON.stringify([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call('c1', 'ls')] },
      { role: 'tool', tool_call_id: 'c1', content: 'a' },
    ]),
    'ok.json',
  );
  assert.equal(ok.entries.length, 3);
});

test('openai-chat: tool-call arguments that are not JSON are kept as recorded, with a warning naming the message and call', async () => {
  const text = JSON.stringify([
    { role: 'user', content: 'list the files' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command": "ls' } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'a b' },
  ]);
  const t = await importTranscriptText(text, 'cut-args.json');
  const assistant = t.entries.find((e) => e.message.role === 'assistant')?.message as
    { tool_calls?: Array<{ function: { arguments: string } }> } | undefined;
  const call = assistant?.tool_calls?.[0];
  assert.equal(call?.function.arguments, '{"command": "ls', 'kept as recorded');
  assert.deepEqual(
    t.warnings.filter((w) => /not valid JSON/.test(w)),
    ['cut-args.json: message 1: tool call 0 (bash): arguments are not valid JSON; kept as recorded'],
  );
});
