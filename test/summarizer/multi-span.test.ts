/**
 * Several spans of one compaction (the history and the current task's older steps) in one model
 * call: the reply's parts are split back into one summary per span; a reply that does not split,
 * or spans no single request holds, are summarised span by span.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatMessage, ContextItem, SummaryRequest } from '../../src/compaction/types';
import { compact } from '../../src/compaction/rewrite/compactor';
import { text } from '../../src/demo/modelserver/replies';
import type { ChatRequestBody } from '../../src/demo/modelserver/wire';
import {
  formatParts,
  multiFramedRequest,
  multiPrefixRequest,
  parseParts,
  partHeading,
} from '../../src/summarizers/multi-span';
import { FallbackSummarizer } from '../../src/summarizers/fallback';
import { summaryInstruction } from '../../src/compaction/summary/summary-prompt';
import { items, quarterCount, quarterMeter, requestText, rig } from './fixtures';
import { describeCompaction } from '../../src/compaction/outcome-text';

const NOTES_A =
  '## Objective\nThe user asked for CSV export.\n## Work completed\n- PART-A: the agent read the history files.';
const NOTES_B =
  '## Objective\nThe user asked for tests.\n## Work completed\n- PART-B: the agent read the test helpers.';

test('a reply splits into its parts in order; anything else is refused', () => {
  assert.deepEqual(parseParts(formatParts([NOTES_A, NOTES_B]), 2), [NOTES_A, NOTES_B]);
  assert.deepEqual(parseParts(`\n#  Notes for Part 1:\n${NOTES_A}\n# notes for part 2\n${NOTES_B}\n`, 2), [
    NOTES_A,
    NOTES_B,
  ]);
  assert.equal(parseParts(formatParts([NOTES_A, NOTES_B]), 3), undefined, 'a part missing');
  assert.equal(
    parseParts(`${partHeading(2)}\n${NOTES_B}\n${partHeading(1)}\n${NOTES_A}`, 2),
    undefined,
    'out of order',
  );
  assert.equal(parseParts(`Here are the notes.\n${formatParts([NOTES_A, NOTES_B])}`, 2), undefined, 'a preamble');
  assert.equal(
    parseParts(formatParts([NOTES_A, '## Objective\nnone\n## Work completed\n- none']), 2),
    undefined,
    'an empty part',
  );
  assert.equal(parseParts(NOTES_A, 2), undefined, 'no headings');
});

/** History of three turns, then the latest request and four steps of the current task. */
function session(): ContextItem[] {
  const big = (tag: string) => `${tag} `.repeat(500);
  const m: ChatMessage[] = [{ role: 'system', content: 'You are a coding agent.' }];
  for (let t = 1; t <= 3; t++) {
    m.push({ role: 'user', content: `Export part ${t} as CSV.` });
    m.push({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: `h${t}`,
          type: 'function',
          function: { name: 'read_file', arguments: JSON.stringify({ path: `src/hist${t}.ts` }) },
        },
      ],
    });
    m.push({ role: 'tool', tool_call_id: `h${t}`, content: big(`hist${t}`) });
    m.push({ role: 'assistant', content: `Exported part ${t}.` });
  }
  m.push({ role: 'user', content: 'Now add tests for the export.' });
  for (let s = 1; s <= 4; s++) {
    m.push({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: `d${s}`,
          type: 'function',
          function: { name: 'read_file', arguments: JSON.stringify({ path: `test/step${s}.ts` }) },
        },
      ],
    });
    m.push({ role: 'tool', tool_call_id: `d${s}`, content: big(`step${s}`) });
  }
  return items(m);
}

/** A deep target: the history alone does not reach it, so the current task's older steps are summarised too. */
function deepBudget(context: ContextItem[]) {
  const total = quarterMeter().measure(context).total;
  return { contextWindow: Math.ceil(total / 0.9), reservedOutput: 0, compactAt: 0.8, compactTo: 0.08 };
}

