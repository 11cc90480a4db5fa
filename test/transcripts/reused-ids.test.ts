/**
 * Tool-call ids reused across steps (servers that number calls per reply: `call_0` in every step).
 * Pairing is a property of one assistant message and the tool messages after it, so such sessions
 * import without demoted results or placeholders, compact, and replay with every invariant kept;
 * collapsed records name the right call; two calls with one id inside one reply become unique.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { ChatMessage, Entry } from '../../src/compaction/types';
import { importTranscriptText } from '../../src/transcripts';
import { repairToolPairing } from '../../src/compaction/plan/repair';
import { itemsFromEntries, toMessages } from '../../src/compaction/context';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { compact } from '../../src/compaction/rewrite/compactor';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { checkContext, checkToolPairing } from '../../src/compaction/plan/invariants';
import { replay } from '../../src/replay/replay';
import { describeHolders } from '../../src/compaction/plan/holders';
import { loadSession } from '../../src/cli/load';
import { sharedTranscriptsDir } from '../support/shared';
import { quarterCounter } from '../support/generate';
import { describeCompaction } from '../../src/compaction/outcome-text';

/** Rewrites tool-call ids so that every step numbers its calls from 0 (`call_0`, `call_1`, …). */
export function reuseIdsPerStep(messages: readonly ChatMessage[]): ChatMessage[] {
  let map = new Map<string, string>();
  return messages.map((m) => {
    if (m.role === 'tool') return { ...m, tool_call_id: map.get(m.tool_call_id) ?? m.tool_call_id };
    if (m.role === 'assistant' && m.tool_calls?.length) {
      map = new Map(m.tool_calls.map((c, k) => [c.id, `call_${k}`]));
      return { ...m, tool_calls: m.tool_calls.map((c) => ({ ...c, id: map.get(c.id)! })) };
    }
    map = new Map();
    return m;
  });
}

/** A session of `steps` steps, each calling read_file on a different file with the id `call_0`. */
function sessionWithReusedIds(steps: number, lines = 80): ChatMessage[] {
  const out: ChatMessage[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Read every module and tell me what it does.' },
  ];
  for (let s = 0; s < steps; s++) {
    out.push({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_0',
          type: 'function',
          function: { name: s % 2 ? 'grep' : 'read_file', arguments: JSON.stringify({ path: `src/module${s}.ts` }) },
        },
      ],
    });
    out.push({
      role: 'tool',
      tool_call_id: 'call_0',
      content: Array.from({ length: lines }, (_, k) => `module ${s} line ${k}: export const value${k} = ${k};`).join(
        '\n',
      ),
    });
  }
  out.push({ role: 'assistant', content: 'Each module exports constants.' });
  return out;
}

async function importMessages(messages: ChatMessage[]): Promise<{ entries: Entry[]; warnings: string[] }> {
  const imported = await importTranscriptText(JSON.stringify({ messages }), 'generated.json');
  const repaired = repairToolPairing(imported.entries, { closeTrailing: true });
  return { entries: repaired.entries, warnings: [...imported.warnings, ...repaired.warnings] };
}

test('reused ids across steps: import keeps every result as a tool message, adds no placeholder and warns about nothing', async () => {
  const messages = sessionWithReusedIds(12);
  const { entries, warnings } = await importMessages(messages);
  assert.deepEqual(warnings, []);
  assert.deepEqual(
    entries.map((e) => e.message),
    messages,
    'the conversation comes through unchanged',
  );
  assert.deepEqual(checkToolPairing(entries.map((e) => e.message)), []);
});

