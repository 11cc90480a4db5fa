/**
 * Summaries on the session's own model reuse the provider's prompt cache: the summary request is the
 * agent's current request unchanged plus the instruction; otherwise (too large for the window,
 * another endpoint) the span is framed as data. Replies are checked as before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { ChatMessage } from '../../src/compaction/types';
import { OpenAISummarizer } from '../../src/summarizers/openai';
import { reusesSessionPrefix, summarizerFromSettings } from '../../src/summarizers/from-options';
import { contextLengthExceeded, text, toolCalls } from '../../src/demo/modelserver/replies';
import { start, type ChatRequestBody, type Responder } from '../../src/demo/modelserver/wire';
import { TRANSCRIPT_OPEN } from '../../src/compaction/summary/summary-prompt';
import { approximateCounter, filler, serviceFixture } from './fixtures';
import { describeOutcome } from '../../src/service/compaction/outcome';

const NOTES =
  '## Objective\nThe user asked the agent to read three files.\n## Work completed\n- The agent read f1.txt, f2.txt and f3.txt.';
const files = { 'f1.txt': filler(110, 'a'), 'f2.txt': filler(110, 'b'), 'f3.txt': filler(110, 'c') };

/** A summary request over the agent's prefix ends with the compaction instruction. */
function isPrefixSummary(body: ChatRequestBody): boolean {
  const last = body.messages?.at(-1) as ChatMessage | undefined;
  return (
    typeof last?.content === 'string' && last.content.startsWith('[ContextKeeper, not the user: a compaction request')
  );
}

/** A framed summary request: the instruction as system message, the span as delimited data. */
function isFramedSummary(body: ChatRequestBody): boolean {
  const first = body.messages?.[0] as ChatMessage | undefined;
  return typeof first?.content === 'string' && first.content.startsWith('You write the working notes');
}

/** Three tasks, each reading one file; summary requests answered with `summary`. */
function agent(summary: (body: ChatRequestBody) => ReturnType<Responder> = () => text(NOTES)): Responder {
  let step = 0;
  return (body) => {
    if (isPrefixSummary(body) || isFramedSummary(body)) return summary(body);
    step++;
    return step % 2 === 1
      ? toolCalls([
          { id: `r${step}`, name: 'read_file', arguments: JSON.stringify({ path: `f${(step + 1) / 2}.txt` }) },
        ])
      : text(`Read file ${step / 2}.`);
  };
}

/** Window 8,000, reserve 1,000, automatic compaction off: the tests compact by hand. */
const budget = { window: 8_000, reserved: 1_000, compactAt: 1, compactTo: 0.5, files };

async function threeTasks(fx: Awaited<ReturnType<typeof serviceFixture>>): Promise<void> {
  for (let i = 1; i <= 3; i++) {
    const outcome = await fx.service.runTask(`Read f${i}.txt and say what it holds.`);
    assert.equal(outcome.status, 'done');
  }
}

/** JSON round trip: what the wire carries. */
const wire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

