/**
 * A protected tail that does not fit: when the latest request, the newest steps and the summaries
 * are over the window after the usual tiers, the compaction degrades in order (newest-step outputs
 * collapsed, clipped, summaries summarised again) before it reports "does not fit", and the report
 * names what holds the tokens with figures.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatMessage, Checkpoint, ContextItem, Entry } from '../../src/compaction/types';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { itemsFromEntries, undoCheckpoint } from '../../src/compaction/context';
import { compact } from '../../src/compaction/rewrite/compactor';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { checkContext } from '../../src/compaction/plan/invariants';
import { describeHolders, tokenHolders } from '../../src/compaction/plan/holders';
import { holdersOf } from '../../src/compaction/outcome';
import { applyRecordedCompactions } from '../../src/compaction/rewrite/imported';
import { quarterCounter } from '../support/generate';
import { describeCompaction } from '../../src/compaction/outcome-text';
import { HAND_HEADING } from '../../src/compaction/summary/hand-lines';

const meter = new TokenMeter({ counter: quarterCounter });
const summarizer = new ExtractiveSummarizer((t) => meter.countText(t));
const entries = (messages: ChatMessage[]): Entry[] => messages.map((message, i) => ({ id: `e${i}`, message }));
const budget = (contextWindow: number) => ({ contextWindow, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 });
/** `n` lines of distinct text, about 9 tokens a line with the quarter counter. */
const lines = (n: number, tag: string) =>
  Array.from({ length: n }, (_, k) => `${tag} line ${k}: value_${k} = ${k * 7};`).join('\n');
const touched = (cps: readonly Checkpoint[], id: string) =>
  cps.filter((c) => c.replaced.some((r) => r.covers.includes(id)));

/** One newest step with `calls` parallel reads of `linesEach` lines each, after a short history. */
function wideNewestStep(calls: number, linesEach: number): Entry[] {
  const ids = Array.from({ length: calls }, (_, k) => `r${k}`);
  return entries([
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Read the whole package and list its modules.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: ids.map((id, k) => ({
        id,
        type: 'function' as const,
        function: { name: 'read_file', arguments: JSON.stringify({ path: `src/m${k}.ts` }) },
      })),
    },
    ...ids.map((id, k): ChatMessage => ({ role: 'tool', tool_call_id: id, content: lines(linesEach, `m${k}`) })),
  ]);
}

test('a newest step of many mid-sized outputs that does not fit is collapsed (largest first) until it fits; nothing is reported as not fitting', async () => {
  // 14 outputs of ~800 tokens each: below the size a clip touches, ~11k tokens in an 8k window.
  const conv = wideNewestStep(14, 90);
  const items = itemsFromEntries(conv);
  assert.ok(meter.measure(items).total > 8000);
  for (const trigger of ['manual', 'auto'] as const) {
    const r = await compact({
      items,
      meter,
      summarizer,
      options: { budget: budget(8000), trigger, force: trigger === 'manual' },
    });
    assert.equal(r.status.kind, 'applied', describeCompaction(r.status));
    assert.ok(r.tokensAfter < 6400, `${trigger}: ${r.tokensAfter} tokens, below the trigger`);
    assert.doesNotMatch(describeCompaction(r.status), /does not fit/);
    assert.equal(r.status.kind === 'applied' && r.status.overBudget, undefined);
    const collapse = r.checkpoints.find((c) => c.strategy === 'collapse');
    assert.ok(collapse, 'a collapse of the newest step');
    assert.ok(!r.checkpoints.some((c) => c.strategy === 'clip'), 'collapsing was enough: nothing clipped');
    // Only as many as needed: some outputs of the newest step stay verbatim.
    const verbatim = r.context.filter((i) => i.kind === 'raw' && i.message.role === 'tool');
    assert.ok(verbatim.length > 0 && verbatim.length < 14, `${verbatim.length} outputs kept verbatim`);
    assert.deepEqual(checkContext(r.context, conv), []);
    // The records still name their own call.
    for (const c of r.context.filter((i) => i.kind === 'collapsed')) {
      const k = Number(/^m(\d+) line/.exec(String(conv.find((e) => e.id === c.covers[0])!.message.content))![1]);
      assert.match(String(c.message.content), new RegExp(`read_file path=src/m${k}\\.ts `));
    }
  }
});

