/**
 * Compaction failures reported against other agents (the kinds that concern the core:
 * pairing, parallel calls, roles, trigger base, counting of images and tool schemas, unicode-safe
 * clipping, what summaries keep), each as a small input with the right behaviour.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A, Acalls, S, T, U, chars, entries, items, resultCounts } from '../support/conversation';
import { quarterCounter, pngDataUrl } from '../support/generate';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { compact } from '../../src/compaction/rewrite/compactor';
import { thresholds, resolveContextWindow } from '../../src/compaction/plan/budget';
import { checkContext, checkToolPairing } from '../../src/compaction/plan/invariants';
import { toMessages, itemsFromEntries, undoCheckpoint } from '../../src/compaction/context';
import { stripImages, contextImageCount } from '../../src/compaction/rewrite/strip-images';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { createTokenCounter } from '../../src/tokenizer/tokenizer';
import { replay } from '../../src/replay/replay';
import type {
  BudgetConfig,
  ChatMessage,
  CompactionOptions,
  ContextItem,
  Summarizer,
  SummaryRequest,
  ToolSchema,
} from '../../src/compaction/types';
import { describeCompaction } from '../../src/compaction/outcome-text';

const meter = new TokenMeter({ counter: quarterCounter });

/** The extractive summarizer, recording every request it gets. */
function spy(): Summarizer & { requests: SummaryRequest[] } {
  const inner = new ExtractiveSummarizer((t) => meter.countText(t));
  const requests: SummaryRequest[] = [];
  return { name: 'extractive', requests, summarize: (r) => (requests.push(r), inner.summarize(r)) };
}

const budget = (contextWindow: number, extra: Partial<BudgetConfig> = {}): BudgetConfig => ({
  contextWindow,
  reservedOutput: 0,
  compactAt: 0.8,
  compactTo: 0.5,
  ...extra,
});

async function run(
  msgs: ChatMessage[],
  b: BudgetConfig,
  opts: Partial<CompactionOptions> = {},
  summarizer: Summarizer = spy(),
) {
  const ctx = items(msgs);
  const result = await compact({ items: ctx, meter, summarizer, options: { budget: b, trigger: 'auto', ...opts } });
  return { before: ctx, result, out: toMessages(result.context) };
}

function firstNonSystem(out: ChatMessage[]): ChatMessage | undefined {
  return out.find((m) => m.role !== 'system');
}

test('a kept window never starts inside a batch of tool results', async () => {
  const calls = Array.from({ length: 10 }, (_, k) => [`c${k + 1}`, 'read_file'] as [string, string]);
  const msgs = [
    S('agent'),
    U('read 10 files and summarize'),
    Acalls(calls),
    ...calls.map(([id]) => T(id, chars(3000, id.length))),
    U('now refactor'),
  ];
  for (const window of [4000, 6000, 9000]) {
    const { result, out } = await run(msgs, budget(window), { force: true });
    assert.ok(result.status.kind === 'applied', `applied at ${window}`);
    assert.deepEqual(checkToolPairing(out), []);
    const afterSummary = out[out.findIndex((m, i) => i > 0 && m.role === 'user') + 1];
    assert.notEqual(afterSummary?.role, 'tool');
    const counts = resultCounts(out);
    // The whole group is kept or summarized as a unit.
    assert.ok(counts.size === 0 || counts.size === 10, `group split: ${counts.size} results kept`);
  }
});

