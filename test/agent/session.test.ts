import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentSession, InMemoryConversation } from '../../src/agent/session';
import { WorkspaceTools, CANCELLED_RESULT } from '../../src/agent/tools';
import { NodeToolHost } from '../../src/agent/node-host';
import { chunked, scripted, text, toolCalls } from '../../src/demo/modelserver/replies';
import { loopback, pairingViolations, sleep, tempWorkspace } from './helpers';
import { CANCELLED_REPLY_MARKER } from '../../src/agent/cancelled-reply';

const call = (id: string, name: string, args: object) => ({ id, name, arguments: JSON.stringify(args) });

test('streams text, runs parallel tool calls, appends results in call order and records usage', async (t) => {
  const ws = tempWorkspace({ 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 2;\n' });
  const lb = await loopback(
    scripted([
      toolCalls(
        [call('c1', 'read_file', { path: 'src/a.ts' }), call('c2', 'list_directory', { path: 'src' })],
        'Looking.',
      ),
      { ...chunked(['All ', 'done.']), usage: { prompt_tokens: 321, completion_tokens: 2 } },
    ]),
  );
  t.after(async () => {
    await lb.close();
    ws.cleanup();
  });
  const conversation = new InMemoryConversation([{ role: 'system', content: 'You are a coding agent.' }]);
  const deltas: string[] = [];
  const usages: number[] = [];
  const session = new AgentSession({
    client: lb.client,
    model: 'loopback-model',
    tools: new WorkspaceTools(new NodeToolHost(ws.root)),
    conversation,
    hooks: { onTextDelta: (_id, d) => deltas.push(d), onUsage: (u) => usages.push(u.promptTokens) },
  });
  const result = await session.runTask('Read a.ts', new AbortController().signal);
  assert.equal(result.status, 'done');
  assert.equal(result.finalText, 'All done.');
  assert.equal(result.modelCalls, 2);
  assert.equal(result.toolCalls, 2);
  assert.equal(deltas.join(''), 'Looking.All done.');
  assert.equal(usages.length, 2);
  assert.equal(usages[1], 321);
  const messages = conversation.messages();
  assert.deepEqual(
    messages.map((m) => m.role),
    ['system', 'user', 'assistant', 'tool', 'tool', 'assistant'],
  );
  assert.deepEqual(pairingViolations(messages), []);
  assert.match(String(messages[3].content), /export const a = 1;/);
  assert.match(String(messages[4].content), /a\.ts\nb\.ts/);
  // The request asked for usage and carried the tool schemas.
  const body = lb.server.requests[0];
  assert.deepEqual(body.stream_options, { include_usage: true });
  assert.equal((body.tools ?? []).length, 7);
  // The second request carried both results.
  assert.equal((lb.server.requests[1].messages ?? []).length, 5);
});

test('cancel while a tool runs: running and pending calls get a cancelled result, transcript valid', async (t) => {
  const ws = tempWorkspace({ 'x.txt': 'x' });
  const lb = await loopback(
    scripted([
      toolCalls([call('c1', 'run_command', { command: 'sleep 5' }), call('c2', 'read_file', { path: 'x.txt' })]),
      text('never'),
    ]),
  );
  t.after(async () => {
    await lb.close();
    ws.cleanup();
  });
  const conversation = new InMemoryConversation();
  const controller = new AbortController();
  const session = new AgentSession({
    client: lb.client,
    model: 'm',
    tools: new WorkspaceTools(new NodeToolHost(ws.root), { autoApprove: { commands: true } }),
    conversation,
    hooks: {
      onStateChange: (s) => {
        if (s === 'running-tool') setTimeout(() => controller.abort(), 50);
      },
    },
  });
  const started = Date.now();
  const result = await session.runTask('go', controller.signal);
  assert.equal(result.status, 'cancelled');
  assert.ok(Date.now() - started < 3000, 'the running command was killed');
  const messages = conversation.messages();
  assert.deepEqual(
    messages.map((m) => m.role),
    ['user', 'assistant', 'tool', 'tool'],
  );
  assert.equal(messages[2].content, CANCELLED_RESULT);
  assert.deepEqual(pairingViolations(messages), []);
  assert.equal(lb.server.requests.length, 1, 'no model call after cancel');
});

test('cancel while streaming keeps the partial text, marked, and drops unfinished tool calls', async (t) => {
  const lb = await loopback(
    scripted([
      {
        chunks: ['Now ', "I'll ", 'edit ', 'the ', 'file'],
        chunkDelayMs: 40,
        toolCalls: [call('c1', 'read_file', { path: 'a' })],
      },
    ]),
  );
  t.after(() => lb.close());
  const conversation = new InMemoryConversation();
  const controller = new AbortController();
  const ws = tempWorkspace();
  t.after(ws.cleanup);
  const session = new AgentSession({
    client: lb.client,
    model: 'm',
    tools: new WorkspaceTools(new NodeToolHost(ws.root)),
    conversation,
    hooks: {
      onTextDelta: () => {
        if (!controller.signal.aborted) setTimeout(() => controller.abort(), 60);
      },
    },
  });
  const result = await session.runTask('go', controller.signal);
  assert.equal(result.status, 'cancelled');
  const messages = conversation.messages();
  assert.equal(messages.length, 2);
  assert.equal(messages[1].role, 'assistant');
  assert.ok(String(messages[1].content).endsWith(CANCELLED_REPLY_MARKER));
  assert.equal((messages[1] as { tool_calls?: unknown }).tool_calls, undefined);
  assert.deepEqual(pairingViolations(messages), []);
});

test('the step limit ends a run that keeps calling tools, with every call answered', async (t) => {
  const ws = tempWorkspace({ 'a.txt': 'a' });
  let n = 0;
  const lb = await loopback(() => toolCalls([call(`c${++n}`, 'read_file', { path: 'a.txt' })]));
  t.after(async () => {
    await lb.close();
    ws.cleanup();
  });
  const conversation = new InMemoryConversation();
  const session = new AgentSession({
    client: lb.client,
    model: 'm',
    tools: new WorkspaceTools(new NodeToolHost(ws.root)),
    conversation,
    maxSteps: 3,
  });
  const result = await session.runTask('loop', new AbortController().signal);
  assert.equal(result.status, 'step-limit');
  assert.equal(result.modelCalls, 3);
  assert.deepEqual(pairingViolations(conversation.messages()), []);
});

test('a model error ends the run with status error and leaves the transcript valid', async (t) => {
  const lb = await loopback(() => ({ type: 'status', status: 400, message: 'bad request' }));
  t.after(() => lb.close());
  const ws = tempWorkspace();
  t.after(ws.cleanup);
  const conversation = new InMemoryConversation();
  const session = new AgentSession({
    client: lb.client,
    model: 'm',
    tools: new WorkspaceTools(new NodeToolHost(ws.root)),
    conversation,
  });
  const result = await session.runTask('hi', new AbortController().signal);
  assert.equal(result.status, 'error');
  assert.match(result.error?.message ?? '', /bad request/);
  assert.deepEqual(
    conversation.messages().map((m) => m.role),
    ['user'],
  );
  await sleep(0);
});