test('reused ids: compaction applies, and each collapsed record names the call of its own step', async () => {
  const { entries } = await importMessages(sessionWithReusedIds(12));
  const meter = new TokenMeter({ counter: quarterCounter });
  const items = itemsFromEntries(entries);
  const total = meter.measure(items).total;
  const r = await compact({
    items,
    meter,
    summarizer: new ExtractiveSummarizer((t) => meter.countText(t)),
    options: {
      budget: { contextWindow: Math.floor(total * 0.9), reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
      trigger: 'manual',
      force: true,
      noCollapse: false,
    },
  });
  assert.equal(r.status.kind, 'applied', describeCompaction(r.status));
  assert.deepEqual(checkContext(r.context, entries), []);
  const collapsed = r.context.filter((i) => i.kind === 'collapsed');
  assert.ok(collapsed.length >= 3, `some results collapsed: ${collapsed.length}`);
  for (const item of collapsed) {
    const step = Number(
      /^module (\d+) line/.exec(String(entries.find((e) => e.id === item.covers[0])!.message.content))![1],
    );
    assert.match(
      String(item.message.content),
      new RegExp(`${step % 2 ? 'grep' : 'read_file'} path=src/module${step}\\.ts `),
      `record of step ${step}`,
    );
  }
});

test('two calls with the same id inside one reply are made unique, results taken in order', async () => {
  const messages: ChatMessage[] = [
    { role: 'user', content: 'Read a and b.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'functions.read:0', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } },
        { id: 'functions.read:0', type: 'function', function: { name: 'read', arguments: '{"path":"b"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'functions.read:0', content: 'content of a' },
    { role: 'tool', tool_call_id: 'functions.read:0', content: 'content of b' },
    { role: 'assistant', content: 'Done.' },
  ];
  const { entries, warnings } = await importMessages(messages);
  const out = entries.map((e) => e.message);
  assert.deepEqual(checkToolPairing(out), []);
  const calls = (out[1] as { tool_calls: Array<{ id: string; function: { arguments: string } }> }).tool_calls;
  assert.notEqual(calls[0].id, calls[1].id);
  assert.equal(calls[0].id, 'functions.read:0', 'the first call keeps its id');
  assert.deepEqual(
    out.slice(2, 4).map((m) => [(m as { tool_call_id: string }).tool_call_id, m.content]),
    [
      [calls[0].id, 'content of a'],
      [calls[1].id, 'content of b'],
    ],
  );
  assert.ok(
    warnings.some((w) => /made unique/.test(w)),
    warnings.join('\n'),
  );
});

test('the invariant check accepts ids reused across steps and rejects an id twice in one message', () => {
  const ok = sessionWithReusedIds(3, 2);
  assert.deepEqual(checkToolPairing(ok), []);
  const bad: ChatMessage[] = [
    { role: 'user', content: 'go' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'x', type: 'function', function: { name: 'f', arguments: '{}' } },
        { id: 'x', type: 'function', function: { name: 'f', arguments: '{}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'x', content: '1' },
    { role: 'tool', tool_call_id: 'x', content: '2' },
  ];
  assert.ok(checkToolPairing(bad).some((v) => /appears twice in message 1/.test(v.message)));
});

const dir = sharedTranscriptsDir();
const files = dir
  ? fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .flatMap((d) => fs.readdirSync(path.join(dir, d.name)).map((f) => path.join(dir, d.name, f)))
  : [];
if (!dir)
  test('recorded transcripts with reused ids', (t) =>
    t.skip('../shared/transcripts not found beside the repository; set CONTEXT_KEEPER_SHARED to run these'));

for (const file of files) {
  const name = path.relative(dir!, file);
  test(`${name}: replay at 8k, 32k and 128k, as recorded and with ids reused in every step, sends only valid contexts that fit the window`, async () => {
    const s = await loadSession(file);
    const rewritten = reuseIdsPerStep(
      toMessages(s.items.length === s.entries.length ? s.items : itemsFromEntries(s.entries)),
    );
    const again = await importMessages(rewritten);
    assert.equal(
      again.entries.filter((e) => e.message.role === 'tool').length,
      s.entries.filter((e) => e.message.role === 'tool').length,
      'no result demoted to user text',
    );
    assert.ok(
      !again.warnings.some((w) => /no recorded result|no result|kept as user text/.test(w)),
      again.warnings.join('\n'),
    );
    for (const [label, entries] of [
      ['recorded', s.entries],
      ['reused ids', again.entries],
    ] as const) {
      for (const window of [8000, 32_000, 128_000]) {
        const report = await replay(entries, s.meter, new ExtractiveSummarizer((t) => s.meter.countText(t)), {
          budget: { contextWindow: window, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
          tools: s.transcript.tools,
        });
        assert.deepEqual(report.violations.slice(0, 3), [], `${name} (${label}) @${window}`);
        // Every call fits the window, unless the system prompt and tool schemas alone do not.
        const fixed = report.peakHolders?.systemAndTools ?? 0;
        assert.ok(
          report.peakTokens <= window || fixed >= window,
          `${name} (${label}) @${window}: peak ${report.peakTokens}; ${report.peakHolders ? describeHolders(report.peakHolders, window) : ''}`,
        );
        if (label === 'reused ids' && window === 8000)
          assert.ok(
            report.compactions > 0 || report.peakTokens < 6400,
            `${name}: compaction still runs with reused ids`,
          );
      }
    }
  });
}