test('truncation keeps or drops a call with all its results', async () => {
  // (a) large budget: output equals input
  const a = [S('s'), U('weather?'), Acalls([['c1', 'get_weather']]), T('c1', 'sunny')];
  const ra = await run(a, budget(100_000), { force: true });
  assert.notEqual(ra.result.status.kind, 'applied');
  assert.deepEqual(ra.out, a);
  // (b) tiny budget, the step not protected: the assistant message and its result go together
  const b = [
    S('s'),
    U(chars(2000)),
    Acalls([['c1', 'get_weather']], chars(1600)),
    T('c1', chars(1600)),
    A('done'),
    U('next'),
  ];
  const rb = await run(b, budget(600), { force: true, keepRecentSteps: 0 });
  assert.ok(rb.result.status.kind === 'applied');
  const kept = rb.out.filter((m) => m.role === 'tool' || (m.role === 'assistant' && 'tool_calls' in m && m.tool_calls));
  assert.ok(kept.length === 0 || kept.length === 2, 'A and T(c1) together');
  // (c) parallel calls: the A/T(c1)/T(c2) group is kept or dropped as a unit
  const c = [
    S('s'),
    U(chars(800)),
    Acalls([
      ['c1', 'a'],
      ['c2', 'b'],
    ]),
    T('c1', chars(1200)),
    T('c2', chars(1200)),
    U('go on'),
  ];
  const rc = await run(c, budget(700), { force: true });
  assert.deepEqual(checkToolPairing(rc.out), []);
  const n = resultCounts(rc.out).size;
  assert.ok(n === 0 || n === 2);
  assert.equal(rc.out.at(-1)?.role, 'user');
});

test('a trimmed history never begins with a tool message', async () => {
  const msgs = [
    U('weather in Springfield?'),
    Acalls([['c1', 'get_weather']], 'checking'),
    T('c1', '25C ' + chars(2000)),
    U('and tomorrow?'),
  ];
  const { result, out } = await run(msgs, budget(500), { force: true });
  assert.ok(result.status.kind === 'applied');
  assert.equal(firstNonSystem(out)?.role, 'user');
  assert.deepEqual(checkToolPairing(out), []);
  assert.deepEqual(out.at(-1), msgs.at(-1));
});

test('parallel tool results are never duplicated by a compaction', async () => {
  const older: ChatMessage[] = [];
  for (let k = 0; k < 30; k++) older.push(U(`question ${k} ${chars(200, k)}`), A(`answer ${k} ${chars(200, k + 99)}`));
  const msgs = [
    S('s'),
    ...older,
    U('analyze asset X'),
    Acalls([
      ['c1', 'query_errors'],
      ['c2', 'query_latency'],
    ]),
    T('c1', chars(400)),
    T('c2', chars(400)),
  ];
  for (const keepRecentSteps of [0, 1]) {
    const { result, out } = await run(msgs, budget(3000), { force: true, keepRecentSteps });
    assert.ok(result.status.kind === 'applied');
    for (const [id, n] of resultCounts(out)) assert.equal(n, 1, `${id} appears ${n} times`);
    assert.deepEqual(checkToolPairing(out), []);
    const a = out.findIndex((m) => m.role === 'assistant' && 'tool_calls' in m && m.tool_calls?.length === 2);
    if (a >= 0)
      assert.deepEqual(
        out.slice(a + 1, a + 3).map((m) => m.role),
        ['tool', 'tool'],
      );
  }
});

test('a call still waiting for its result is never summarized; its result can follow later', async () => {
  const older: ChatMessage[] = [];
  for (let k = 0; k < 40; k++) older.push(U(`turn ${k} ${chars(150, k)}`), A(`reply ${k} ${chars(150, k + 7)}`));
  const pending = Acalls([['c1', 'confirm_action']]);
  const msgs = [S('s'), ...older, U('delete build dir'), pending];
  const { result, out } = await run(msgs, budget(2000), { force: true, keepRecentSteps: 0 });
  assert.ok(result.status.kind === 'applied');
  assert.equal(out.at(-1), pending, 'the open call stays verbatim at the tail');
  const later = [...out, T('c1', 'approved')];
  assert.deepEqual(checkToolPairing(later), []);
});

test('the threshold is checked before every model call inside one long tool loop', async () => {
  const msgs: ChatMessage[] = [S('agent'), U('fix every failing test')];
  for (let k = 0; k < 30; k++)
    msgs.push(Acalls([[`c${k}`, 'run_command', '{"command":"npm test"}']]), T(`c${k}`, chars(8000, k)));
  msgs.push(A('all done'));
  const report = await replay(entries(msgs), meter, spy(), { budget: budget(32_000) });
  assert.ok(report.compactions >= 1, 'compacted mid-turn');
  assert.deepEqual(report.violations, []);
  assert.ok(report.peakTokens <= 32_000, `peak ${report.peakTokens}`);
});