function isPrefixRequest(body: ChatRequestBody): string | undefined {
  const last = body.messages?.at(-1) as ChatMessage | undefined;
  return typeof last?.content === 'string' && last.content.startsWith('[ContextKeeper, not the user')
    ? last.content
    : undefined;
}

test("two spans over the agent's prefix cost one call, and each summary holds its own part", async (t) => {
  const r = await rig(
    (body) => {
      const instruction = isPrefixRequest(body) ?? '';
      return text(instruction.includes(partHeading(2)) ? formatParts([NOTES_A, NOTES_B]) : NOTES_A);
    },
    { contextWindow: 200_000, reusePrefix: true },
  );
  t.after(() => r.close());
  const context = session();
  const result = await compact({
    items: context,
    meter: quarterMeter(),
    summarizer: r.summarizer,
    options: { budget: deepBudget(context), trigger: 'auto', noCollapse: true, keepRecentSteps: 1 },
  });
  assert.ok(result.status.kind === 'applied', describeCompaction(result.status));
  const summaries = result.checkpoints.filter((c) => c.strategy === 'summary');
  assert.equal(summaries.length, 2, 'history and current-task steps');
  assert.equal(r.server.requests.length, 1, 'one model call for both spans');
  const instruction = isPrefixRequest(r.server.requests[0])!;
  assert.match(instruction, /Part 1: messages 2 to 13/);
  assert.match(instruction, /Part 2: messages 15 to /);
  // The agent's messages go unchanged, before the instruction.
  assert.equal(r.server.requests[0].messages!.length, context.length + 1);
  assert.match(summaries[0].summary, /PART-A/);
  assert.doesNotMatch(summaries[0].summary, /PART-B/);
  assert.match(summaries[1].summary, /PART-B/);
  assert.equal(summaries[0].usage?.calls, 1);
  assert.equal(summaries[1].usage?.calls, 0);
});

test('a reply that does not split into its parts: the spans are summarised one by one, and the spent call is counted', async (t) => {
  const r = await rig(() => text(NOTES_A), { contextWindow: 200_000, reusePrefix: true });
  t.after(() => r.close());
  const context = session();
  const result = await compact({
    items: context,
    meter: quarterMeter(),
    summarizer: r.summarizer,
    options: { budget: deepBudget(context), trigger: 'auto', noCollapse: true, keepRecentSteps: 1 },
  });
  assert.ok(result.status.kind === 'applied', describeCompaction(result.status));
  const summaries = result.checkpoints.filter((c) => c.strategy === 'summary');
  assert.equal(summaries.length, 2);
  assert.equal(r.server.requests.length, 3, 'the combined call, then one per span');
  assert.equal(
    summaries.reduce((n, c) => n + (c.usage?.calls ?? 0), 0),
    3,
  );
});

test("framed (not the session's model): the spans as two delimited parts of one call when they fit whole", async (t) => {
  const r = await rig(
    (body) => {
      const user = (body.messages ?? []).find((m) => (m as ChatMessage).role === 'user') as
        { content?: string } | undefined;
      return text(
        (user?.content ?? '').includes('Part 2 of the conversation') ? formatParts([NOTES_A, NOTES_B]) : NOTES_A,
      );
    },
    { contextWindow: 200_000 },
  );
  t.after(() => r.close());
  const context = session();
  const result = await compact({
    items: context,
    meter: quarterMeter(),
    summarizer: r.summarizer,
    options: { budget: deepBudget(context), trigger: 'auto', noCollapse: true, keepRecentSteps: 1 },
  });
  assert.ok(result.status.kind === 'applied', describeCompaction(result.status));
  assert.equal(r.server.requests.length, 1);
  const user = r.server.requests[0].messages!.find((m) => (m as ChatMessage).role === 'user') as { content: string };
  assert.equal(user.content.split('<conversation_data>').length - 1, 2, 'one data block per span');
  assert.match(user.content, /hist1/);
  assert.match(user.content, /step1/);
  assert.equal(r.server.requests[0].tools, undefined, 'the framed request carries no tools');
});

