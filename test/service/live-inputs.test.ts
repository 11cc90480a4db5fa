/**
 * What real servers send to a live agent: two tool calls with one id inside one reply, `call_0` in
 * every step, and usage from a proxy that leaves cached tokens out of `prompt_tokens`. Each is checked
 * through a real context service and a loopback model server speaking the OpenAI wire protocol.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatMessage } from '../../src/compaction/types';
import { checkContext, checkToolPairing } from '../../src/compaction/plan/invariants';
import { text, toolCalls } from '../../src/demo/modelserver/replies';
import { modelUsageOf, uniqueCallIds } from '../../src/agent/session';
import { itemsForEntry, type ToolNames } from '../../src/views/sidebar/transcript-items';
import { compactionDetailOf } from '../../src/views/sidebar/view-mappers';
import { filler, promptTokensOf, serviceFixture } from './fixtures';
import { loopback } from '../agent/helpers';

test('two calls with the same id in one reply get unique ids before anything is stored or sent; each result answers its own call', async (t) => {
  const fx = await serviceFixture(
    (_body, n) =>
      n === 1
        ? toolCalls([
            { id: 'call_0', name: 'read_file', arguments: JSON.stringify({ path: 'a.txt' }) },
            { id: 'call_0', name: 'read_file', arguments: JSON.stringify({ path: 'b.txt' }) },
          ])
        : text('Both read.'),
    { files: { 'a.txt': 'CONTENT-OF-A', 'b.txt': 'CONTENT-OF-B' } },
  );
  t.after(fx.cleanup);
  const started: string[] = [];
  const sub = fx.service.onDidStartToolCall((e) => started.push(e.callId));
  t.after(() => sub.dispose());
  const outcome = await fx.service.runTask('Read a.txt and b.txt.');
  assert.equal(outcome.status, 'done');
  assert.equal(new Set(started).size, 2, `tool call events carry distinct ids: ${started.join(', ')}`);
  const sent = fx.requests[1].messages as ChatMessage[];
  assert.deepEqual(checkToolPairing(sent), []);
  const assistant = sent.find((m) => m.role === 'assistant') as {
    tool_calls: Array<{ id: string; function: { arguments: string } }>;
  };
  const [a, b] = assistant.tool_calls;
  assert.equal(a.id, 'call_0', 'the first call keeps its id');
  assert.notEqual(b.id, a.id);
  const results = new Map(
    sent.filter((m) => m.role === 'tool').map((m) => [(m as { tool_call_id: string }).tool_call_id, String(m.content)]),
  );
  assert.match(results.get(a.id)!, /CONTENT-OF-A/);
  assert.match(results.get(b.id)!, /CONTENT-OF-B/);
  const { entries, context } = fx.service.getTranscript();
  assert.deepEqual(checkContext(context, entries), []);
});

test('unique ids: only in-reply duplicates change, missing ids are given, and a renamed id never clashes with another call', () => {
  const calls = uniqueCallIds([{ id: 'x' }, { id: 'x' }, { id: 'x_2' }, { id: '' }, { id: 'x' }], 'm7');
  const ids = calls.map((c) => c.id);
  assert.equal(new Set(ids).size, ids.length, ids.join(', '));
  assert.equal(ids[0], 'x');
  assert.equal(ids[2], 'x_2');
  assert.equal(ids[3], 'call_m7_3');
});

test('call_0 in every step: compaction runs, every request is valid, and collapsed records, checkpoint details and sidebar lines name the right call', async (t) => {
  const files: Record<string, string> = {};
  for (let i = 1; i <= 8; i++) files[`src/f${i}.txt`] = filler(120, `file${i}`);
  const fx = await serviceFixture(
    (_body, n) =>
      n <= 8
        ? toolCalls([
            {
              id: 'call_0',
              name: n % 2 ? 'read_file' : 'list_files',
              arguments: JSON.stringify({ path: n % 2 ? `src/f${n}.txt` : 'src' }),
            },
          ])
        : text('Read them all.'),
    { files, window: 8_000, reserved: 500 },
  );
  t.after(fx.cleanup);
  const outcome = await fx.service.runTask('Read every file under src/.');
  assert.equal(outcome.status, 'done');
  assert.ok(outcome.compactions >= 1, `compactions: ${outcome.compactions}`);
  for (const [k, body] of fx.requests.entries()) {
    assert.deepEqual(checkToolPairing(body.messages as ChatMessage[]), [], `request ${k + 1}`);
    assert.ok(promptTokensOf(body) <= fx.service.getBudget().inputBudget, `request ${k + 1} fits`);
  }
  const { entries, context } = fx.service.getTranscript();
  assert.deepEqual(checkContext(context, entries), []);
  const byId = new Map(entries.map((e) => [e.id, e]));
  // Which call each raw result answers: the assistant entry right before its run of results.
  const callOf = new Map<string, { name: string; arguments: string }>();
  let step: Array<{ id: string; function: { name: string; arguments: string } }> = [];
  for (const e of entries) {
    if (e.message.role === 'assistant') step = (e.message as { tool_calls?: typeof step }).tool_calls ?? [];
    if (e.message.role === 'tool')
      callOf.set(e.id, step.find((c) => c.id === (e.message as { tool_call_id: string }).tool_call_id)!.function);
  }
  const collapsed = context.filter((i) => i.kind === 'collapsed');
  const replacedResults = fx.service
    .getCheckpoints()
    .flatMap((c) => c.replacedIds)
    .filter((id) => byId.get(id)?.message.role === 'tool');
  assert.ok(
    collapsed.length + replacedResults.length >= 2,
    `results collapsed ${collapsed.length}, replaced ${replacedResults.length}`,
  );
  for (const item of collapsed) {
    const call = callOf.get(item.covers[0])!;
    assert.match(String(item.message.content), new RegExp(`\\] ${call.name} `), `record of ${item.covers[0]}`);
  }
  // Sidebar lines: one line per call, each keyed apart, each result named by its own call.
  const names: ToolNames = new Map();
  const lines = entries.flatMap((e) => itemsForEntry(e, names, { running: new Set(), outcomes: new Map() }));
  const callLines = lines.filter((l) => l.kind === 'tool-call');
  assert.equal(new Set(callLines.map((l) => l.id)).size, callLines.length, 'tool-call lines have distinct ids');
  for (const l of lines)
    if (l.kind === 'tool-result') assert.equal(l.name, callOf.get(l.entryId)!.name, `result ${l.entryId}`);
  // Checkpoint details name each replaced result's own tool.
  const checkpoints = fx.service.getCheckpoints();
  const detail = compactionDetailOf(
    { checkpointIds: checkpoints.map((c) => c.id) } as Parameters<typeof compactionDetailOf>[0],
    checkpoints,
    byId,
    names,
    500,
  );
  const toolRows = detail.replaced.filter((r) => r.role === 'tool');
  assert.equal(toolRows.length, new Set(replacedResults).size);
  assert.deepEqual(
    toolRows.map((r) => r.tool),
    [...new Set(replacedResults)].map((id) => callOf.get(id)!.name),
  );
});

test('usage: cached tokens a proxy left out of prompt_tokens are added back (streamed), and the gauge says which figure it shows', async (t) => {
  // The proxy reports a fifth of the prompt and the rest as cached: implausible alone, right with them.
  const fx = await serviceFixture(
    (body, n) => {
      const full = promptTokensOf(body);
      const usage = {
        prompt_tokens: Math.round(full * 0.2),
        completion_tokens: 3,
        prompt_tokens_details: { cached_tokens: full - Math.round(full * 0.2) },
      };
      return n === 1
        ? { ...toolCalls([{ id: 'c1', name: 'read_file', arguments: '{"path":"a.txt"}' }]), usage }
        : text('done', { usage });
    },
    { files: { 'a.txt': filler(50) } },
  );
  t.after(fx.cleanup);
  assert.equal(fx.service.getBudget().exact, false);
  await fx.service.runTask('Read a.txt.');
  const budget = fx.service.getBudget();
  assert.equal(budget.exact, true);
  assert.ok(budget.cachedAdded && budget.cachedAdded > 0, JSON.stringify(budget));
  assert.match(budget.usedSource ?? '', /plus the \d+ cached tokens it reported separately/);
  const calls = fx.service.getStats().modelCalls;
  assert.ok(
    calls.every((c) => c.cachedPromptTokens > 0 && c.reportedPromptTokens < c.estimatedPromptTokens / 2),
    JSON.stringify(calls),
  );
});

test('usage: a figure far from the count with no cached field is not used, and the gauge says it counts and why', async (t) => {
  const fx = await serviceFixture(() => text('ok', { usage: { prompt_tokens: 3, completion_tokens: 1 } }), {});
  t.after(fx.cleanup);
  await fx.service.runTask('Hello.');
  const budget = fx.service.getBudget();
  assert.equal(budget.exact, false);
  assert.match(
    budget.usedSource ?? '',
    /counted locally: the provider reported 3 prompt tokens where the count is \d+/,
  );
});

test('usage: cached tokens are read from a non-streamed completion and a streamed final chunk alike', async (t) => {
  const usage = { prompt_tokens: 1200, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 1024 } };
  const lb = await loopback(() => text('hi', { usage }));
  t.after(lb.close);
  const whole = await lb.client.chat.completions.create({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.deepEqual(modelUsageOf(whole.usage), { promptTokens: 1200, completionTokens: 7, cachedTokens: 1024 });
  const stream = await lb.client.chat.completions.create({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let last: unknown;
  for await (const chunk of stream) if (chunk.usage) last = chunk.usage;
  assert.deepEqual(modelUsageOf(last), { promptTokens: 1200, completionTokens: 7, cachedTokens: 1024 });
  assert.equal(modelUsageOf({ prompt_tokens: 'x' }), undefined);
  assert.deepEqual(modelUsageOf({ prompt_tokens: 5, prompt_tokens_details: null }), {
    promptTokens: 5,
    completionTokens: 0,
    cachedTokens: 0,
  });
});
