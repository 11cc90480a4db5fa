import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ServerResponse } from 'node:http';
import OpenAI from 'openai';
import { AgentSession, InMemoryConversation } from '../../src/agent/session';
import { WorkspaceTools } from '../../src/agent/tools';
import { NodeToolHost } from '../../src/agent/node-host';
import { MAX_TOOL_CALLS, ToolCallAssembler } from '../../src/agent/tool-call-stream';
import { pairingViolations, tempWorkspace } from './helpers';
import { chunk, sseServer } from './sse-server';

const write = (p: string, content: string) => JSON.stringify({ path: p, content });

async function runWith(t: TestContext, first: (res: ServerResponse) => void) {
  const server = await sseServer((res, n) => {
    if (n === 1) first(res);
    else {
      res.write(chunk({ role: 'assistant', content: 'done' }));
      res.write(chunk({}, 'stop'));
    }
  });
  const ws = tempWorkspace();
  t.after(async () => {
    await server.close();
    ws.cleanup();
  });
  const conversation = new InMemoryConversation([{ role: 'system', content: 'sys' }]);
  const session = new AgentSession({
    client: new OpenAI({ baseURL: server.url, apiKey: 'k', maxRetries: 0 }),
    model: 'm',
    tools: new WorkspaceTools(new NodeToolHost(ws.root), { autoApprove: { edits: true } }),
    conversation,
  });
  const started = Date.now();
  const result = await session.runTask('Write the files.', new AbortController().signal);
  return { result, ms: Date.now() - started, root: ws.root, conversation, server };
}

test('tool calls streamed without an index, each whole (Gemini style), all run', async (t) => {
  const { result, root, conversation } = await runWith(t, (res) => {
    res.write(
      chunk({
        role: 'assistant',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'write_file', arguments: write('a.txt', 'A') } },
          { id: 'call_b', type: 'function', function: { name: 'write_file', arguments: write('b.txt', 'B') } },
        ],
      }),
    );
    res.write(chunk({}, 'tool_calls'));
  });
  assert.equal(result.status, 'done');
  assert.equal(result.toolCalls, 2);
  assert.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 'A');
  assert.equal(readFileSync(path.join(root, 'b.txt'), 'utf8'), 'B');
  assert.deepEqual(pairingViolations(conversation.messages()), []);
});

test('a call streamed without an index, its arguments in later pieces without id (older Ollama), runs once whole', async (t) => {
  const { result, root, conversation } = await runWith(t, (res) => {
    res.write(
      chunk({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'write_file', arguments: '' } }],
      }),
    );
    res.write(chunk({ tool_calls: [{ function: { arguments: '{"path":"a.txt",' } }] }));
    res.write(chunk({ tool_calls: [{ function: { arguments: '"content":"A"}' } }] }));
    res.write(chunk({}, 'tool_calls'));
  });
  assert.equal(result.status, 'done');
  assert.equal(result.toolCalls, 1);
  assert.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 'A');
  const assistant = conversation.messages()[2] as { tool_calls?: { id: string; function: { arguments: string } }[] };
  assert.equal(assistant.tool_calls?.length, 1);
  assert.equal(assistant.tool_calls?.[0].id, 'call_a');
  assert.equal(assistant.tool_calls?.[0].function.arguments, write('a.txt', 'A').replace(/\s/g, ''));
});

test('calls without index or id, one after another, become separate calls with ids of their own', async (t) => {
  const { result, root, conversation } = await runWith(t, (res) => {
    res.write(
      chunk({ tool_calls: [{ type: 'function', function: { name: 'write_file', arguments: write('a.txt', 'A') } }] }),
    );
    res.write(
      chunk({ tool_calls: [{ type: 'function', function: { name: 'write_file', arguments: write('b.txt', 'B') } }] }),
    );
    res.write(chunk({}, 'tool_calls'));
  });
  assert.equal(result.status, 'done');
  assert.equal(result.toolCalls, 2);
  assert.ok(existsSync(path.join(root, 'a.txt')) && existsSync(path.join(root, 'b.txt')));
  assert.deepEqual(pairingViolations(conversation.messages()), []);
});

test('a tool call with a huge index fails the reply at once with the index named, nothing run', async (t) => {
  for (const index of [4294967295, -1, 1.5, MAX_TOOL_CALLS]) {
    const { result, ms, root } = await runWith(t, (res) => {
      res.write(
        chunk({
          tool_calls: [
            { index, id: 'c', type: 'function', function: { name: 'write_file', arguments: write('a.txt', 'A') } },
          ],
        }),
      );
      res.write(chunk({}, 'tool_calls'));
    });
    assert.equal(result.status, 'error', String(index));
    assert.match(
      result.error!.message,
      new RegExp(`index ${String(index).replace('.', '\\.')}; an index must be an integer`),
    );
    assert.ok(ms < 2_000, `${ms} ms`);
    assert.equal(existsSync(path.join(root, 'a.txt')), false);
  }
});

test('indexed calls keep index order, repeated names are not doubled, and a reply past the call bound fails', () => {
  const a = new ToolCallAssembler();
  a.add([{ index: 1, id: 'b', function: { name: 'read_file', arguments: '{"path":"b"}' } }]);
  a.add([{ index: 0, id: 'a', function: { name: 'read_file', arguments: '{"path":' } }]);
  a.add([{ index: 0, function: { name: 'read_file', arguments: '"a"}' } }]);
  assert.deepEqual(a.calls(), [
    { id: 'a', name: 'read_file', arguments: '{"path":"a"}' },
    { id: 'b', name: 'read_file', arguments: '{"path":"b"}' },
  ]);
  const many = new ToolCallAssembler();
  assert.throws(
    () => {
      for (let i = 0; i <= MAX_TOOL_CALLS; i++) many.add([{ id: `c${i}`, function: { name: 'x', arguments: '{}' } }]);
    },
    { message: new RegExp(`more than ${MAX_TOOL_CALLS} tool calls`) },
  );
  assert.throws(() => new ToolCallAssembler().add('nope'), /not an array/);
  assert.throws(() => new ToolCallAssembler().add([null]), /not an object/);
});