test('spans that no single request holds are summarised span by span, with no combined call', async (t) => {
  const r = await rig(() => text(NOTES_A), { contextWindow: 2_600 });
  t.after(() => r.close());
  const context = session();
  const requests: SummaryRequest[] = [
    {
      items: context.slice(1, 13),
      userRequests: [],
      approximateSummaryTokens: 300,
      maxCalls: 4,
      context: { items: context, start: 1, end: 13, tokens: 6_000 },
    },
    {
      items: context.slice(14, 20),
      userRequests: [],
      approximateSummaryTokens: 300,
      maxCalls: 4,
      context: { items: context, start: 14, end: 20, tokens: 6_000 },
    },
  ];
  assert.ok('reason' in multiPrefixRequest(requests, 2_600, quarterCount, 650));
  assert.equal(multiFramedRequest(requests, 2_600, quarterCount, 650), undefined);
  assert.equal(await r.summarizer.summarizeSpans(requests), undefined);
  assert.equal(r.server.requests.length, 0);
});

test('the fallback chain passes several spans to its primary in one call', async (t) => {
  const r = await rig(
    (body) => text((isPrefixRequest(body) ?? '').includes(partHeading(2)) ? formatParts([NOTES_A, NOTES_B]) : NOTES_A),
    { contextWindow: 200_000, reusePrefix: true },
  );
  t.after(() => r.close());
  const chain = new FallbackSummarizer(r.summarizer);
  assert.equal(chain.reusesPrefix, true);
  const context = session();
  const result = await compact({
    items: context,
    meter: quarterMeter(),
    summarizer: chain,
    options: { budget: deepBudget(context), trigger: 'auto', noCollapse: true, keepRecentSteps: 1 },
  });
  assert.ok(result.status.kind === 'applied', describeCompaction(result.status));
  assert.equal(result.checkpoints.filter((c) => c.strategy === 'summary').length, 2);
  assert.equal(r.server.requests.length, 1);
});

test('framed: a span that fits one call without room for earlier notes is one call; with notes at half length if need be; larger spans are batched', async (t) => {
  const window = 6_000;
  const fixed = quarterCount(summaryInstruction()) + 120;
  const reply = 1_000; // twice the 500 tokens of notes asked, at most a quarter of the window
  const safety = window * 0.05;
  const sizes = {
    // Over the old reserve (room for the reply and for earlier notes), within one call's.
    full: window - fixed - reply - safety - 150,
    // Only within one call with the reply halved.
    half: window - fixed - 512 - safety - 150,
    batched: 2 * window,
  };
  const asked: Array<{ calls: number; limit: number[]; text: string }> = [];
  for (const [name, tokens] of Object.entries(sizes)) {
    const r = await rig(() => text(NOTES_A), { contextWindow: window });
    t.after(() => r.close());
    const span = items([
      { role: 'user', content: 'Read the log.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_log', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'log line '.repeat(Math.floor((tokens * 4) / 9)) },
      { role: 'assistant', content: 'The log shows one warning.' },
    ]);
    await r.summarizer.summarize({
      items: span,
      userRequests: ['Read the log.'],
      approximateSummaryTokens: 500,
      maxCalls: 8,
    });
    asked.push({
      calls: r.server.requests.length,
      limit: r.server.requests.map((b) => Number(b.max_completion_tokens)),
      text: requestText(r.server.requests[0]),
    });
    assert.ok(name.length > 0);
  }
  const [full, half, batched] = asked;
  assert.equal(full.calls, 1);
  assert.deepEqual(full.limit, [reply]);
  assert.match(full.text, /in about 500 tokens or fewer/);
  assert.equal(half.calls, 1);
  // Half the reply limit, at least 512 tokens; the notes asked for, half of that.
  assert.deepEqual(half.limit, [512]);
  assert.match(half.text, /in about 256 tokens or fewer/);
  assert.ok(batched.calls > 2, `${batched.calls} calls`);
  assert.ok(batched.limit.every((l) => l === reply));
});