test('with nothing eligible no summarizer call is made and the reason is given', async () => {
  const s = spy();
  const msgs = [S('s'), U(`please review this paste:\n${chars(30_000)}`), A('reviewing')];
  const { result } = await run(msgs, budget(9000), { force: true }, s);
  assert.notEqual(result.status.kind, 'applied');
  assert.equal(s.requests.length, 0);
  assert.match(describeCompaction(result.status), /^nothing to compact: all that is left is /);
});

test('kept messages stay deep-equal, provider fields included; reasoning is not summarized', async () => {
  const withReasoning = (m: ChatMessage, r: string) => ({ ...m, reasoning_content: r }) as unknown as ChatMessage;
  const msgs = [
    S('s'),
    U('first task ' + chars(3000)),
    withReasoning(A('old answer ' + chars(2000)), 'SECRET-OLD-REASONING'),
    U('second task'),
    withReasoning(Acalls([['c9', 'read_file', '{"path":"a.ts"}']], 'reading'), 'NEWEST-REASONING'),
    T('c9', 'file text'),
  ];
  const s = spy();
  const { result, out } = await run(msgs, budget(1500), { force: true }, s);
  assert.ok(result.status.kind === 'applied');
  assert.deepEqual(out.slice(-3), msgs.slice(-3));
  assert.ok(!result.checkpoints.some((c) => c.summary.includes('SECRET-OLD-REASONING')));
});

test('when the newest steps alone stay above the trigger, automatic compaction does not commit and says why', async () => {
  const msgs = [
    S(chars(8000)),
    ...Array.from({ length: 10 }, (_, k) => (k % 2 ? A(chars(800, k)) : U(chars(800, k)))),
    U('now check'),
    Acalls([
      ['c1', 'r'],
      ['c2', 'r'],
      ['c3', 'r'],
    ]),
    T('c1', chars(40_000, 1)),
    T('c2', chars(40_000, 2)),
    T('c3', chars(40_000, 3)),
  ];
  const { result } = await run(msgs, budget(64_000, { compactAt: 0.5, compactTo: 0.3 }), { keepRecentSteps: 1 });
  assert.notEqual(result.status.kind, 'applied');
  assert.match(describeCompaction(result.status), /^cannot get below 32,000 tokens: at best [\d,]+/);
});

test('an output reservation that leaves no input room is clamped and flagged', () => {
  const th = thresholds({ contextWindow: 128_000, reservedOutput: 100_000, compactAt: 0.75, compactTo: 0.5 });
  assert.equal(th.reservedOutput, 32_000);
  assert.ok(th.warnings.some((w) => /reserved output/.test(w)));
  assert.ok(th.triggerTokens > 26_000, 'a 26k context does not compact');
});

test('the target sits well below the trigger, so ten tool calls cause at most two compactions', async () => {
  assert.throws(
    () => thresholds({ contextWindow: 32_000, reservedOutput: 0, compactAt: 0.8, compactTo: 0.8 }),
    /compactTo/,
  );
  const msgs: ChatMessage[] = [S('agent'), U('investigate the latency logs ' + chars(40_000))];
  for (let k = 0; k < 10; k++) msgs.push(Acalls([[`q${k}`, 'query_logs']]), T(`q${k}`, chars(12_000, k)));
  msgs.push(A('found it'));
  const report = await replay(entries(msgs), meter, spy(), { budget: budget(32_000) });
  assert.ok(report.compactions >= 1 && report.compactions <= 2, `compactions: ${report.compactions}`);
});

