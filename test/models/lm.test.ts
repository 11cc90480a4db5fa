/** The VS Code language-model adapter against a typed fake of the API: tool calls, cancellation, errors, summaries. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type OpenAI from 'openai';
import { AgentSession, InMemoryConversation } from '../../src/agent/session';
import { WorkspaceTools } from '../../src/agent/tools';
import { NodeToolHost } from '../../src/agent/node-host';
import { LanguageModelClient, selectLmModel } from '../../src/models/lm/client';
import { LanguageModelSourceError } from '../../src/models/lm/errors';
import { OpenAISummarizer } from '../../src/summarizers/openai';
import { pairingViolations, tempWorkspace } from '../agent/helpers';
import {
  ChatMessage,
  FakeChat,
  LanguageModelError,
  TextPart,
  ToolCallPart,
  ToolResultPart,
  fakeApi,
  type Script,
} from './lm-fake';
import { realApiFits } from './lm-api-shape';

function agentOver(
  model: FakeChat,
  root: string,
  conversation = new InMemoryConversation([{ role: 'system', content: 'You are a coding agent.' }]),
  usages: number[] = [],
) {
  const api = fakeApi([model]);
  const client = new LanguageModelClient({ api, model, justification: 'test' });
  const session = new AgentSession({
    client,
    model: model.id,
    tools: new WorkspaceTools(new NodeToolHost(root)),
    conversation,
    hooks: { onUsage: (u) => usages.push(u.promptTokens) },
  });
  return { session, conversation, client };
}

test('the fake is checked against the real @types/vscode surface', () => assert.equal(realApiFits, true));

test('tool calls go through LanguageModelToolCallPart and come back as LanguageModelToolResultPart; usage from countTokens', async (t) => {
  const ws = tempWorkspace({ 'src/a.ts': 'export const a = 1;\n' });
  t.after(ws.cleanup);
  const model = new FakeChat('copilot-gpt-4o', 'gpt-4o', 64_000, [
    { parts: [new TextPart('Reading.'), new ToolCallPart('tc-1', 'read_file', { path: 'src/a.ts' })] },
    { parts: [new TextPart('a is 1.')] },
  ]);
  const usages: number[] = [];
  const { session, conversation } = agentOver(model, ws.root, undefined, usages);
  const result = await session.runTask('What is a?', new AbortController().signal);
  assert.equal(result.status, 'done');
  assert.equal(result.finalText, 'a is 1.');
  const messages = conversation.messages();
  assert.deepEqual(
    messages.map((m) => m.role),
    ['system', 'user', 'assistant', 'tool', 'assistant'],
  );
  assert.deepEqual(pairingViolations(messages), []);
  const assistant = messages[2] as { tool_calls: Array<{ id: string; function: { name: string; arguments: string } }> };
  assert.deepEqual(
    assistant.tool_calls.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)]),
    [['tc-1', 'read_file', { path: 'src/a.ts' }]],
  );

  // The second request carries the call and its result in the API's own parts.
  const second = model.requests[1].messages;
  assert.deepEqual(
    second.map((m) => m.role),
    [1, 1, 2, 1],
    'system and user as user messages, then the assistant, then the result',
  );
  const call = second[2].content.find((p) => p instanceof ToolCallPart) as ToolCallPart;
  assert.deepEqual([call.callId, call.name, call.input], ['tc-1', 'read_file', { path: 'src/a.ts' }]);
  const resultPart = second[3].content[0] as ToolResultPart;
  assert.ok(resultPart instanceof ToolResultPart);
  assert.equal(resultPart.callId, 'tc-1');
  assert.match((resultPart.content[0] as TextPart).value, /export const a = 1/);
  assert.ok(
    model.requests[0].options?.tools?.some((tool) => tool.name === 'read_file' && typeof tool.inputSchema === 'object'),
  );
  assert.equal(model.requests[0].options?.justification, 'test');

  // Calibration: prompt tokens are the model's own counts of what was sent, tools included.
  assert.equal(usages.length, 2);
  const expected = second.reduce((n, m) => n + Math.ceil(JSON.stringify(m.content).length / 4), 0);
  assert.ok(usages[1] > expected, 'messages plus tool schemas');
  const countsBefore = model.countCalls;
  await session.runTask('And again?', new AbortController().signal);
  assert.ok(model.countCalls - countsBefore < second.length + 3, 'messages counted before are not counted again');
});

test('cancellation: aborting the task cancels the API token and the run ends cancelled', async (t) => {
  const ws = tempWorkspace();
  t.after(ws.cleanup);
  const model = new FakeChat('m', 'gpt-4o', 64_000, [{ hangUntilCancelled: true, parts: [new TextPart('Partial')] }]);
  const { session, conversation } = agentOver(model, ws.root);
  const controller = new AbortController();
  const run = session.runTask('Go', controller.signal);
  while (model.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 20));
  controller.abort();
  const result = await run;
  assert.equal(result.status, 'cancelled');
  assert.equal(model.requests[0].token?.isCancellationRequested, true);
  assert.match(String(conversation.messages().at(-1)?.content), /Partial[\s\S]*cancelled/);
});

const errorCases: Array<[string, Script, LanguageModelSourceError['kind'], RegExp]> = [
  [
    'no consent',
    { reject: LanguageModelError.NoPermissions('User did not consent') },
    'no-consent',
    /has not allowed ContextKeeper.*Manage Language Model Access/,
  ],
  [
    'quota / blocked',
    { reject: LanguageModelError.Blocked('Quota exceeded') },
    'blocked',
    /quota or rate limit.*Quota exceeded/,
  ],
  [
    'model gone',
    { reject: LanguageModelError.NotFound('Model not found') },
    'not-found',
    /no longer offered by VS Code/,
  ],
  [
    'overflow while streaming',
    {
      parts: [],
      failAfter: new LanguageModelError('Message exceeds token limit.', 'Unknown', {
        cause: new Error("This model's maximum context length is 64000 tokens."),
      }),
    },
    'overflow',
    /does not fit/,
  ],
  ['anything else', { reject: new Error('socket closed') }, 'other', /failed \(socket closed\)/],
];
for (const [name, script, kind, message] of errorCases) {
  test(`errors are shown clearly: ${name}`, async (t) => {
    const ws = tempWorkspace();
    t.after(ws.cleanup);
    const model = new FakeChat('m', 'gpt-4o', 64_000, [script]);
    const { session } = agentOver(model, ws.root);
    const result = await session.runTask('Go', new AbortController().signal);
    assert.equal(result.status, 'error');
    // The agent may wrap the model's error; the adapter's error is it or its cause.
    const error =
      result.error instanceof LanguageModelSourceError
        ? result.error
        : (result.error as { cause?: unknown } | undefined)?.cause;
    assert.ok(error instanceof LanguageModelSourceError, String(result.error));
    assert.equal(error.kind, kind);
    assert.match(String(result.error?.message), message);
    assert.match(error.message, /Fake gpt-4o \(copilot\)/);
  });
}

test('the summarizer can use an editor model through the same adapter', async () => {
  const model = new FakeChat('m', 'gpt-4o', 64_000, [
    { parts: [new TextPart('## Objective\nFix the parser.\n## Next step\nRun the tests.')] },
  ]);
  const client = new LanguageModelClient({ api: fakeApi([model]), model });
  const summarizer = new OpenAISummarizer({
    baseURL: 'vscode-lm://copilot',
    model: model.id,
    contextWindow: model.maxInputTokens,
    client: client as unknown as OpenAI,
    stream: true,
    maxRetries: 0,
  });
  const items = [
    { role: 'user' as const, content: 'Please fix the parser in src/parse.ts.' },
    { role: 'assistant' as const, content: 'Looking at it. '.repeat(40) },
  ].map((message, i) => ({ id: `r${i}`, kind: 'raw' as const, message, covers: [`r${i}`] }));
  const result = await summarizer.summarize({
    items,
    userRequests: ['Please fix the parser in src/parse.ts.'],
    approximateSummaryTokens: 200,
    maxCalls: 1,
  });
  assert.match(result.text, /Fix the parser/);
  assert.equal(model.requests.length, 1);
  assert.ok(model.requests[0].messages.every((m) => m instanceof ChatMessage));
});

test('model selection: id, family, vendor/family, first offered; nothing offered is explained', async () => {
  const a = new FakeChat('copilot-gpt-4o', 'gpt-4o', 64_000, [], 'copilot');
  const b = new FakeChat('claude-sonnet-4', 'claude-sonnet-4', 128_000, [], 'copilot');
  const c = new FakeChat('local-qwen', 'qwen', 32_000, [], 'other-ext');
  const api = fakeApi([a, b, c]);
  assert.equal(await selectLmModel(api, 'claude-sonnet-4'), b);
  assert.equal(await selectLmModel(api, 'qwen'), c);
  assert.equal(await selectLmModel(api, 'other-ext/qwen'), c);
  assert.equal(await selectLmModel(api, ''), a);
  await assert.rejects(
    selectLmModel(api, 'gpt-9'),
    (e: LanguageModelSourceError) =>
      e.kind === 'no-models' && /copilot\/gpt-4o, copilot\/claude-sonnet-4, other-ext\/qwen/.test(e.message),
  );
  await assert.rejects(selectLmModel(fakeApi([]), ''), /sign in to GitHub Copilot/);
});
