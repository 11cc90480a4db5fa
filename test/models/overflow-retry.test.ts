/** The agent loop answers a provider's context-length error with one compaction and one retry. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentSession, InMemoryConversation } from '../../src/agent/session';
import { WorkspaceTools } from '../../src/agent/tools';
import { NodeToolHost } from '../../src/agent/node-host';
import { contextLengthExceeded, scripted, text } from '../../src/demo/modelserver/replies';
import type { Reply } from '../../src/demo/modelserver/wire';
import type { ContextOverflow } from '../../src/models/context-errors';
import { loopback, tempWorkspace } from '../agent/helpers';

async function runWith(replies: Reply[], onOverflow?: (o: ContextOverflow) => Promise<boolean>) {
  const ws = tempWorkspace();
  const lb = await loopback(scripted(replies));
  try {
    const conversation = new InMemoryConversation([{ role: 'system', content: 'sys' }]);
    const overflows: ContextOverflow[] = [];
    const session = new AgentSession({
      client: lb.client,
      model: 'loopback-model',
      tools: new WorkspaceTools(new NodeToolHost(ws.root)),
      conversation,
      hooks: onOverflow
        ? { onContextOverflow: async ({ overflow }) => (overflows.push(overflow), onOverflow(overflow)) }
        : {},
    });
    const result = await session.runTask('Go', new AbortController().signal);
    return { result, requests: lb.server.requests.length, overflows };
  } finally {
    await lb.close();
    ws.cleanup();
  }
}

const llamaOverflow: Reply = {
  type: 'status',
  status: 400,
  body: {
    error: {
      code: 400,
      message:
        'the request exceeds the available context size. try increasing the context size or enable context shift',
      type: 'exceed_context_size_error',
      n_prompt_tokens: 9000,
      n_ctx: 8192,
    },
  },
};

test('an overflow is compacted and the request retried once; the task goes on', async () => {
  const { result, requests, overflows } = await runWith(
    [contextLengthExceeded(140_000, 128_000), text('Done.')],
    async () => true,
  );
  assert.equal(result.status, 'done');
  assert.equal(result.finalText, 'Done.');
  assert.equal(requests, 2);
  assert.deepEqual(
    overflows.map((o) => [o.window, o.promptTokens]),
    [[128_000, 140_000]],
  );
});

test("llama.cpp's shape triggers the same retry", async () => {
  const { result, overflows } = await runWith([llamaOverflow, text('Done.')], async () => true);
  assert.equal(result.status, 'done');
  assert.equal(overflows[0].window, 8192);
});

test('a second overflow on the retry fails the task with the provider error (no loop)', async () => {
  const { result, requests, overflows } = await runWith([contextLengthExceeded(140_000, 128_000)], async () => true);
  assert.equal(result.status, 'error');
  assert.match(String(result.error?.message), /maximum context length/);
  assert.equal(requests, 2);
  assert.equal(overflows.length, 1);
});

test('nothing to compact (hook says false) or no hook: the error stands, no retry', async () => {
  const declined = await runWith([contextLengthExceeded(140_000, 128_000), text('never')], async () => false);
  assert.equal(declined.result.status, 'error');
  assert.equal(declined.requests, 1);
  const bare = await runWith([contextLengthExceeded(140_000, 128_000), text('never')]);
  assert.equal(bare.result.status, 'error');
  assert.equal(bare.requests, 1);
});

test('other errors are not retried', async () => {
  const { result, requests, overflows } = await runWith(
    [{ type: 'status', status: 400, message: 'bad tool schema' }, text('never')],
    async () => true,
  );
  assert.equal(result.status, 'error');
  assert.equal(requests, 1);
  assert.equal(overflows.length, 0);
});