test('percent thresholds apply to a documented base; both bases computed', () => {
  const win = thresholds({
    contextWindow: 200_000,
    reservedOutput: 131_072,
    compactAt: 0.5,
    compactTo: 0.3,
    thresholdBase: 'window',
  });
  assert.equal(win.base, 200_000);
  assert.equal(win.triggerTokens, 100_000);
  const bud = thresholds({ contextWindow: 200_000, reservedOutput: 131_072, compactAt: 0.5, compactTo: 0.3 });
  assert.equal(bud.reservedOutput, 50_000, 'reservation clamped, not the model maximum');
  assert.equal(bud.base, 150_000);
  assert.equal(bud.triggerTokens, 75_000);
});

test('the trigger always leaves room for the reserved output', () => {
  for (const reservedOutput of [8192, 64_000]) {
    for (const thresholdBase of ['window', 'budget'] as const) {
      const th = thresholds({ contextWindow: 200_000, reservedOutput, compactAt: 0.8, compactTo: 0.5, thresholdBase });
      // The reservation actually used (clamped, so lowered when it was too large) always fits.
      assert.ok(
        th.triggerTokens + th.reservedOutput <= 200_000,
        `trigger ${th.triggerTokens} + R ${th.reservedOutput}`,
      );
      assert.ok(199_759 >= th.triggerTokens, 'a 199,759-token prompt compacts before sending');
    }
  }
  const th = thresholds({ contextWindow: 200_000, reservedOutput: 64_000, compactAt: 0.8, compactTo: 0.5 });
  assert.ok(144_000 >= th.triggerTokens, 'a 144k prompt with R=64k compacts before sending');
});

test('one resolved window feeds both the gauge and the trigger', async () => {
  const window = resolveContextWindow('claude-sonnet-4', undefined, 1_000_000);
  assert.equal(window, 1_000_000);
  assert.equal(resolveContextWindow('claude-sonnet-4'), 200_000);
  assert.equal(resolveContextWindow('claude-sonnet-4', 64_000, 1_000_000), 64_000);
  const th = thresholds({
    contextWindow: window,
    reservedOutput: 0,
    compactAt: 0.8,
    compactTo: 0.5,
    thresholdBase: 'window',
  });
  assert.equal(th.base, window);
  const msgs = [S('s'), U(chars(480_000)), A('ok'), U('more')];
  const { result } = await run(msgs, {
    contextWindow: window,
    reservedOutput: 0,
    compactAt: 0.8,
    compactTo: 0.5,
    thresholdBase: 'window',
  });
  assert.notEqual(result.status.kind, 'applied', 'no compaction at 120k of a 1M window');
});

test('images are estimated from their size, never from base64 length', () => {
  const exact = new TokenMeter({ counter: createTokenCounter('o200k_base') });
  const big = pngDataUrl(1600, 1200, 900_000);
  assert.ok(big.length > 1_200_000);
  const msg = {
    role: 'tool',
    tool_call_id: 'c1',
    content: [
      { type: 'text', text: 'plot' },
      { type: 'image_url', image_url: { url: big } },
    ],
  } as unknown as ChatMessage;
  const n = exact.countMessage(msg);
  assert.ok(n < 2000, `image counted as ${n} tokens`);
  // 1600x1200 → fits 2048, shortest side to 768 → 1024x768 → 2x2 tiles: 4*170+85 = 765
  assert.equal(n, 3 + exact.countText('plot') + 765);
});

test('the meter includes the system prompt and tool schemas, and a schema raises it', () => {
  const tools: ToolSchema[] = Array.from({ length: 40 }, (_, k) => ({
    type: 'function',
    function: { name: `tool_${k}`, description: chars(1900, k), parameters: { type: 'object', properties: {} } },
  }));
  const ctx = items([S(chars(20_000)), U(chars(600_000)), A('ok')]);
  const m = meter.measure(ctx, tools);
  assert.ok(m.breakdown.system >= 5000 && m.breakdown.tools >= 20_000, JSON.stringify(m.breakdown));
  assert.equal(m.total, m.breakdown.system + m.breakdown.tools + m.breakdown.user + m.breakdown.assistant + 3);
  const more = [
    ...tools,
    { type: 'function', function: { name: 'extra', description: 'one more', parameters: {} } } as ToolSchema,
  ];
  assert.ok(meter.measure(ctx, more).total > m.total);
  const th = thresholds({
    contextWindow: 200_000,
    reservedOutput: 0,
    compactAt: 0.9,
    compactTo: 0.5,
    thresholdBase: 'window',
  });
  assert.ok(m.total < th.triggerTokens);
  const grown = [...ctx, ...items([U(chars(40_000))]).map((i) => ({ ...i, id: 'new' }))];
  assert.ok(meter.measure(grown, tools).total >= th.triggerTokens, 'a 10k message pushes it over');
});

