/** The summary request over the agent's own prefix: what it sends, and when it does not fit. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ContextItem, SummaryRequest, ToolSchema } from '../../src/compaction/types';
import { PREFIX_SAFETY_SHARE, prefixRequest } from '../../src/summarizers/prefix-request';

const count = (text: string) => Math.ceil(text.length / 4);
const tools: ToolSchema[] = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Reads a file.',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
    },
  },
];

function items(): ContextItem[] {
  const raw: ContextItem['message'][] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the failing parser test in src/parser.ts.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/parser.ts"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'export function parse() {}' },
    { role: 'assistant', content: 'The parser returns nothing; I will fix it.' },
    { role: 'user', content: 'Go ahead.' },
  ];
  return raw.map((message, i) => ({ id: `m${i}`, kind: 'raw', message, covers: [`m${i}`] }));
}

function request(tokens: number, summaryTokens = 1000): SummaryRequest {
  const context = items();
  return {
    items: context.slice(1, 5),
    userRequests: [],
    approximateSummaryTokens: summaryTokens,
    maxCalls: 4,
    context: { items: context, tools, start: 1, end: 5, tokens },
  };
}

test("the request is the agent's messages, the same objects in order, plus one user instruction; tools unchanged", () => {
  const r = request(500);
  const built = prefixRequest(r, 32_000, count, 2_000);
  assert.ok('messages' in built, 'reason' in built ? built.reason : '');
  assert.equal(built.messages.length, r.context!.items.length + 1);
  r.context!.items.forEach((item, i) => assert.equal(built.messages[i], item.message));
  assert.equal(built.messages.at(-1)!.role, 'user');
  assert.equal(built.tools, tools);
  assert.match(
    built.instruction,
    /replace messages 2 to 5 of the 6 messages above, from the start of the conversation up to and including message 5 \(the assistant message that begins «The parser returns nothing/,
  );
  assert.match(built.instruction, /Do not call any tool/);
  assert.equal(built.replyTokens, 2_000);
  assert.equal(built.summaryTokens, 1_000);
  assert.ok(built.promptTokens > 500);
});

test('a tight window asks for shorter notes; too tight, or no context, and the framed path applies', () => {
  const window = 10_000;
  const limit = Math.floor(window * (1 - PREFIX_SAFETY_SHARE));
  const instruction =
    (prefixRequest(request(100), window, count, 4_000) as { promptTokens: number }).promptTokens - 100;
  // Room for 1,200 reply tokens: 900 tokens of notes (three quarters), above half the planned 1,000.
  const tight = prefixRequest(request(limit - instruction - 1_200), window, count, 4_000);
  assert.ok('messages' in tight, 'reason' in tight ? tight.reason : '');
  assert.equal(tight.replyTokens, 1_200);
  assert.equal(tight.summaryTokens, 900);
  assert.match(tight.instruction, /in about 900 tokens or fewer/);
  // Room for 600 reply tokens: 450 tokens of notes, below the least worth asking for (512).
  const over = prefixRequest(request(limit - instruction - 600), window, count, 4_000);
  assert.ok('reason' in over);
  assert.match(over.reason, /room for 450 tokens of notes, below 512/);
  const none = prefixRequest({ ...request(100), context: undefined }, window, count, 4_000);
  assert.ok('reason' in none);
});

test('a span in the middle is named by position and by its first and last messages', () => {
  const r = request(500);
  r.context = { ...r.context!, start: 3, end: 5 };
  const built = prefixRequest(r, 32_000, count, 2_000);
  assert.ok('messages' in built);
  assert.match(
    built.instruction,
    /messages 4 to 5 of the 6 messages above, from message 4 \(the tool result for call c1, which begins «export function parse/,
  );
});

test('when the whole request does not fit, its leading part through the span (a shorter cached prefix) is sent', () => {
  const r = request(9_000);
  const ctx = r.context!;
  // The newest two messages hold most of the tokens (a huge tool output after the span).
  r.context = { ...ctx, start: 1, end: 3, itemTokens: [100, 100, 100, 8_000, 350, 350] };
  const built = prefixRequest(r, 10_000, count, 2_000);
  assert.ok('messages' in built, 'reason' in built ? built.reason : '');
  assert.equal(built.messages.length, 4);
  ctx.items.slice(0, 3).forEach((item, i) => assert.equal(built.messages[i], item.message));
  assert.match(built.instruction, /replace messages 2 to 3 of the 3 messages above/);
  assert.ok(built.promptTokens < 2_500, String(built.promptTokens));
  // Without per-item tokens the leading part's size is unknown: framed.
  const unknown = prefixRequest({ ...r, context: { ...r.context, itemTokens: undefined } }, 10_000, count, 2_000);
  assert.ok('reason' in unknown);
});
