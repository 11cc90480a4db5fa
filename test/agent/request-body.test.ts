/**
 * Request bodies are assembled from each message's JSON, made once: the bytes must be the request
 * the model would get from a whole serialisation, and the real `openai` client must send them as
 * they are (with a JSON content type) to a loopback server.
 */
import { test } from 'node:test';
import OpenAI from 'openai';
import assert from 'node:assert/strict';
import { RequestBodyCache } from '../../src/agent/request-body';
import { AgentSession, InMemoryConversation } from '../../src/agent/session';
import { WorkspaceTools } from '../../src/agent/tools';
import { NodeToolHost } from '../../src/agent/node-host';
import { scripted, text, toolCalls } from '../../src/demo/modelserver/replies';
import type { ChatMessage } from '../../src/compaction/types';
import { loopback, tempWorkspace } from './helpers';

const messages: ChatMessage[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Fix "the" build \\ ünïcödé — 日本語 ✓ \u{1F600}\n' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }],
  },
  { role: 'tool', tool_call_id: 'c1', content: 'export const a = 1;' },
];

test('a body holds the request fields and every message, as a whole serialisation would', () => {
  const cache = new RequestBodyCache();
  const fields = { model: 'm', temperature: 0.2, stream: true, messages: ['ignored'] };
  const body = cache.body(fields, messages);
  assert.deepEqual(JSON.parse(body.toString('utf8')), { ...fields, messages });
  assert.equal(body.length, Buffer.byteLength(JSON.stringify({ ...fields, messages })));
  assert.deepEqual(JSON.parse(cache.body({}, []).toString('utf8')), { messages: [] });
  assert.deepEqual(JSON.parse(cache.body({}, messages.slice(0, 1)).toString('utf8')), {
    messages: messages.slice(0, 1),
  });
});

test("each message's JSON is made once and let go once compactions leave it out of the requests", () => {
  const cache = new RequestBodyCache();
  const many: ChatMessage[] = Array.from({ length: 300 }, (_, k) => ({ role: 'user', content: `message ${k}` }));
  cache.body({ model: 'm' }, many);
  assert.equal(cache.size, 300);
  // A message changed in place after it was sent would be sent as it was: the cache reads each once.
  const first = many[0] as { content: string };
  first.content = 'changed';
  assert.match(cache.body({ model: 'm' }, many).toString('utf8'), /"message 0"/);
  // A compaction replaced all but the newest ten: the others go at the next request.
  const after = [{ role: 'user', content: 'summary' } as ChatMessage, ...many.slice(-10)];
  const body = cache.body({ model: 'm' }, after);
  assert.deepEqual(JSON.parse(body.toString('utf8')).messages, after);
  assert.equal(cache.size, 11);
  // Grown at the end, cut at the end, changed in the middle: each body is the whole serialisation.
  const grown = [...after, { role: 'assistant', content: 'ünïcödé ✓' } as ChatMessage];
  const middle = [grown[0], { role: 'user', content: 'other' } as ChatMessage, ...grown.slice(2)];
  for (const list of [grown, grown.slice(0, 5), middle, grown, []])
    assert.equal(cache.body({ model: 'm' }, list).toString('utf8'), JSON.stringify({ model: 'm', messages: list }));
});

test('the openai client sends the assembled bytes: the loopback server gets every field of each request', async (t) => {
  const ws = tempWorkspace({ 'a.ts': 'export const a = 1;\n' });
  const lb = await loopback(
    scripted([
      toolCalls([{ id: 'c1', name: 'read_file', arguments: JSON.stringify({ path: 'a.ts' }) }], 'Ünïcödé ✓'),
      text('done'),
    ]),
  );
  t.after(async () => {
    await lb.close();
    ws.cleanup();
  });
  // The client's own fetch sees what the SDK hands over: the assembled bytes, not a string it made.
  const sent: Array<{ body: unknown; type: string | null }> = [];
  const client = new OpenAI({
    baseURL: lb.server.url,
    apiKey: 'test-key',
    maxRetries: 0,
    fetch: (url, init) => {
      sent.push({ body: init?.body, type: new Headers(init?.headers).get('content-type') });
      return fetch(url, init);
    },
  });
  const conversation = new InMemoryConversation([{ role: 'system', content: 'Agent — 日本語.' }]);
  const tools = new WorkspaceTools(new NodeToolHost(ws.root));
  const session = new AgentSession({
    client,
    model: 'loopback-model',
    tools,
    conversation,
    requestOptions: { temperature: 0.5 },
  });
  const result = await session.runTask('Read a.ts \u{1F600}', new AbortController().signal);
  assert.equal(result.status, 'done');
  assert.equal(lb.server.requests.length, 2);
  assert.equal(sent.length, 2);
  for (const { body, type } of sent) {
    assert.ok(body instanceof Uint8Array, 'the body is sent as the assembled bytes');
    assert.equal(type, 'application/json');
  }
  const all = conversation.messages();
  for (const [k, request] of lb.server.requests.entries()) {
    assert.deepEqual(request, {
      temperature: 0.5,
      model: 'loopback-model',
      tools: tools.schemas,
      stream: true,
      stream_options: { include_usage: true },
      messages: all.slice(0, k === 0 ? 2 : 4),
    });
  }
});