test('counts scale with content, include tool-call arguments, and count the system prompt once', () => {
  const exact = new TokenMeter({ counter: createTokenCounter('o200k_base') });
  const text = chars(5000);
  const u = { role: 'user', content: [{ type: 'text', text }] } as ChatMessage;
  assert.equal(exact.countMessage(u), 3 + exact.countText(text));
  const args = JSON.stringify({ content: chars(3000, 5) });
  const a = Acalls([['c1', 'write_file', args]]);
  assert.ok(exact.countMessage(a) >= exact.countText(args));
  const sys = S(chars(4000, 3));
  const m = exact.measure(items([sys, u]));
  assert.equal(m.breakdown.system, exact.countMessage(sys));
  assert.ok(exact.countMessage(u) > text.length / 10, 'sanity: not a constant per message');
});

test('an old request, once summarized, is not re-inserted as a current instruction', async () => {
  const msgs = [
    S('s'),
    U('rebuild the docs index'),
    Acalls([['c1', 'run_command', '{"command":"make docs"}']]),
    T('c1', 'index rebuilt ' + chars(3000)),
    A('done, the index is rebuilt ' + chars(3000, 4)),
    U('fix the README typo'),
    A('looking'),
  ];
  const { result, out } = await run(msgs, budget(1200), { force: true });
  assert.ok(result.status.kind === 'applied');
  const realUser = result.context.filter((i) => i.message.role === 'user' && i.kind !== 'summary');
  assert.deepEqual(
    realUser.map((i) => i.message.content),
    ['fix the README typo'],
  );
  const summary = result.context.find((i) => i.kind === 'summary')!;
  assert.match(String(summary.message.content), /historical context, not a new request/);
  // Kept verbatim in the requests section, which the summary's label marks as history.
  // The request closes the section; only the line pointing to the replaced messages follows it.
  assert.match(
    String(summary.message.content),
    /## Requests, verbatim[^\n]*\n- rebuild the docs index\n\n\[The 4 replaced messages are kept: [^\n]*\]$/,
  );
  assert.equal(out.filter((m) => m.role === 'user').at(-1)?.content, 'fix the README typo');
});

test('the latest task list is carried verbatim exactly once', async () => {
  const msgs: ChatMessage[] = [S('s'), U('ship the feature')];
  let last = '';
  for (let k = 0; k < 5; k++) {
    last = JSON.stringify({
      todos: [
        { id: 1, status: k > 2 ? 'done' : 'in_progress' },
        { id: 2, status: k > 3 ? 'in_progress' : 'todo' },
        { id: 3, status: 'todo', step: k },
      ],
    });
    msgs.push(Acalls([[`t${k}`, 'task_tracker', last]]), T(`t${k}`, 'updated ' + chars(800, k)));
  }
  msgs.push(A('progress noted'), U('continue'));
  // Every one of the five calls ends up inside the summarized span.
  const { result, out } = await run(msgs, budget(1200), { force: true, all: true });
  assert.ok(result.context.some((i) => i.kind === 'summary'));
  assert.ok(result.status.kind === 'applied');
  const text = out.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
  assert.equal(text.split(last).length - 1, 1);
});

