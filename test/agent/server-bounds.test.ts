import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { AgentSession, InMemoryConversation } from '../../src/agent/session';
import { WorkspaceTools } from '../../src/agent/tools';
import { NodeToolHost } from '../../src/agent/node-host';
import { MAX_REPLY_CHARS } from '../../src/agent/tool-call-stream';
import { boundedFetch, MAX_EVENT_LINE_BYTES } from '../../src/models/bounded-fetch';
import { tempWorkspace } from './helpers';
import { chunk, sseServer } from './sse-server';

function stallWatch(): { stop: () => number } {
  let last = Date.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = Date.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 10);
  return {
    stop: () => {
      clearInterval(timer);
      return worst;
    },
  };
}

async function session(t: TestContext, write: Parameters<typeof sseServer>[0], fetch?: typeof globalThis.fetch) {
  const server = await sseServer(write);
  const ws = tempWorkspace();
  t.after(async () => {
    await server.close();
    ws.cleanup();
  });
  const conversation = new InMemoryConversation([{ role: 'system', content: 'sys' }]);
  const agent = new AgentSession({
    client: new OpenAI({ baseURL: server.url, apiKey: 'k', maxRetries: 0, ...(fetch ? { fetch } : {}) }),
    model: 'm',
    tools: new WorkspaceTools(new NodeToolHost(ws.root), { autoApprove: { edits: true } }),
    conversation,
  });
  return { agent, conversation, server };
}

test('a tool-call argument sent as one 10 MB event is refused at the wire with the limit named, without stalling the event loop', async (t) => {
  const big = JSON.stringify({ path: 'a.txt', content: 'QUJD'.repeat(2_500_000) });
  const { agent, conversation } = await session(
    t,
    (res, n) => {
      if (n === 1) {
        res.write(
          chunk({
            tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: 'write_file', arguments: big } }],
          }),
        );
        res.write(chunk({}, 'tool_calls'));
      } else res.write(chunk({ content: 'done' }, 'stop'));
    },
    boundedFetch(),
  );
  const watch = stallWatch();
  const started = Date.now();
  const result = await agent.runTask('Write it.', new AbortController().signal);
  const worst = watch.stop();
  assert.equal(result.status, 'error');
  assert.match(result.error!.message, new RegExp(`streamed event longer than ${MAX_EVENT_LINE_BYTES} bytes`));
  assert.equal(conversation.messages().length, 2, 'nothing of the refused reply is stored');
  assert.ok(worst < 1_500, `worst stall ${worst} ms`);
  assert.ok(Date.now() - started < 10_000, `${Date.now() - started} ms`);
});

test('arguments streamed in many pieces past the reply bound are refused with the size named', async (t) => {
  const piece = 'QUJD'.repeat(16_384);
  const { agent, conversation } = await session(t, (res, n) => {
    if (n === 1) {
      res.write(
        chunk({
          tool_calls: [
            {
              index: 0,
              id: 'c',
              type: 'function',
              function: { name: 'write_file', arguments: '{"path":"a.txt","content":"' },
            },
          ],
        }),
      );
      for (let i = 0; i * piece.length <= MAX_REPLY_CHARS; i++)
        res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
      res.write(chunk({}, 'tool_calls'));
    } else res.write(chunk({ content: 'done' }, 'stop'));
  });
  const watch = stallWatch();
  const result = await agent.runTask('Write it.', new AbortController().signal);
  const worst = watch.stop();
  assert.equal(result.status, 'error');
  assert.match(result.error!.message, new RegExp(`passed ${MAX_REPLY_CHARS} characters`));
  assert.equal(conversation.messages().length, 2);
  assert.ok(worst < 1_500, `worst stall ${worst} ms`);
});

test('an endless fast stream is stopped at the size bound, and after a cancel of another the next task runs', async (t) => {
  let endless = true;
  let paced = false;
  const { agent } = await session(t, async (res, n) => {
    if (!endless) {
      res.write(chunk({ content: `answer ${n}` }, 'stop'));
      return;
    }
    const piece = chunk({ content: 'z'.repeat(4096) });
    for (let i = 0; i < 100_000 && !res.destroyed; i++) {
      if (!res.write(piece)) await new Promise((r) => res.once('drain', r));
      // The stream to be cancelled is paced, so the cancel and not the size bound ends it on any machine.
      if (paced) await new Promise((r) => setTimeout(r, 5));
    }
    return false;
  });
  const bounded = await agent.runTask('Talk.', new AbortController().signal);
  assert.equal(bounded.status, 'error');
  assert.match(bounded.error!.message, /passed \d+ characters of text and tool-call arguments; it was stopped/);
  paced = true;
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 200);
  const cancelled = await agent.runTask('Talk again.', controller.signal);
  assert.equal(cancelled.status, 'cancelled');
  endless = false;
  paced = false;
  const next = await agent.runTask('Answer.', new AbortController().signal);
  assert.equal(next.status, 'done');
  assert.match(next.finalText, /^answer \d+$/);
});