test("a summary on the session's own model sends the agent's prefix unchanged plus the instruction, with tool_choice none", async (t) => {
  const late = { inner: undefined as OpenAISummarizer | undefined };
  const fx = await serviceFixture(agent(), {
    ...budget,
    summarizer: { name: 'gpt-4o', contextWindow: 8_000, summarize: (r) => late.inner!.summarize(r) },
  });
  t.after(fx.cleanup);
  late.inner = new OpenAISummarizer({
    baseURL: 'http://unused.invalid/v1',
    client: fx.client,
    model: 'gpt-4o',
    contextWindow: 8_000,
    countText: approximateCounter.countText,
    reusePrefix: true,
    maxRetries: 0,
  });
  await threeTasks(fx);
  const lastAgentRequest = fx.requests.at(-1)!;
  const prefix = fx.service.getMessages();
  const tools = fx.service.getToolSchemas();

  const outcome = await fx.service.compactNow();
  assert.equal(outcome.status.kind, 'applied', describeOutcome(outcome.status));
  // One request per span replaced (the earlier tasks, then the current task's older steps).
  const summaries = fx.requests.filter(isPrefixSummary);
  assert.ok(summaries.length >= 1);
  assert.equal(fx.requests.filter(isFramedSummary).length, 0);
  for (const body of summaries) {
    const messages = body.messages as ChatMessage[];
    // Same messages in the same roles, in order, then one user message: the instruction.
    assert.deepEqual(messages.slice(0, -1), wire(prefix));
    assert.equal(messages.at(-1)!.role, 'user');
    // The provider's cached prefix is the agent's last request: the summary request starts with it.
    assert.deepEqual(messages.slice(0, lastAgentRequest.messages!.length), lastAgentRequest.messages);
    assert.deepEqual(body.tools, wire(tools));
    assert.deepEqual(body.tools, lastAgentRequest.tools);
    assert.equal(body.tool_choice, 'none');
    assert.equal(body.model, lastAgentRequest.model);
  }
  // The instruction names the part to replace and asks for text only.
  assert.match(
    String((summaries[0].messages as ChatMessage[]).at(-1)!.content),
    /Write the working notes that will replace messages 2 to \d+ of the \d+ messages above, from the start of the conversation/,
  );
  const checkpoint = fx.service.getCheckpoints().find((c) => c.strategy === 'summary');
  assert.ok(checkpoint, 'a summary checkpoint');
  assert.equal(checkpoint.usage?.prefixCalls, 1);
  assert.equal(checkpoint.usage?.calls, 1);
  // Requests are carried forward verbatim although the model's notes left them out.
  for (let i = 1; i <= 2; i++)
    assert.ok(checkpoint.summary.includes(`Read f${i}.txt and say what it holds.`), `request ${i} carried forward`);
});

test("a prefix over the session model's window falls back to the framed, batched request", async (t) => {
  const late = { inner: undefined as OpenAISummarizer | undefined };
  const fx = await serviceFixture(agent(), {
    ...budget,
    summarizer: { name: 'gpt-4o', contextWindow: 3_000, summarize: (r) => late.inner!.summarize(r) },
  });
  t.after(fx.cleanup);
  // The summarizer's window (3,000 tokens) cannot hold the agent's prefix (about 5,000).
  late.inner = new OpenAISummarizer({
    baseURL: 'http://unused.invalid/v1',
    client: fx.client,
    model: 'gpt-4o',
    contextWindow: 3_000,
    countText: approximateCounter.countText,
    reusePrefix: true,
    maxRetries: 0,
  });
  await threeTasks(fx);
  const outcome = await fx.service.compactNow();
  assert.equal(outcome.status.kind, 'applied', describeOutcome(outcome.status));
  assert.equal(fx.requests.filter(isPrefixSummary).length, 0);
  const framed = fx.requests.filter(isFramedSummary);
  assert.ok(framed.length >= 1);
  for (const body of framed) {
    assert.equal(body.messages!.length, 2);
    assert.equal(body.tools, undefined);
    assert.ok(String((body.messages![1] as ChatMessage).content).includes(TRANSCRIPT_OPEN));
  }
});

test("a summary endpoint other than the session's gets the framed request, masked", async (t) => {
  const other = await start({ responder: () => text(NOTES) });
  t.after(() => other.close());
  const session = { baseUrl: 'http://127.0.0.1:1/v1', model: 'gpt-4o' };
  const settings = { baseUrl: other.url, model: 'gpt-4o' };
  assert.equal(reusesSessionPrefix(session, settings), false);
  const summarizer = summarizerFromSettings({
    ...settings,
    countText: approximateCounter.countText,
    maxRetries: 0,
    maskSecrets: true,
    reusePrefix: reusesSessionPrefix(session, settings),
  });
  const fx = await serviceFixture(agent(), { ...budget, summarizer });
  t.after(fx.cleanup);
  await threeTasks(fx);
  const outcome = await fx.service.compactNow();
  assert.equal(outcome.status.kind, 'applied', describeOutcome(outcome.status));
  assert.equal(fx.requests.filter((b) => isPrefixSummary(b) || isFramedSummary(b)).length, 0);
  assert.ok(other.requests.length >= 1);
  assert.ok(other.requests.every(isFramedSummary));
});

