/**
 * The faster paths of the compaction core give the plain paths' output: line-by-line counting equals
 * counting the whole text, identifiers merged from per-message parts equal those of the joined text,
 * and a compaction over messages already read (cached per message) equals one over fresh copies.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { LineCounter, startsPiece } from '../../src/tokenizer/line-count';
import { extractIdentifiers } from '../../src/compaction/summary/identifiers/identifiers';
import { identifiersOfPart, mergePartIdentifiers } from '../../src/compaction/summary/identifiers/identifier-parts';
import {
  BACKFILL_HEADINGS,
  backfillIdentifiers,
  sourceIdentifiers,
  outputText,
  sourcesOf,
  SpanIdentifiers,
} from '../../src/compaction/summary/identifiers/backfill';
import { compact } from '../../src/compaction/rewrite/compactor';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { itemsFromEntries } from '../../src/compaction/context';
import { buildLedger } from '../../src/compaction/summary/ledger/ledger';
import { actionsOf } from '../../src/compaction/summary/ledger/actions';
import { rng } from '../support/generate';
import type { ChatMessage } from '../../src/compaction/types';
import { workSession } from '../support/work-session';

const PIECES = [
  '- ',
  '## Files',
  'foo',
  ' bar',
  '\t',
  '/usr/bin',
  '  indented',
  '',
  'x)',
  '.',
  '…',
  'naïve',
  '日本語',
  '123',
  "it's",
  '\r',
  '\u2028',
  '"q"',
  '`npm test`',
  '->',
  '  ',
  '\n',
  'A',
];

function randomLine(r: () => number): string {
  const n = Math.floor(r() * 6);
  return Array.from({ length: n }, () => PIECES[Math.floor(r() * PIECES.length)]).join('');
}

test('counting line by line equals counting the joined text, for both encodings, on lines of every start', () => {
  for (const model of ['gpt-4o', 'gpt-4']) {
    const meter = new TokenMeter({ model });
    const r = rng(model.length);
    let additive = 0;
    for (let k = 0; k < 400; k++) {
      const blocks = Array.from({ length: 1 + Math.floor(r() * 4) }, () =>
        Array.from({ length: 1 + Math.floor(r() * 5) }, () => randomLine(r)),
      );
      const lines = new LineCounter((t) => meter.countText(t), true);
      const counted = lines.countBlocks(blocks);
      const whole = meter.countText(blocks.map((b) => b.join('\n')).join('\n\n'));
      if (counted === undefined) {
        // Only when a line after the first starts inside the piece before it.
        assert.ok(
          blocks
            .flat()
            .slice(1)
            .some((l) => !startsPiece(l)),
          JSON.stringify(blocks),
        );
        continue;
      }
      additive++;
      assert.equal(counted, whole, `${model}: ${JSON.stringify(blocks)}`);
    }
    assert.ok(additive > 30, `${additive} texts counted line by line`);
  }
});

test('counting any text by its parts equals counting it whole, for both encodings, the kept counts reused', () => {
  const separators = ['\n', '\n\n', '\n\n\n', '\r\n', '\n  ', '\n/', '\n\t', ''];
  for (const model of ['gpt-4o', 'gpt-4']) {
    const meter = new TokenMeter({ model });
    const r = rng(model.length + 7);
    // One counter for every text, as a compaction keeps one: counts kept for one text serve the next.
    const lines = new LineCounter((t) => meter.countText(t), true);
    for (let k = 0; k < 600; k++) {
      let text = '';
      for (let n = Math.floor(r() * 12); n > 0; n--)
        text += randomLine(r) + separators[Math.floor(r() * separators.length)];
      assert.equal(lines.countLines(text), meter.countText(text), `${model}: ${JSON.stringify(text)}`);
    }
  }
});

test('a counter that is not additive is never summed line by line', () => {
  const lines = new LineCounter((t) => Math.ceil(t.length / 4), false);
  assert.equal(lines.countBlocks([['## a', '- b']]), undefined);
});

test("identifiers merged from each message's parts equal those of the joined text", () => {
  for (let seed = 1; seed <= 20; seed++) {
    const items = itemsFromEntries(workSession(seed, 200));
    const src = sourcesOf(items);
    // Per message, as the back-fill reads them.
    const byKey = { args: [] as string[], conversation: [] as string[], output: [] as string[] };
    items.forEach((it, i) => {
      const m = it.message;
      const text = typeof m.content === 'string' ? m.content : '';
      const out = m.role === 'tool' || (m.role === 'user' && /^OBSERVATION:/.test(text));
      // A listing or a documentation file shown gives none (see outputText).
      if (out) {
        const given = outputText(items, i);
        if (given !== undefined) byKey.output.push(given);
      } else if (m.role === 'user' || m.role === 'assistant') byKey.conversation.push(text);
      for (const c of (m as { tool_calls?: Array<{ function: { name: string; arguments: string } }> }).tool_calls ?? [])
        byKey.args.push(`${c.function.name} ${c.function.arguments}`);
    });
    let merged = 0;
    for (const key of ['args', 'conversation', 'output'] as const) {
      assert.equal(byKey[key].join('\n'), src[key], `${key} texts as the back-fill joins them`);
      const list = mergePartIdentifiers(byKey[key].map(identifiersOfPart));
      if (list === undefined) continue;
      merged++;
      assert.deepEqual(list, extractIdentifiers(src[key]), `seed ${seed} ${key}`);
    }
    assert.ok(merged >= 1, `seed ${seed}: some source merged`);
  }
});

test('identifiers read lazily source by source equal those of the joined text, also past a join that is not sealed', () => {
  // Work sessions, and the same with parts that end inside a command array or a Traceback spliced in.
  const splices: ChatMessage[][] = [
    [
      { role: 'tool', tool_call_id: 'call_x1', content: '"cmd": ["bash", "-lc",' },
      { role: 'tool', tool_call_id: 'call_x2', content: '"ls -la src/a.ts"]' },
    ],
    [
      {
        role: 'tool',
        tool_call_id: 'call_x3',
        content: 'Traceback (most recent call last):\n  File "app/x.py", line 3',
      },
      { role: 'tool', tool_call_id: 'call_x4', content: 'KeyError: missing /srv/data.json' },
    ],
    [
      { role: 'assistant', content: 'I ran {"command": "echo one' },
      { role: 'assistant', content: 'two" } on src/b.ts' },
    ],
    // More joins in a row that are not sealed than are read as one text: the rest is read whole.
    Array.from({ length: 20 }, (_, k) => ({
      role: 'assistant' as const,
      content: k % 2 ? `part${k}" } then {"command": "echo step${k}` : `{"command": "echo start${k}`,
    })),
  ];
  for (let seed = 1; seed <= 12; seed++) {
    const entries = workSession(seed, 150);
    const r = rng(seed);
    for (const pair of seed % 4 === 0 ? [] : splices)
      entries.splice(
        1 + Math.floor(r() * (entries.length - 1)),
        0,
        ...pair.map((message, k) => ({ id: `x${seed}-${k}-${entries.length}`, message: { ...message } })),
      );
    const items = itemsFromEntries(entries);
    const src = sourcesOf(items);
    for (const key of ['args', 'conversation', 'output'] as const) {
      assert.deepEqual([...sourceIdentifiers(items, key)], extractIdentifiers(src[key]), `seed ${seed} ${key}`);
      // Read again (parts now cached per message): the same list.
      assert.deepEqual([...sourceIdentifiers(items, key)], extractIdentifiers(src[key]), `seed ${seed} ${key}, cached`);
    }
  }
});

test('a text counted line by line (counts kept across counters) equals the text counted whole', () => {
  const meter = new TokenMeter({ model: 'gpt-4o' });
  const r = rng(7);
  for (let k = 0; k < 300; k++) {
    const text = Array.from({ length: 1 + Math.floor(r() * 12) }, () => randomLine(r)).join(r() < 0.3 ? '\n\n' : '\n');
    const shared = new LineCounter((t) => meter.countText(t), true, meter.encoding);
    assert.equal(shared.countLines(text), meter.countText(text), JSON.stringify(text));
    // A second counter of the encoding reads the kept line counts: the same figure.
    assert.equal(
      new LineCounter((t) => meter.countText(t), true, meter.encoding).countLines(text),
      meter.countText(text),
    );
  }
});

test('a part that ends inside a command string or a Traceback is not sealed (its identifiers may reach into the next)', () => {
  assert.equal(identifiersOfPart('{"command": "echo a').sealed, false);
  assert.equal(identifiersOfPart('"cmd": ["bash", "-lc", "ls').sealed, false);
  assert.equal(identifiersOfPart('run "command"').sealed, false);
  assert.equal(identifiersOfPart('Traceback (most recent call last):\n  File "a.py", line 1').sealed, false);
  assert.equal(
    identifiersOfPart('Traceback (most recent call last):\n  File "a.py", line 1\nValueError: x').sealed,
    true,
  );
  assert.equal(identifiersOfPart('{"command": "npm test"}').sealed, true);
  // A command array split over two parts is one identifier of the joined text: merging must refuse.
  const parts = ['"cmd": ["bash", "-lc",', '"ls -la"]'];
  assert.ok(extractIdentifiers(parts.join('\n')).includes('ls -la'));
  assert.equal(mergePartIdentifiers(parts.map(identifiersOfPart)), undefined);
});

test('a compaction over messages read before equals one over fresh copies of them', async () => {
  for (let seed = 1; seed <= 6; seed++) {
    const entries = workSession(seed, 300);
    const run = async (items: ReturnType<typeof itemsFromEntries>) => {
      const meter = new TokenMeter({ model: 'gpt-4o' });
      const summarizer = new ExtractiveSummarizer((t) => meter.countText(t), { lineAdditive: meter.lineAdditive });
      const res = await compact({
        items,
        meter,
        summarizer,
        options: {
          budget: { contextWindow: 6000, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
          trigger: 'manual',
          force: true,
          all: seed % 2 === 0,
        },
      });
      // A summary names its checkpoint, whose id is random: compared without it.
      return res.checkpoints.map((c) => [c.strategy, c.summary.replace(c.id, 'ck-id'), c.tokensBefore, c.tokensAfter]);
    };
    const items = itemsFromEntries(entries);
    const first = await run(items);
    const again = await run(items);
    const fresh = await run(itemsFromEntries(structuredClone(entries)));
    assert.deepEqual(again, first);
    assert.deepEqual(fresh, first);
    assert.ok(first.length > 0);
    // The ledger of the span, from cached actions, equals the one from fresh messages.
    assert.deepEqual(
      buildLedger(actionsOf(items)).errors,
      buildLedger(actionsOf(itemsFromEntries(structuredClone(entries)))).errors,
    );
  }
});

test("a span's identifiers read for one back-fill are replayed for the next: the same back-fills as reading afresh", () => {
  const items = itemsFromEntries(workSession(5, 150));
  const sources = new SpanIdentifiers(items);
  // A first reader stops early; a second one replays it and reads on to the end.
  const firstThree = [...take(sources.of('args'), 3)];
  assert.deepEqual(firstThree, [...take(sourceIdentifiers(items, 'args'), 3)]);
  assert.deepEqual([...sources.of('args')], [...sourceIdentifiers(items, 'args')]);
  const summary = 'Worked on the export.';
  for (const chars of [2000, 600, 150]) {
    assert.deepEqual(
      backfillIdentifiers(summary, items, chars, new Map(), sources),
      backfillIdentifiers(summary, items, chars),
      `allowance ${chars}`,
    );
  }
});

test("a grown span's identifiers continue the reading of the span before it: the same identifiers, in order, as reading afresh", () => {
  const all = itemsFromEntries(workSession(7, 400));
  assert.ok(all.length > 600, 'long enough to be kept');
  for (const key of ['args', 'conversation', 'output'] as const) {
    // Several compactions of a growing conversation, one of them stopping early.
    for (const [cut, first] of [
      [300, Infinity],
      [450, 5],
      [all.length, Infinity],
    ] as const) {
      const span = all.slice(0, cut);
      const got = [...take(new SpanIdentifiers(span).of(key), first)];
      assert.deepEqual(got, [...take(sourceIdentifiers(structuredClone(span), key), first)], `${key} up to ${cut}`);
    }
  }
  // An earlier message replaced: read from the start.
  const changed = all.slice();
  changed[1] = itemsFromEntries([{ id: 'x', message: { role: 'user', content: 'rename src/other/place.ts now' } }])[0];
  assert.deepEqual(
    [...new SpanIdentifiers(changed).of('conversation')],
    [...sourceIdentifiers(changed, 'conversation')],
  );
  assert.ok([...new SpanIdentifiers(changed).of('conversation')].includes('src/other/place.ts'));
});

test('a Traceback mentioned in prose is read part by part: its exception line comes from a later part, and a grown span resumes after it', () => {
  // Prose that quotes a Traceback line, then more than 16 messages of indented lines (source comments),
  // then the line that ends it; in the messages of a conversation and in tool results (the bare text
  // and the JSON-escaped form, with `\n` escapes, as a tool's output may carry it).
  const quoted = [
    'A Python traceback opens with `Traceback (most recent call last):` and ends with the exception;',
    '{"output": "Traceback (most recent call last):\\n  File \\"app/x.py\\", line 3\\n    run()"}',
  ];
  for (const opener of quoted) {
    const entries: Array<{ id: string; message: ChatMessage }> = [];
    const add = (message: ChatMessage) => entries.push({ id: `t${entries.length}`, message });
    for (let k = 0; k < 140; k++) add({ role: k % 2 ? 'assistant' : 'user', content: `step ${k} edits src/m${k}.ts` });
    for (const role of ['assistant', 'tool'] as const) {
      const msg = (content: string): ChatMessage =>
        role === 'tool' ? { role, tool_call_id: `call_t${entries.length}`, content } : { role, content };
      add(msg(opener));
      for (let k = 0; k < 20; k++) add(msg(`   * comment ${k} on lib/c${k}.ts\n     */`));
      add(msg('KeyError: missing /srv/data.json'));
      for (let k = 0; k < 140; k++) add(msg(`later ${k} in pkg/l${k}.go`));
    }
    const all = itemsFromEntries(entries);
    const src = sourcesOf(all);
    for (const key of ['conversation', 'output'] as const) {
      const whole = extractIdentifiers(src[key]);
      assert.ok(whole.includes('KeyError: missing /srv/data.json'), `${key}: the exception line is an identifier`);
      assert.deepEqual([...sourceIdentifiers(all, key)], whole, `${key}`);
    }
    // A span that grows past the Traceback resumes at the end of the span before: no message before
    // the last one read is read again (each message's text is counted as it is taken).
    const reads = new Set<number>();
    const counted = itemsFromEntries(
      entries.map((e, i) => {
        const message = { ...e.message };
        const content = message.content;
        Object.defineProperty(message, 'content', {
          enumerable: true,
          get: () => {
            reads.add(i);
            return content;
          },
        });
        return { id: e.id, message };
      }),
    );
    const cut = entries.length - 100;
    for (const key of ['conversation', 'output'] as const) {
      void [...new SpanIdentifiers(counted.slice(0, cut)).of(key)];
      reads.clear();
      const grown = [...new SpanIdentifiers(counted).of(key)];
      assert.deepEqual(
        [...reads].filter((i) => i < cut - 1),
        [],
        `${key}: read again before the growth`,
      );
      assert.deepEqual(grown, extractIdentifiers(sourcesOf(all)[key]), `${key} grown`);
    }
  }
});

function* take<T>(it: Iterable<T>, n: number): Generator<T> {
  if (n <= 0) return;
  for (const x of it) {
    yield x;
    if (--n <= 0) return;
  }
}

test('a back-fill reads no source once not even its cheapest line fits', () => {
  const items = itemsFromEntries([
    { id: 'u', message: { role: 'user', content: 'edit src/alpha.ts please' } },
    { id: 'a', message: { role: 'assistant', content: 'Done.' } },
    { id: 't', message: { role: 'tool', tool_call_id: 'call_x', content: 'wrote lib/gamma.ts' } },
  ]);
  /** The sources' readings, counting the identifiers each back-fill takes per source. */
  class Counted extends SpanIdentifiers {
    taken: Record<string, number> = {};
    override *of(key: 'args' | 'conversation' | 'output'): Generator<string> {
      for (const id of super.of(key)) {
        this.taken[key] = (this.taken[key] ?? 0) + 1;
        yield id;
      }
    }
  }
  const all = backfillIdentifiers('', items, 10_000);
  assert.deepEqual(all.added, ['src/alpha.ts', 'lib/gamma.ts']);
  // Each source's first line pays for its heading; the shortest line is `- ` and 3 characters.
  const conversation = BACKFILL_HEADINGS.conversation.length + 2 + '- src/alpha.ts'.length + 1;
  const output = BACKFILL_HEADINGS.output.length + 2 + '- lib/gamma.ts'.length + 1;
  const cheapestOutput = BACKFILL_HEADINGS.output.length + 2 + '- abc'.length + 1;
  assert.deepEqual(backfillIdentifiers('', items, conversation + output, new Map(), new Counted(items)), all);
  for (const allowance of [conversation + cheapestOutput, conversation + output - 1]) {
    const counted = new Counted(items);
    assert.deepEqual(backfillIdentifiers('', items, allowance, new Map(), counted).added, ['src/alpha.ts']);
    assert.equal(counted.taken.output, 1, 'a line of the output could fit: it is read');
  }
  const short = new Counted(items);
  const cut = backfillIdentifiers('', items, conversation + cheapestOutput - 1, new Map(), short);
  assert.deepEqual(cut.added, ['src/alpha.ts']);
  assert.equal(short.taken.output, undefined, 'the output was read though no line of it could fit');
  // Every source read to its end beforehand: the same back-fill.
  const read = new Counted(items);
  for (const key of ['args', 'conversation', 'output'] as const) void [...read.of(key)];
  assert.deepEqual(backfillIdentifiers('', items, conversation + cheapestOutput - 1, new Map(), read), cut);
});