test('the latest verification result survives a compaction', async () => {
  const msgs = [
    S('s'),
    U('make the tests pass ' + chars(2000)),
    Acalls([['c7', 'run_tests', '{"command":"npm test"}']]),
    T('c7', chars(1500) + '\n42 passed, 0 failed'),
    U('good, commit it'),
  ];
  const { result, out } = await run(msgs, budget(700), { force: true });
  assert.ok(result.status.kind === 'applied');
  assert.ok(out.some((m) => typeof m.content === 'string' && m.content.includes('0 failed')));
});

test('user constraints survive three compactions in a row', async () => {
  const s = spy();
  const rule = 'never add Co-Authored-By lines to commits';
  let ctx: ContextItem[] = items([
    S('Rules: conventional commits.'),
    U('set up the repo'),
    A('ok'),
    U(rule),
    A('understood'),
  ]);
  for (let round = 0; round < 3; round++) {
    const more: ChatMessage[] = [];
    for (let k = 0; k < 14; k++)
      more.push(U(`step ${round}.${k} ${chars(300, k)}`), A(`did ${round}.${k} ${chars(300, k + 1)}`));
    ctx = [...ctx, ...itemsFromEntries(more.map((message, k) => ({ id: `r${round}-${k}`, message })))];
    const r = await compact({
      items: ctx,
      meter,
      summarizer: s,
      options: { budget: budget(4000), trigger: 'auto', force: true },
    });
    assert.ok(r.status.kind === 'applied', `round ${round}: ${describeCompaction(r.status)}`);
    ctx = r.context;
  }
  assert.equal(ctx[0].message.content, 'Rules: conventional commits.');
  assert.ok(toMessages(ctx).some((m) => typeof m.content === 'string' && m.content.includes(rule)));
});

test('one system message stays first and byte-identical; the summary is a user message first in history', async () => {
  const sys = S('You are ReleaseBot; always answer in JSON');
  const msgs: ChatMessage[] = [sys];
  for (let k = 0; k < 40; k++)
    msgs.push(U(`q${k} ${chars(200, k)}`), Acalls([[`c${k}`, 'search']]), T(`c${k}`, chars(300, k)), A(`a${k}`));
  msgs.push(U('latest'));
  const s = spy();
  const { result, out } = await run(msgs, budget(3000), { force: true }, s);
  assert.ok(result.status.kind === 'applied');
  assert.equal(out[0], sys);
  assert.equal(out.filter((m) => m.role === 'system').length, 1);
  assert.equal(firstNonSystem(out)?.role, 'user');
  assert.ok(
    s.requests.every((r) => r.items.every((i) => i.message.role !== 'system')),
    'system prompt not sent to the summarizer',
  );
  assert.deepEqual(checkContext(result.context, entries(msgs)), []);
});

test('the new request that pushed the context over stays verbatim and last', async () => {
  const older: ChatMessage[] = [];
  for (let k = 0; k < 20; k++) older.push(U(`q${k} ${chars(400, k)}`), A(`a${k} ${chars(400, k)}`));
  const uNew = U('new request ' + chars(32_000));
  const msgs = [S('s'), ...older, uNew];
  const { result, out } = await run(msgs, budget(14_000));
  assert.ok(result.status.kind === 'applied', describeCompaction(result.status));
  assert.equal(out.at(-1), uNew);
  assert.notEqual(out.at(-1)?.role, 'assistant');
});

test('clipping a message too large for the window never splits a character', async () => {
  const emoji = '😀'.repeat(20_000);
  const msgs = [
    S('s'),
    U('paste'),
    Acalls([['c1', 'read_file']]),
    T('c1', `start ${emoji} end`),
    A('read'),
    U('and now?'),
  ];
  const { result, out } = await run(msgs, budget(4000), { force: true, keepRecentSteps: 1 });
  assert.ok(result.status.kind === 'applied', describeCompaction(result.status));
  for (const m of out) {
    const t = typeof m.content === 'string' ? m.content : '';
    assert.ok(!/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(t), 'no lone surrogate');
  }
});

