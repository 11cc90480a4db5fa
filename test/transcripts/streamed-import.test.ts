/**
 * A file holding a plain array of chat messages, or a `{model, messages, tools}` object, is imported
 * element by element (never holding the file's text whole): the result must be the one the whole-text import gives, elements spanning the
 * reader's 1 MiB chunks included, and any file it cannot read that way must be read whole, with
 * the same result or the same error.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { importTranscript, importTranscriptText } from '../../src/transcripts';
import { readJsonArray, readJsonDocument } from '../../src/transcripts/json-array-stream';
import { streamOpenAIChat } from '../../src/transcripts/formats/openai-chat';
import { transcriptError } from './helpers';

const dir = mkdtempSync(path.join(tmpdir(), 'ck-streamed-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function write(content: string | Buffer, name = `f${n++}.json`): string {
  const file = path.join(dir, name);
  writeFileSync(file, content);
  return file;
}

const call = (id: string, name: string, args = '{}') => ({ id, type: 'function', function: { name, arguments: args } });

/** A conversation with a compaction marker, a repaired argument, a cleaned field and escapes. */
function conversation(big: string): unknown[] {
  return [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'fix "the" \\ build\n[ok] {yes}' },
    { role: 'assistant', content: null, tool_calls: [call('c1', 'read_file', '{"path":"a]b,c"}')] },
    { role: 'tool', tool_call_id: 'c1', content: big },
    { role: 'system', content: '[compact_boundary] Conversation compacted' },
    { role: 'user', content: 'This session is being continued from a previous conversation. It fixed the build.' },
    {
      role: 'assistant',
      content: 'x',
      stray: 1,
      tool_calls: [{ id: 'c2', function: { name: 'run', arguments: { cmd: 'ls' } } }],
    },
    { role: 'tool', tool_call_id: 'c2', content: 'ünïcödé — 日本語 ✓ \u{1F600}' },
    { role: 'assistant', content: 'done' },
  ];
}

/** The import of `text` as a file (streamed when it can be) and as text (whole), compared. */
async function assertSameAsWhole(text: string | Buffer, name?: string): Promise<void> {
  const file = write(text, name);
  const streamed = await importTranscript(file);
  const whole = await importTranscriptText(typeof text === 'string' ? text : new Uint8Array(text), file);
  assert.deepEqual(streamed, whole);
}

test('a message array is read element by element with the result of the whole-text import', async () => {
  const messages = conversation('a result');
  const file = write(JSON.stringify(messages, null, 2));
  assert.ok(await streamOpenAIChat(file, false), 'the array is read element by element');
  await assertSameAsWhole(JSON.stringify(messages));
  await assertSameAsWhole(JSON.stringify(messages, null, 2));
  await assertSameAsWhole(`\uFEFF \n${JSON.stringify(messages)}\r\n`);
  const t = await importTranscript(file);
  assert.equal(t.compactions.length, 1);
  assert.match(t.compactions[0].summary, /^This session is being continued/);
  assert.equal(t.compactions[0].summaryEntryId, 'm5');
  assert.deepEqual(t.compactions[0].replacedIds, ['m1', 'm2', 'm3']);
  assert.ok(t.warnings.some((w) => /serialised to JSON text/.test(w)));
});

test('elements, strings and escapes that span the 1 MiB chunks are read whole', async () => {
  // Offsets around the chunk edge put the boundary inside a string, on a backslash, inside a
  // multi-byte character and between elements.
  for (const pad of [0, 1, 2, 3, 5, 17]) {
    const big = `${'x'.repeat((1 << 20) - 200 + pad)}\\"ü\\\\"日${'y'.repeat(300)}`;
    await assertSameAsWhole(JSON.stringify(conversation(big)));
    const many = Array.from({ length: 9000 }, (_, k) => ({
      role: k % 2 ? 'assistant' : 'user',
      content: `${'é'.repeat(pad)}message ${k} "quoted" \\ ${'z'.repeat(100)}`,
    }));
    await assertSameAsWhole(JSON.stringify(many));
  }
});

