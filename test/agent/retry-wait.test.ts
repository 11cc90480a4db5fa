import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { AgentSession, InMemoryConversation } from '../../src/agent/session';
import { WorkspaceTools } from '../../src/agent/tools';
import { NodeToolHost } from '../../src/agent/node-host';
import { serverRetryDelay, type RetryWait } from '../../src/agent/retry';
import { start } from '../../src/demo/modelserver/wire';
import { text } from '../../src/demo/modelserver/replies';
import type { Responder } from '../../src/demo/modelserver/types';
import { serviceFixture } from '../service/fixtures';
import { tempWorkspace } from './helpers';

const rateLimited =
  (retryAfter: string): Responder =>
  () => ({
    type: 'status',
    status: 429,
    message: 'Rate limit reached. Please retry after the time given.',
    code: 'rate_limit_exceeded',
    headers: { 'retry-after': retryAfter },
  });

async function agent(t: TestContext, responder: Responder, maxRetries = 1, onWait?: (w: RetryWait) => void) {
  const server = await start({ responder });
  const ws = tempWorkspace();
  // The client retries as the extension's does; the loop takes the retries over.
  const client = new OpenAI({ baseURL: server.url, apiKey: 'k', maxRetries, timeout: 10_000 });
  const states: string[] = [];
  const waits: RetryWait[] = [];
  const session = new AgentSession({
    client,
    model: 'loopback-model',
    tools: new WorkspaceTools(new NodeToolHost(ws.root)),
    conversation: new InMemoryConversation([{ role: 'system', content: 'sys' }]),
    hooks: {
      onStateChange: (s, d) => states.push(d ? `${s}: ${d}` : s),
      onRetryWait: (w) => {
        waits.push(w);
        onWait?.(w);
      },
    },
  });
  t.after(async () => {
    await server.close();
    ws.cleanup();
  });
  return { server, session, states, waits };
}

test('cancel ends a wait for a 429 retry at once, however long the server asked to wait', async (t) => {
  for (const retryAfter of ['20', '59']) {
    const controller = new AbortController();
    let cancelledAt = 0;
    // Cancel once the wait has begun (whatever the machine's load), and time from there.
    const { session, server, waits, states } = await agent(t, rateLimited(retryAfter), 1, () =>
      setTimeout(() => {
        cancelledAt = Date.now();
        controller.abort();
      }, 100),
    );
    const result = await session.runTask('Do the thing.', controller.signal);
    const elapsed = Date.now() - cancelledAt;
    assert.equal(result.status, 'cancelled', retryAfter);
    assert.ok(cancelledAt > 0 && elapsed < 1_000, `ended ${elapsed} ms after the cancel (Retry-After ${retryAfter})`);
    assert.equal(server.requests.length, 1, 'no retry was sent after the cancel');
    assert.equal(waits.length, 1);
    assert.equal(waits[0].delayMs, Number(retryAfter) * 1000);
    assert.equal(waits[0].serverAsked, true);
    assert.match(waits[0].reason, /429.*Rate limit reached/);
    assert.ok(
      states.some((s) => new RegExp(`waiting ${retryAfter} s before retry 1 of 1: HTTP 429`).test(s)),
      states.join('\n'),
    );
  }
});

test('a Retry-After beyond the bound fails the call at once with the server reason and the wait asked', async (t) => {
  const { session, server } = await agent(t, rateLimited('3600'));
  const started = Date.now();
  const result = await session.runTask('Do the thing.', new AbortController().signal);
  assert.ok(Date.now() - started < 2_000);
  assert.equal(result.status, 'error');
  assert.match(result.error!.message, /asked to wait 60 min before retrying \(HTTP 429.*Rate limit reached/);
  assert.match(result.error!.message, /waits at most 60 s/);
  assert.equal(server.requests.length, 1);
});

test('a short Retry-After is waited out, shown, and the retried call answers the task', async (t) => {
  const { session, server, waits } = await agent(t, (_b, n) =>
    n === 1 ? rateLimited('0.2')(_b, n) : text('Done after the wait.'),
  );
  const result = await session.runTask('Do the thing.', new AbortController().signal);
  assert.equal(result.status, 'done');
  assert.equal(result.finalText, 'Done after the wait.');
  assert.equal(server.requests.length, 2);
  assert.deepEqual(
    waits.map((w) => w.delayMs),
    [200],
  );
});

test('with no retries allowed a 429 fails the task with the server error, without waiting', async (t) => {
  const { session, server } = await agent(t, rateLimited('20'), 0);
  const started = Date.now();
  const result = await session.runTask('Do the thing.', new AbortController().signal);
  assert.equal(result.status, 'error');
  assert.ok(Date.now() - started < 2_000);
  assert.match(result.error!.message, /Rate limit reached/);
  assert.equal(server.requests.length, 1);
});

test('cancel through the context service ends a task waiting out a Retry-After and the next task runs', async (t) => {
  let limited = true;
  const fx = await serviceFixture((b, n) => (limited ? rateLimited('30')(b, n) : text('fine')));
  t.after(fx.cleanup);
  // The fixture's client allows no retries; this one retries once as the extension's does.
  const client = new OpenAI({ baseURL: fx.client.baseURL, apiKey: 'k', maxRetries: 1 });
  // One writer per session: the first service closes before the session opens with this client.
  fx.service.dispose();
  const service = await fx.reopen({ client });
  let cancelledAt = 0;
  const sub = service.onDidChangeState((change) => {
    if (cancelledAt === 0 && /waiting 30 s before retry 1 of 1: HTTP 429/.test(change.detail ?? '')) {
      cancelledAt = Date.now();
      service.cancel();
    }
  });
  t.after(() => sub.dispose());
  const outcome = await service.runTask('Do the thing.');
  assert.equal(outcome.status, 'cancelled');
  assert.ok(cancelledAt > 0, 'the wait was shown with its reason and length');
  assert.ok(Date.now() - cancelledAt < 1_000, `${Date.now() - cancelledAt} ms after the cancel`);
  limited = false;
  const next = await service.runTask('Again.');
  assert.equal(next.status, 'done');
});

test('Retry-After is read as seconds, as an HTTP date and as retry-after-ms; garbage is ignored', () => {
  const withHeaders = (h: Record<string, string>) => ({ status: 429, headers: new Headers(h) });
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(serverRetryDelay(withHeaders({ 'retry-after': '7' }), now), 7000);
  assert.equal(serverRetryDelay(withHeaders({ 'retry-after': 'Thu, 01 Jan 2026 00:01:00 GMT' }), now), 60_000);
  assert.equal(serverRetryDelay(withHeaders({ 'retry-after-ms': '250', 'retry-after': '7' }), now), 250);
  assert.equal(serverRetryDelay(withHeaders({ 'retry-after': '-5' }), now), undefined);
  assert.equal(serverRetryDelay(withHeaders({ 'retry-after': 'soon' }), now), undefined);
  assert.equal(serverRetryDelay(withHeaders({}), now), undefined);
});