test('huge tool-call arguments in the newest step and a huge latest request are clipped until the request fits; the arguments stay valid JSON', async () => {
  const conv = entries([
    { role: 'user', content: `Here is the log to analyse:\n${lines(500, 'log')}` },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'w',
          type: 'function',
          function: { name: 'write_file', arguments: JSON.stringify({ path: 'big.txt', content: lines(700, 'w') }) },
        },
      ],
    },
    { role: 'tool', tool_call_id: 'w', content: 'written' },
  ]);
  const items = itemsFromEntries(conv);
  const before = meter.measure(items).total;
  assert.ok(before > 8000, `${before}`);
  const r = await compact({
    items,
    meter,
    summarizer,
    options: { budget: budget(8000), trigger: 'manual', force: true },
  });
  assert.equal(r.status.kind, 'applied', describeCompaction(r.status));
  assert.ok(r.tokensAfter <= 8000, describeCompaction(r.status));
  const clip = r.checkpoints.find((c) => c.strategy === 'clip');
  assert.ok(clip);
  assert.ok(touched(r.checkpoints, 'e1').length > 0, 'the tool-call arguments are clipped');
  // Clipped arguments stay valid JSON.
  const call = r.context.find((i) => i.covers[0] === 'e1')!.message as {
    tool_calls: Array<{ function: { arguments: string } }>;
  };
  assert.doesNotThrow(() => JSON.parse(call.tool_calls[0].function.arguments));
  assert.deepEqual(checkContext(r.context, conv), []);
});

/** A long session whose history was compacted by the recording agent into one big summary. */
function importedSession(summaryLines: number): { conv: Entry[]; items: ContextItem[]; checkpoints: Checkpoint[] } {
  const msgs: ChatMessage[] = [{ role: 'system', content: 'You are a coding agent.' }];
  for (let k = 0; k < 6; k++) {
    msgs.push({
      role: 'user',
      content:
        k === 0 ? 'Port the billing service to Go. Never commit unless I ask.' : `Next, handle part ${k} of the port.`,
    });
    msgs.push({ role: 'assistant', content: `Handled part ${k}.` });
  }
  msgs.push({ role: 'user', content: 'Now add the invoice endpoint.' });
  msgs.push({
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'c', type: 'function', function: { name: 'read_file', arguments: '{"path":"api/invoice.go"}' } },
    ],
  });
  msgs.push({ role: 'tool', tool_call_id: 'c', content: 'package api' });
  const conv = entries(msgs);
  const summary = `This session is being continued from an earlier conversation.\n${lines(summaryLines, 'Earlier work')}`;
  const imported = applyRecordedCompactions(
    itemsFromEntries(conv),
    [{ replacedIds: conv.slice(1, 13).map((e) => e.id), summary }],
    meter,
  );
  return { conv, items: imported.items, checkpoints: imported.checkpoints };
}

test('an imported summary too large for a small window is summarised again (manual and automatic), undoably; the newest step is not touched', async () => {
  const { conv, items, checkpoints } = importedSession(900);
  const h = tokenHolders(items, meter, undefined, 1);
  assert.ok(h.summaries > 6000, `the imported summary holds ${h.summaries} tokens`);
  for (const trigger of ['manual', 'auto'] as const) {
    const r = await compact({
      items,
      meter,
      summarizer,
      options: { budget: budget(4000), trigger, force: trigger === 'manual' },
    });
    assert.equal(r.status.kind, 'applied', describeCompaction(r.status));
    assert.ok(r.tokensAfter <= 4000, `${trigger}: ${describeCompaction(r.status)}`);
    assert.doesNotMatch(describeCompaction(r.status), /does not fit/);
    const again = r.checkpoints.find((c) => c.replaced.some((i) => i.checkpointId === 'import-1'));
    assert.ok(again, 'the imported summary is summarised again');
    assert.equal(
      r.checkpoints.filter((c) => c.strategy === 'collapse' || c.strategy === 'clip').length,
      0,
      'no newest-step output collapsed or clipped',
    );
    assert.deepEqual(checkContext(r.context, conv), []);
    // Undo brings the recording's own summary back.
    const undone = undoCheckpoint(r.context, [...checkpoints, ...r.checkpoints], again.id).items;
    assert.ok(undone.some((i) => i.checkpointId === 'import-1'));
  }
});

