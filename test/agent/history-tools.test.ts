/**
 * The agent's history tools: offered only with a conversation, read the raw transcript without
 * touching the workspace or asking for approval, and report bad arguments as failed tool results.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkspaceTools, WORKSPACE_TOOL_SCHEMAS } from '../../src/agent/tools';
import type { ToolHost } from '../../src/agent/types';
import { RECALL_LIMITS, type RecallSource } from '../../src/recall';
import { A, Acalls, S, T, U, entries } from '../support/conversation';

/** A host whose every method fails the test: the history tools must not touch the workspace. */
const untouchable: ToolHost = new Proxy({ root: '/nowhere' } as ToolHost, {
  get(target, key) {
    if (key === 'root') return target.root;
    return () => assert.fail(`the workspace host was used (${String(key)})`);
  },
});

const source: RecallSource = {
  entries: entries([
    S('agent'),
    U('Migrate the billing job to the new queue.'),
    Acalls([['c1', 'run_command', '{"command":"npm test"}']]),
    T('c1', 'FAIL billing.spec.ts: expected queue name "billing-v2"'),
    A('The test expects billing-v2.'),
    U('go on'),
  ]),
  checkpoints: [{ id: 'ck-0a1b2c3d', replacedIds: ['e1', 'e2', 'e3', 'e4'] }],
};

const signal = new AbortController().signal;

test('the history tools are offered with a conversation, state their caps and need no approval', async () => {
  assert.deepEqual(new WorkspaceTools(untouchable).schemas, WORKSPACE_TOOL_SCHEMAS);
  const tools = new WorkspaceTools(untouchable, { history: () => source, autoApprove: {} });
  const names = tools.schemas.map((s) => (s.type === 'function' ? s.function.name : ''));
  assert.deepEqual(names.slice(-2), ['search_history', 'read_history']);
  const search = tools.schemas.find((s) => s.type === 'function' && s.function.name === 'search_history')!;
  assert.ok(search.type === 'function');
  assert.match(
    search.function.description!,
    new RegExp(`At most ${RECALL_LIMITS.maxResults} results and 4,000 characters`),
  );
  assert.match(search.function.description!, /Read-only, no approval/);

  // No approver and nothing auto-approved: a tool that needed approval would fail here.
  const found = await tools.execute({ id: 'h1', name: 'search_history', arguments: '{"query":"billing-v2"}' }, signal);
  assert.equal(found.ok, true, found.content);
  assert.match(found.content, /message 4 \(id e3\), tool result of run_command, replaced by checkpoint ck-0a1b2c3d/);
  const read = await tools.execute(
    { id: 'h2', name: 'read_history', arguments: '{"checkpoint":"ck-0a1b2c3d"}' },
    signal,
  );
  assert.equal(read.ok, true, read.content);
  assert.match(read.content, /│ Migrate the billing job to the new queue\./);
  assert.match(read.content, /── message 2 \(id e1\), user's message, replaced by checkpoint ck-0a1b2c3d/);
});

test('bad history tool arguments come back as failed tool results that say what is wrong', async () => {
  const tools = new WorkspaceTools(untouchable, { history: () => source });
  const cases: Array<[string, RegExp]> = [
    ['{"query":"x","checkpoint":"ck-nope"}', /no checkpoint "ck-nope" in force; known: ck-0a1b2c3d/],
    ['{"query":""}', /the query is empty/],
    ['{"query":"x","limit":3}', /search_history has no argument "limit"/],
    ['{"query":5}', /"query" must be a string/],
  ];
  for (const [args, message] of cases) {
    const outcome = await tools.execute({ id: 'h', name: 'search_history', arguments: args }, signal);
    assert.equal(outcome.ok, false, args);
    assert.match(outcome.content, message);
  }
  const range = await tools.execute({ id: 'h', name: 'read_history', arguments: '{"from":3,"to":2}' }, signal);
  assert.equal(range.ok, false);
  assert.match(range.content, /to 2 is before from 3/);
});
