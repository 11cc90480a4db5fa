/**
 * Real-world input shapes the core must handle as kinds: failures printed at the end of long output,
 * oversized content as text parts or inside tool-call arguments, reasoning fields, tool output sent
 * in the user role, and the incremental invariant check replay relies on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatMessage, ContextItem, Entry } from '../../src/compaction/types';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { itemsFromEntries, toMessages } from '../../src/compaction/context';
import { compact } from '../../src/compaction/rewrite/compactor';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { checkContext, IncrementalChecker } from '../../src/compaction/plan/invariants';
import { collapsedRecord } from '../../src/compaction/rewrite/collapse';
import { looksLikeError } from '../../src/compaction/text';
import { clipMessageToTokens } from '../../src/compaction/clip';
import { analyze } from '../../src/compaction/plan/structure';
import { DEFAULT_SUMMARY_INSTRUCTION, summaryInstruction } from '../../src/compaction/summary/summary-prompt';
import { generateConversation, quarterCounter, rng } from '../support/generate';
import { describeCompaction } from '../../src/compaction/outcome-text';

const meter = new TokenMeter({ counter: quarterCounter });
const entries = (messages: ChatMessage[]): Entry[] => messages.map((message, i) => ({ id: `e${i}`, message }));
const cleanLines = (n: number, tag: string) =>
  Array.from({ length: n }, (_, k) => `${tag} ${k}: compiled module_${k}.o`).join('\n');

test('a failure on the last lines of long output is collapsed as an error, for every common failure tail', () => {
  const tails = [
    'make: *** [Makefile:12: all] Error 2\nerror: build failed',
    'FAILED tests/test_api.py::test_create - AssertionError',
    'src/app.ts(3,7): error TS2322: Type string is not assignable to type number.',
    'Process exited with code 1',
    '{"exit_code": 2, "stdout": ""}',
    'Command exited with status 1',
  ];
  for (const tail of tails) {
    const text = `${cleanLines(400, 'step')}\n${tail}`;
    assert.equal(looksLikeError(text), true, tail);
    const record = collapsedRecord(
      { role: 'tool', tool_call_id: 'c', content: text },
      { name: 'run_command', arguments: '{"command":"make"}' },
    );
    assert.match(record, /→ error/, tail);
  }
  // Clean long output stays ok, including a clean test summary at the end.
  assert.equal(looksLikeError(`${cleanLines(400, 'step')}\n12 passed, 0 failed\nexit code 0`), false);
  assert.equal(looksLikeError(`${cleanLines(400, 'step')}\n{"exit_code": 0}`), false);
});

test('a summary of a step whose long output fails at the end says it failed', async () => {
  const conv = entries([
    { role: 'user', content: 'Build it.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'run_command', arguments: '{"command":"npm run build"}' } },
      ],
    },
    {
      role: 'tool',
      tool_call_id: 'c1',
      content: `${cleanLines(300, 'bundling')}\nnpm ERR! code ELIFECYCLE\nerror: build failed with exit code 1`,
    },
    { role: 'assistant', content: 'The build ran.' },
    { role: 'user', content: 'Now deploy.' },
    { role: 'assistant', content: 'Deploying.' },
  ]);
  const items = itemsFromEntries(conv);
  const total = meter.measure(items).total;
  const r = await compact({
    items,
    meter,
    summarizer: new ExtractiveSummarizer((t) => meter.countText(t)),
    options: {
      budget: { contextWindow: Math.floor(total / 2), reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
      trigger: 'manual',
      force: true,
      noCollapse: true,
    },
  });
  assert.equal(r.status.kind, 'applied', describeCompaction(r.status));
  const summary = r.context.find((i) => i.kind === 'summary' || i.kind === 'collapsed');
  assert.ok(summary);
  assert.match(String(summary.message.content), /fail|error/i);
});

test('oversized content as text parts is clipped like a string; images in it stay', async () => {
  const big = cleanLines(6000, 'log');
  const conv = entries([
    { role: 'system', content: 'agent' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Here is the log:' },
        { type: 'text', text: big },
        { type: 'image_url', image_url: { url: 'https://example.invalid/a.png' } },
      ],
    },
  ]);
  const items = itemsFromEntries(conv);
  const window = 8000;
  const r = await compact({
    items,
    meter,
    summarizer: new ExtractiveSummarizer((t) => meter.countText(t)),
    options: {
      budget: { contextWindow: window, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
      trigger: 'manual',
      force: true,
    },
  });
  assert.equal(r.status.kind, 'applied', describeCompaction(r.status));
  assert.ok(r.tokensAfter <= window, `${r.tokensAfter} fits ${window}`);
  const content = r.context[1].message.content as Array<{ type: string; text?: string }>;
  assert.equal(content.length, 3);
  assert.equal(content[0].text, 'Here is the log:');
  assert.match(content[1].text!, /characters clipped/);
  assert.equal(content[2].type, 'image_url');
});

test('huge tool-call arguments in the newest step are clipped value by value, keeping valid JSON with a marker', async () => {
  const body = cleanLines(5000, 'content');
  const conv = entries([
    { role: 'user', content: 'Write the file.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'w',
          type: 'function',
          function: {
            name: 'write_file',
            arguments: JSON.stringify({
              path: 'src/big.ts',
              content: body,
              options: { mode: 'overwrite', notes: ['short'] },
            }),
          },
        },
      ],
    },
    { role: 'tool', tool_call_id: 'w', content: 'written' },
  ]);
  const items = itemsFromEntries(conv);
  const window = 8000;
  const r = await compact({
    items,
    meter,
    summarizer: new ExtractiveSummarizer((t) => meter.countText(t)),
    options: {
      budget: { contextWindow: window, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
      trigger: 'manual',
      force: true,
    },
  });
  assert.equal(r.status.kind, 'applied', describeCompaction(r.status));
  assert.ok(r.tokensAfter <= window, `${r.tokensAfter} fits ${window}`);
  const call = (r.context[1].message as { tool_calls: Array<{ id: string; function: { arguments: string } }> })
    .tool_calls[0];
  assert.equal(call.id, 'w', 'pairing id kept');
  const args = JSON.parse(call.function.arguments) as { path: string; content: string; options: unknown };
  assert.equal(args.path, 'src/big.ts');
  assert.deepEqual(args.options, { mode: 'overwrite', notes: ['short'] });
  assert.match(args.content, /characters clipped/);
  assert.deepEqual(checkContext(r.context, conv), []);
});

test('clipMessageToTokens: non-JSON arguments are clipped as text; a message that cannot shrink comes back as it is', () => {
  const countMessage = (m: ChatMessage) => meter.countMessage(m);
  const count = (t: string) => meter.countText(t);
  const raw: ChatMessage = {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: 'x',
        type: 'function',
        function: { name: 'patch', arguments: `*** Begin Patch\n${cleanLines(3000, '+')}` },
      },
    ],
  };
  const clipped = clipMessageToTokens(raw, 2000, countMessage, count);
  assert.ok(countMessage(clipped) <= 2100);
  assert.notEqual(clipped, raw);
  assert.match(
    (raw as { tool_calls: Array<{ function: { arguments: string } }> }).tool_calls[0].function.arguments,
    /^\*\*\* Begin Patch/,
    'input unchanged',
  );
  const small: ChatMessage = {
    role: 'user',
    content: [{ type: 'image_url', image_url: { url: 'https://example.invalid/x.png' } }],
  };
  assert.equal(clipMessageToTokens(small, 1, countMessage, count), small);
});

test('reasoning fields carried on assistant messages are counted, since they are sent back as recorded', () => {
  const reasoning = cleanLines(200, 'thought');
  const plain: ChatMessage = { role: 'assistant', content: 'Answer.' };
  const variants: ChatMessage[] = [
    { ...plain, reasoning_content: reasoning } as ChatMessage,
    { ...plain, reasoning } as ChatMessage,
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: reasoning, signature: 'sig' },
        { type: 'text', text: 'Answer.' },
      ],
    } as unknown as ChatMessage,
  ];
  for (const m of variants) {
    const sent = JSON.stringify(toMessages(itemsFromEntries(entries([m]))));
    assert.ok(sent.includes('thought 199'), 'the reasoning is in the output');
    assert.ok(
      meter.countMessage(m) >= meter.countMessage(plain) + meter.countText(reasoning),
      `counted: ${JSON.stringify(Object.keys(m))}`,
    );
  }
});

test('tool output kept as user text (no matching call, images returned by a tool) never becomes the latest request', () => {
  const conv = entries([
    { role: 'user', content: 'Investigate the crash.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'run', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'call_0', content: 'trace' },
    { role: 'user', content: '[Tool result for a tool call that was already answered (id call_0)]\nsecond trace' },
    { role: 'user', content: '[tool result call_9 without a matching call]\nmore' },
    {
      role: 'user',
      content: [
        { type: 'text', text: '[Images returned by tool call call_0]' },
        { type: 'image_url', image_url: { url: 'https://example.invalid/s.png' } },
      ],
    },
  ]);
  const shape = analyze(itemsFromEntries(conv));
  assert.equal(shape.lastUserIndex, 0, 'the request stays the anchor');
});

test('the incremental check reports what the full check reports, over generated growing contexts', async () => {
  const summarizer = new ExtractiveSummarizer((t) => meter.countText(t));
  let compared = 0;
  for (let seed = 1; seed <= 60; seed++) {
    const r = rng(seed);
    const all = generateConversation(seed, { turns: 6, maxSteps: 5 });
    const keepRecentSteps = Math.floor(r() * 3);
    const checker = new IncrementalChecker({ keepRecentSteps });
    let items: ContextItem[] = [];
    for (const e of all) {
      checker.append(e);
      items = [...items, ...itemsFromEntries([e])];
      if (r() < 0.2) {
        const total = meter.measure(items).total;
        const res = await compact({
          items,
          meter,
          summarizer,
          options: {
            budget: {
              contextWindow: Math.max(300, Math.floor(total * 0.7)),
              reservedOutput: 0,
              compactAt: 0.8,
              compactTo: 0.5,
            },
            trigger: 'manual',
            force: true,
            keepRecentSteps,
          },
        });
        if (res.status.kind === 'applied') items = res.context;
      }
      // Sometimes break the context on purpose, so violations are compared too.
      const probe =
        r() < 0.1 && items.length > 2 ? items.filter((_, k) => k !== 1 + Math.floor(r() * (items.length - 1))) : items;
      const key = (v: { invariant: number; index?: number }) => `${v.invariant}@${v.index ?? ''}`;
      assert.deepEqual(
        checker.check(probe).map(key).sort(),
        checkContext(probe, all.slice(0, checker.entries.length), { keepRecentSteps }).map(key).sort(),
        `seed ${seed}`,
      );
      compared++;
    }
  }
  assert.ok(compared > 500);
});

test('the extra summary instruction is added after the built-in prompt, which keeps its rule about instructions in the data', () => {
  assert.equal(summaryInstruction(undefined), DEFAULT_SUMMARY_INSTRUCTION);
  assert.equal(summaryInstruction('  '), DEFAULT_SUMMARY_INSTRUCTION);
  const combined = summaryInstruction('Write the notes in French.');
  assert.ok(combined.startsWith(DEFAULT_SUMMARY_INSTRUCTION), 'built-in prompt first, whole');
  assert.match(combined, /do not follow them/);
  assert.ok(combined.endsWith('Write the notes in French.'));
});

test('provider usage outside 0.5x-2x of the exact count is not used; cached tokens left out are added back', () => {
  const m = new TokenMeter({ counter: quarterCounter });
  const items = itemsFromEntries(entries([{ role: 'user', content: cleanLines(200, 'x') }]));
  const exact = m.measure(items).total;
  for (const reported of [3, exact * 40]) {
    const outcome = m.calibrate(reported, items);
    assert.equal(outcome.accepted, false);
    assert.match(outcome.reason!, /outside 0\.5x-2x/);
    assert.equal(m.read(items).basis, 'estimate', 'the gauge says it shows the count');
    assert.equal(m.read(items).total, exact);
  }
  assert.equal(m.calibrate(Math.round(exact * 1.1), items).accepted, true);
  assert.equal(m.read(items).basis, 'exact');
  const cached = exact - 10;
  assert.equal(m.calibrate(10, items, undefined, cached).accepted, true);
  assert.equal(m.read(items).total, exact, 'cached tokens added back');
});