test('images over the per-request limit are replaced by placeholders, oldest first, even when tokens are fine', async () => {
  const img = (w: number, h: number) => ({ type: 'image_url' as const, image_url: { url: pngDataUrl(w, h, 2000) } });
  const msgs: ChatMessage[] = [
    S('s'),
    { role: 'user', content: [{ type: 'text', text: 'screenshot' }, img(2500, 1400)] },
  ];
  for (let k = 0; k < 51; k++)
    msgs.push(A(`look ${k}`), { role: 'user', content: [{ type: 'text', text: `shot ${k}` }, img(800, 600)] });
  msgs.push(U('hey'));
  const ctx = items(msgs);
  assert.equal(contextImageCount(ctx), 52);
  const r = stripImages(ctx, 50, meter)!;
  assert.ok(r);
  assert.equal(contextImageCount(r.context), 50);
  assert.match(
    JSON.stringify(r.context[1].message),
    /image 2500x1400 removed from the context/,
    'the oldest (oversized) image goes first',
  );
  assert.ok(!JSON.stringify(r.context[1].message).includes('base64'));
  assert.deepEqual(checkContext(r.context, entries(msgs)), []);
  // The explicit "strip images" action: every image out, and undo brings them back.
  const all = stripImages(ctx, 0, meter, undefined, 'manual')!;
  assert.equal(contextImageCount(all.context), 0);
  assert.equal(contextImageCount(undoCheckpoint(all.context, [all.checkpoint], all.checkpoint.id).items), 52);
  // Summarizer input carries no image bytes: the extractive notes only see placeholders.
  const s = spy();
  await compact({
    items: ctx,
    meter,
    summarizer: s,
    options: { budget: budget(2000), trigger: 'manual', force: true, all: true },
  });
  assert.ok(s.requests.length > 0);
  assert.ok(s.requests.every((q) => q.items.every((i) => !textWithPlaceholders(i.message.content).includes('base64'))));
});

test('tool output sent in the user role (agents without native tool calls) belongs to the step; the real request stays the anchor', async () => {
  const request = U(
    'I uploaded a repository in /testbed. Make the failing test pass without changing the tests. ' + chars(2000),
  );
  const msgs: ChatMessage[] = [S('You are an agent.'), request];
  for (let k = 0; k < 12; k++)
    msgs.push(A(`<function=bash>cat file${k}.py</function>`), U(`OBSERVATION:\n${chars(1500, k)}`));
  const { result, out } = await run(msgs, budget(4000), { force: true });
  assert.ok(result.status.kind === 'applied', describeCompaction(result.status));
  assert.equal(out[1], request, 'the request is kept verbatim');
  assert.ok(result.checkpoints.some((c) => c.replacedIds.length > 0));
  assert.deepEqual(checkContext(result.context, entries(msgs)), []);
});

test('a manual compaction with focus text keeps the lines about that focus verbatim (extractive)', async () => {
  const msgs: ChatMessage[] = [S('s'), U('set up the database work')];
  for (let k = 0; k < 8; k++) {
    msgs.push(
      Acalls([[`c${k}`, 'read_file', `{"path":"db/${k}.sql"}`]]),
      T(
        `c${k}`,
        `${chars(1200, k)}\n${k === 5 ? 'migration 0042 renames column user_name to username' : 'nothing relevant here'}\n${chars(400, k + 50)}`,
      ),
    );
  }
  msgs.push(A('read them all'), U('what next?'));
  const { result } = await run(msgs, budget(3000), {
    force: true,
    all: true,
    trigger: 'manual',
    focus: 'focus on the migration',
  });
  assert.ok(result.status.kind === 'applied', describeCompaction(result.status));
  const summary = result.checkpoints
    .filter((c) => c.strategy === 'extractive')
    .map((c) => c.summary)
    .join('\n');
  // Quoted with the tool and path it came from: tool output is never presented as anyone's words.
  assert.match(
    summary,
    /## On the requested focus\n- \(output of read_file path=db\/5\.sql\) migration 0042 renames column user_name to username/,
  );
  assert.equal(result.checkpoints.find((c) => c.strategy === 'extractive')?.focus, 'focus on the migration');
});