test('detection looks at the first 50 objects as the whole-document detection does', async () => {
  const cline = [
    { role: 'user', content: [{ type: 'text', text: 'hi' }], ts: 1 },
    { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
  ];
  assert.equal(
    await streamOpenAIChat(write(JSON.stringify(cline)), false),
    undefined,
    'a Cline history is not read as chat messages',
  );
  await assertSameAsWhole(JSON.stringify(cline));
  const named = write(JSON.stringify([{ role: 'user', content: 'hi' }]), 'api_conversation_history.json');
  assert.equal(await streamOpenAIChat(named, false), undefined, 'the file name decides between chat and Cline');
  assert.equal((await importTranscript(named)).format, 'cline');
  const many = Array.from({ length: 120 }, (_, k) => ({ role: k % 2 ? 'assistant' : 'user', content: `m${k}` }));
  await assertSameAsWhole(JSON.stringify(many));
  await assertSameAsWhole('[]');
  await assertSameAsWhole('{"messages":[{"role":"user","content":"hi"}],"model":"gpt-4o"}');
});

test('a file the element reader cannot read gives the whole-text import error', async () => {
  const good = JSON.stringify(conversation('r'));
  const broken = [
    good.slice(0, -1),
    `${good.slice(0, -1)},]`,
    `[,${good.slice(1)}`,
    `${good} x`,
    good.replace('"fix', '"fix\n'),
    good.replace('"role":"tool"', '"role":"robot"'),
    good.replace(
      ',{"role":"assistant","content":"done"}',
      ',{"role":"assistant","content":"done"} {"role":"user","content":"x"}',
    ),
  ];
  for (const text of broken) {
    const file = write(text);
    const streamedErr = await transcriptError(() => importTranscript(file));
    const wholeErr = await transcriptError(() => importTranscriptText(text, file));
    assert.equal(streamedErr.message, wholeErr.message);
  }
  const bytes = Buffer.concat([Buffer.from('[{"role":"user","content":"a'), Buffer.from([0xff]), Buffer.from('"}]')]);
  const file = write(bytes);
  assert.equal(
    (await transcriptError(() => importTranscript(file))).message,
    (await transcriptError(() => importTranscriptText(new Uint8Array(bytes), file))).message,
  );
});

test('the element reader reports each element and refuses what is not one well-formed array', async () => {
  const read = async (text: string) => {
    const values: unknown[] = [];
    const result = await readJsonArray(write(text), (e) => {
      assert.equal(e.index, values.length);
      values.push(e.value);
    });
    return { result, values };
  };
  assert.deepEqual(await read(' [1, "a,]", {"b": [2, {"c": "}"}]}, null ] '), {
    result: 'ok',
    values: [1, 'a,]', { b: [2, { c: '}' }] }, null],
  });
  assert.deepEqual(await read('[]'), { result: 'ok', values: [] });
  for (const bad of ['', '{}', '[1,]', '[,1]', '[1 2]', '[1', '[1] [2]', '[1]]', '[{]}]', '["a\\"]']) {
    assert.equal((await read(bad)).result, 'unreadable', bad);
  }
  let seen = 0;
  assert.equal(await readJsonArray(write('[1,2,3]'), () => ++seen < 2), 'stopped');
  assert.equal(seen, 2);
});

test('a {model, messages, tools} object is read message by message with the result of the whole-text import', async () => {
  const tool = { type: 'function', function: { name: 'read_file', parameters: { type: 'object' } } };
  const messages = conversation('a result');
  const shapes = [
    { model: 'gpt-4o', messages },
    { messages, model: 'gpt-4o-mini', tools: [tool], phases: [{ name: 'x' }] },
    { format: 'openai-chat', model: 'm', tools: [tool], messages, note: { nested: ['[', '{'] } },
  ];
  for (const shape of shapes) {
    const file = write(JSON.stringify(shape, null, 2));
    const streamed = await streamOpenAIChat(file, false);
    assert.ok(streamed, 'the object is read message by message');
    assert.equal(streamed.finish().entries.length, messages.length - 1);
    await assertSameAsWhole(JSON.stringify(shape));
    await assertSameAsWhole(JSON.stringify(shape, null, 2));
  }
  // Messages that span the 1 MiB chunks.
  const big = `${'x'.repeat((1 << 20) - 100)}\\"ü"${'y'.repeat(300)}`;
  await assertSameAsWhole(JSON.stringify({ model: 'gpt-4o', messages: conversation(big) }));
  const t = await importTranscript(write(JSON.stringify({ model: 'gpt-4o', tools: [tool], messages })));
  assert.equal(t.model, 'gpt-4o');
  assert.equal(t.tools.length, 1);
  assert.equal(t.compactions.length, 1);
});

test("another format's object, or an object whose messages are not a list, is left to the whole read", async () => {
  const messages = [{ role: 'user', content: 'hi' }];
  for (const doc of [
    { history: messages, trajectory: [], messages },
    { messages, history: messages, info: {} },
    { format: 'context-keeper/transcript', entries: [{ id: 'a', message: messages[0] }], messages },
    { messages: 'not a list' },
    { messages: [] },
    { model: 'gpt-4o' },
    { messages, tools: 'none' },
  ]) {
    const file = write(JSON.stringify(doc));
    assert.equal(await streamOpenAIChat(file, false), undefined, JSON.stringify(doc));
    const streamedErr = await importTranscript(file).then(
      (r) => r,
      (e: Error) => e.message,
    );
    const wholeErr = await importTranscriptText(JSON.stringify(doc), file).then(
      (r) => r,
      (e: Error) => e.message,
    );
    assert.deepEqual(streamedErr, wholeErr);
  }
});

test('the document reader streams the named array of an object and hands the other members whole', async () => {
  const read = async (text: string) => {
    const elements: unknown[] = [];
    const members: Array<[string, unknown]> = [];
    const result = await readJsonDocument(write(text), {
      field: 'messages',
      onElement: (e) => {
        assert.equal(e.index, elements.length);
        assert.equal(e.field, 'messages');
        elements.push(e.value);
      },
      onMember: (key, value) => void members.push([key, value]),
    });
    return { result, elements, members };
  };
  assert.deepEqual(await read(' {"a": {"messages": [1]}, "messages" : [1, "x,]", {"b": "}"}], "c": [2, ":"] } '), {
    result: 'ok',
    elements: [1, 'x,]', { b: '}' }],
    members: [
      ['a', { messages: [1] }],
      ['c', [2, ':']],
    ],
  });
  assert.deepEqual(await read('{}'), { result: 'ok', elements: [], members: [] });
  assert.deepEqual(await read('{"messages": 3}'), { result: 'ok', elements: [], members: [['messages', 3]] });
  for (const bad of [
    '{',
    '{"a"}',
    '{"a":}',
    '{"a":1,}',
    '{,"a":1}',
    '{"a":1 "b":2}',
    '{"messages":[1,]}',
    '{"messages":[1}',
    '{"a":1}}',
    '{"a":1} {}',
    '{1:2}',
    '{"a" "b":1}',
  ]) {
    assert.equal((await read(bad)).result, 'unreadable', bad);
  }
  let seen = 0;
  const stopped = await readJsonDocument(write('{"messages":[1,2,3]}'), {
    field: 'messages',
    onElement: () => ++seen < 2,
    onMember: () => undefined,
  });
  assert.equal(stopped, 'stopped');
  assert.equal(
    await readJsonDocument(write('{"a":1,"b":2}'), { onElement: () => undefined, onMember: (k) => k !== 'a' }),
    'stopped',
  );
});