test("the session's own model is recognised by model and endpoint", () => {
  const session = { baseUrl: 'http://127.0.0.1:8000/v1', model: 'qwen3-coder' };
  assert.equal(reusesSessionPrefix(session, { model: 'qwen3-coder' }), true);
  assert.equal(reusesSessionPrefix(session, { model: 'qwen3-coder', baseUrl: 'http://127.0.0.1:8000/v1' }), true);
  assert.equal(reusesSessionPrefix(session, { model: 'qwen3-coder', baseUrl: 'http://127.0.0.1:9000/v1' }), false);
  assert.equal(reusesSessionPrefix(session, { model: 'other-model' }), false);
  assert.equal(reusesSessionPrefix(session, { model: '' }), false);
  assert.equal(reusesSessionPrefix({ ...session, modelSource: 'vscode' }, { model: 'qwen3-coder' }), false);
});

test('a tool call in the reply to a prefix summary is refused and never run; the context is unchanged', async (t) => {
  const late = { inner: undefined as OpenAISummarizer | undefined };
  const write = () =>
    toolCalls([{ id: 'w1', name: 'write_file', arguments: JSON.stringify({ path: 'pwned.txt', content: 'x' }) }]);
  const fx = await serviceFixture(agent(write), {
    ...budget,
    summarizer: { name: 'gpt-4o', contextWindow: 8_000, summarize: (r) => late.inner!.summarize(r) },
  });
  t.after(fx.cleanup);
  late.inner = new OpenAISummarizer({
    baseURL: 'http://unused.invalid/v1',
    client: fx.client,
    model: 'gpt-4o',
    contextWindow: 8_000,
    countText: approximateCounter.countText,
    reusePrefix: true,
    maxRetries: 0,
  });
  await threeTasks(fx);
  const before = fx.service.getMessages();
  const outcome = await fx.service.compactNow();
  assert.notEqual(outcome.status.kind, 'applied');
  assert.match(describeOutcome(outcome.status), /tool call/i);
  assert.equal(fx.requests.filter(isPrefixSummary).length, 1);
  assert.deepEqual(fx.service.getMessages(), before);
  assert.equal(existsSync(path.join(fx.root, 'pwned.txt')), false);
  assert.equal(fx.service.getCheckpoints().length, 0);
});

test('a prefix the server refuses as too long is retried framed', async (t) => {
  const late = { inner: undefined as OpenAISummarizer | undefined };
  const fx = await serviceFixture(
    agent((body) => (isPrefixSummary(body) ? contextLengthExceeded(9_000, 8_000) : text(NOTES))),
    { ...budget, summarizer: { name: 'gpt-4o', contextWindow: 8_000, summarize: (r) => late.inner!.summarize(r) } },
  );
  t.after(fx.cleanup);
  late.inner = new OpenAISummarizer({
    baseURL: 'http://unused.invalid/v1',
    client: fx.client,
    model: 'gpt-4o',
    contextWindow: 8_000,
    countText: approximateCounter.countText,
    reusePrefix: true,
    maxRetries: 0,
  });
  await threeTasks(fx);
  const outcome = await fx.service.compactNow();
  assert.equal(outcome.status.kind, 'applied', describeOutcome(outcome.status));
  const refused = fx.requests.filter(isPrefixSummary).length;
  assert.ok(refused >= 1);
  assert.ok(fx.requests.filter(isFramedSummary).length >= refused);
  assert.ok(fx.service.getCheckpoints().every((c) => !c.usage?.prefixCalls));
});