test('two earlier summaries of this product are summarised together into one within the window, requests and standing rules first', async () => {
  const requests = [
    'Migrate the scheduler to cron expressions. Always run the linter before a commit.',
    'Keep the old API working until v3.',
  ];
  const earlier = (k: number, covers: string[]): ContextItem => ({
    id: `s${k}`,
    kind: 'summary',
    covers,
    checkpointId: `cp${k}`,
    message: {
      role: 'user',
      content: `[Summary of earlier messages]\n\n## Standing rules (the user's words, verbatim)\n- "Always run the linter before a commit."\n\n## Files\n${lines(600, `file${k}`)}\n\n## Requests, verbatim (oldest first; the user's own words)\n- ${requests[k]}`,
    },
  });
  const conv = entries([
    { role: 'user', content: requests[0] },
    { role: 'assistant', content: 'ok' },
    { role: 'user', content: requests[1] },
    { role: 'assistant', content: 'ok' },
    { role: 'user', content: 'Now write the migration notes.' },
    { role: 'assistant', content: 'Writing them.' },
  ]);
  const items: ContextItem[] = [earlier(0, ['e0', 'e1']), earlier(1, ['e2', 'e3']), ...itemsFromEntries(conv.slice(4))];
  assert.ok(meter.measure(items).total > 8000);
  const r = await compact({ items, meter, summarizer, options: { budget: budget(8000), trigger: 'auto' } });
  assert.equal(r.status.kind, 'applied', describeCompaction(r.status));
  assert.ok(r.tokensAfter < 6400, describeCompaction(r.status));
  const summaries = r.context.filter((i) => i.kind === 'summary');
  assert.equal(summaries.length, 1);
  const text = String(summaries[0].message.content);
  for (const q of requests) assert.ok(text.includes(q), `request kept verbatim: ${q}`);
  assert.match(text, /## Standing rules[^\n]*\n- "Always run the linter before a commit\."/);
  assert.deepEqual(checkContext(r.context, conv), []);
});

test('"does not fit" names what holds the tokens, with figures, and never says the system prompt holds 0 when summaries hold them', async () => {
  const { items } = importedSession(900);
  // A summary the user pinned cannot be rewritten: the context cannot fit 4k.
  const pinned = items.map((i) => (i.kind === 'summary' ? { ...i, pinned: true } : i));
  const r = await compact({
    items: pinned,
    meter,
    summarizer,
    options: { budget: budget(4000), trigger: 'manual', force: true },
  });
  const h = holdersOf(r.status);
  assert.ok(h, describeCompaction(r.status));
  assert.match(
    describeCompaction(r.status),
    /does not fit: [\d,]+ tokens against a budget of 4,000; summaries \(earlier and imported\) hold [\d,]+ tokens/,
  );
  assert.doesNotMatch(describeCompaction(r.status), /hold 0 tokens|holds 0 tokens/);
  assert.ok(h.summaries > h.systemAndTools && h.systemAndTools > 0);
  // The parts add up to the meter's total (plus the tokens that prime the reply).
  assert.ok(h.total - (h.systemAndTools + h.summaries + h.latestRequest + h.newestSteps + h.history) <= 5);
  // With no system prompt at all the sentence says so instead of giving it 0 tokens.
  const noSystem = tokenHolders(pinned.slice(1), meter, undefined, 1);
  assert.match(describeHolders(noSystem), /there is no system prompt or tool schema/);
  assert.doesNotMatch(describeHolders(noSystem), / 0 tokens/);
});

test('when the system prompt and tool schemas alone are over the budget, nothing else is degraded and the report says so', async () => {
  const conv = entries([
    { role: 'system', content: lines(1000, 'rule') },
    { role: 'user', content: 'Fix the bug.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }],
    },
    { role: 'tool', tool_call_id: 'c', content: lines(200, 'a') },
  ]);
  const items = itemsFromEntries(conv);
  const r = await compact({
    items,
    meter,
    summarizer,
    options: { budget: budget(8000), trigger: 'manual', force: true },
  });
  assert.notEqual(r.status.kind, 'applied');
  assert.deepEqual(r.context, items, 'the newest step is left verbatim');
  assert.match(describeCompaction(r.status), /the system prompt and tool schemas alone are over the budget of 8,000/);
});

test('earlier summaries in two places summarised again are recorded oldest first, as they stand in the conversation', async () => {
  const earlier = (k: number, covers: string[]): ContextItem => ({
    id: `s${k}`,
    kind: 'summary',
    covers,
    checkpointId: `cp${k}`,
    message: { role: 'user', content: `[Summary of earlier messages]\n\n## Notes\n${lines(500, `part${k}`)}` },
  });
  const conv = entries([
    { role: 'user', content: 'Migrate the scheduler.' },
    { role: 'assistant', content: 'ok' },
    { role: 'user', content: 'Keep the old API working until v3.' },
    { role: 'assistant', content: 'Noted, keeping it.' },
    { role: 'user', content: 'Now write the notes.' },
    { role: 'assistant', content: 'ok' },
    { role: 'user', content: 'And the changelog.' },
    { role: 'assistant', content: 'Writing it.' },
  ]);
  const items: ContextItem[] = [
    earlier(0, ['e0', 'e1']),
    // A pinned message between them: the two are summarised again each on its own.
    ...itemsFromEntries(conv.slice(2, 4)).map((i) => ({ ...i, pinned: true })),
    earlier(1, ['e4', 'e5']),
    ...itemsFromEntries(conv.slice(6)),
  ];
  const r = await compact({
    items,
    meter,
    summarizer,
    options: { budget: budget(3000), trigger: 'manual', force: true },
  });
  assert.equal(r.status.kind, 'applied', describeCompaction(r.status));
  const again = r.checkpoints.filter((c) => c.replaced.some((i) => i.id === 's0' || i.id === 's1'));
  assert.equal(
    again.length,
    2,
    r.checkpoints.map((c) => `${c.strategy}: ${c.replaced.map((i) => i.id).join(',')} ${c.cause ?? ''}`).join('\n'),
  );
  assert.deepEqual(
    again.map((c) => c.replaced.find((i) => i.kind === 'summary')?.id),
    ['s0', 's1'],
  );
  assert.deepEqual(checkContext(r.context, conv), []);
});

test('a line typed by hand into a summary survives the last tiers: the latest request clipped and the summary summarised again keep it under its heading', async () => {
  const NOTE = 'Typed by hand: the ledger ids stay stable, ask before renaming them.';
  const hand = (id: string): ContextItem => ({
    id: `${id}~s`,
    kind: 'summary',
    checkpointId: id,
    covers: [`${id}-raw`],
    message: {
      role: 'user',
      content: `[Summary of 40 earlier messages]\n\n## Current work\n${lines(500, id)}\n${NOTE}`,
    },
    handLines: [NOTE],
  });
  const items: ContextItem[] = [
    { id: 'sys', kind: 'raw', covers: ['sys'], message: { role: 'system', content: 'You are a coding agent.' } },
    hand('old'),
    { id: 'u', kind: 'raw', covers: ['u'], message: { role: 'user', content: `Port this:\n${lines(500, 'req')}` } },
  ];
  for (const trigger of ['manual', 'auto'] as const) {
    const r = await compact({
      items,
      meter,
      summarizer,
      options: { budget: budget(3000), trigger, force: true },
    });
    assert.equal(r.status.kind, 'applied', describeCompaction(r.status));
    const strategies = r.checkpoints.map((c) => c.strategy);
    assert.ok(strategies.includes('clip'), `${trigger}: the latest request is clipped (${strategies.join(', ')})`);
    const summary = r.context.find((i) => i.kind === 'summary');
    assert.ok(summary, `${trigger}: a summary stands for the earlier one`);
    const text = String(summary.message.content);
    assert.match(text, new RegExp(`${HAND_HEADING}\\n${NOTE}`), text);
    assert.equal(text.split(NOTE).length, 2, 'once, under its heading');
    assert.deepEqual(summary.handLines, [NOTE], 'carried on for the next summary');
  }
});
