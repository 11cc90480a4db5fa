/**
 * The scorecard's readings of a span that grew at its end continue the reading of the span before
 * (its entries, its calls' facts, its code names, its commands that never failed, its commits): each equals a
 * fresh reading of the whole span (fresh copies of the messages, so nothing kept applies), in the
 * native tool-call form and in the form of calls written in the assistant's text (SWE-agent), also
 * when a call waits for its result at the cut and when an earlier message of the span is another one.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentCalls, codeNames, errorSignatures, type RetentionEntry } from '../../../src/compaction/retention';
import { neverFailedCommands } from '../../../src/compaction/retention/errors';
import { spanCommits } from '../../../src/compaction/retention/commits';
import { retentionScorecard } from '../../../src/compaction/retention/scorecard';
import { itemsFromEntries } from '../../../src/compaction/context';
import { rng } from '../../support/generate';

type Form = 'native' | 'text';

const COMMANDS = [
  'npm test',
  'npx tsc -p . --noEmit && node --test test/a.test.js',
  'cd /w && make build 2>&1 | tail -5',
  'pytest -x tests/test_parser.py',
  'git status',
];
const FILES = ['src/parser.ts', 'src/lib/loadConfig.ts', 'tests/test_parser.py', 'README.md'];

/** A code name of step `k`, in letters (a name with three digits in a row is not a code name). */
const caseName = (k: number) =>
  `runCase${String.fromCharCode(65 + (k % 26))}${String.fromCharCode(97 + (Math.floor(k / 26) % 26))}`;

/**
 * A session of `steps` agent steps in `form`: commands (some failing, as a flag in the native form
 * and as an error at the head of the output in the text form), edits and reads, assistant prose
 * naming code, and typed requests now and then.
 */
function session(form: Form, seed: number, steps: number): RetentionEntry[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const out: RetentionEntry[] = [{ message: { role: 'user', content: 'Fix the parser and keep the tests passing.' } }];
  for (let k = 0; k < steps; k++) {
    const ok = r() < 0.6;
    const command = r() < 0.6;
    const name = command ? 'bash' : pick(['str_replace_editor', 'read_file']);
    // Some commands are run once only, naming code the prose names too (or not).
    const once = `node -e "${caseName(k)}()"`;
    const commit = command && r() < 0.1;
    const args: Record<string, string> = commit
      ? { command: `git commit -m "step ${k}"` }
      : command
        ? { command: r() < 0.3 ? once : pick(COMMANDS) }
        : { path: pick(FILES) };
    if (name === 'str_replace_editor') Object.assign(args, { command: 'str_replace', old_str: 'a', new_str: 'b' });
    const prose = `Step ${k}: calling \`parseConfig${k % 17}()\` from loadSettings_${k % 11}, after \`${caseName(k - 1)}()\`.`;
    // A commit notice in the reply (Aider's form) where the call runs once.
    const reply =
      args.command === once ? `${prose}\n> Commit ${(0xb000000 + k).toString(16)} ran ${caseName(k)}` : prose;
    const sha = (0xa000000 + k * 7919).toString(16);
    const output = !ok
      ? `Error: failed in ${pick(FILES)}:3\nTraceback (most recent call last)`
      : commit
        ? `[main ${sha}] step ${k}\n 1 file changed`
        : `done ${k}`;
    if (form === 'native') {
      out.push({
        message: {
          role: 'assistant',
          content: reply,
          tool_calls: [{ id: `c${k}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
        },
      });
      out.push({ message: { role: 'tool', tool_call_id: `c${k}`, content: output }, meta: { toolOk: ok } });
    } else {
      const params = Object.entries(args)
        .map(([key, v]) => `<parameter=${key}>${v}</parameter>`)
        .join('\n');
      out.push({ message: { role: 'assistant', content: `${reply}\n<function=${name}>\n${params}\n</function>` } });
      out.push({ message: { role: 'user', content: `OBSERVATION:\n${output}` } });
    }
    if (r() < 0.15) out.push({ message: { role: 'user', content: `Now step ${k}: never skip the type check.` } });
  }
  return out;
}

/** Everything the readings give for a whole span (the readings that continue the span read last). */
function readings(entries: RetentionEntry[]) {
  const calls = agentCalls(entries);
  const n = entries.length;
  return {
    names: codeNames(entries, 0, n, calls),
    neverFailed: neverFailedCommands(entries, 0, n, n, calls),
    // Runs counted in the span, failures up to the end of the messages after it (as the scorecard reads them).
    neverFailedBeforeEnd: neverFailedCommands(entries, 0, n - AFTER, n, calls),
    errors: errorSignatures(entries, 0, n, n, calls),
    commits: spanCommits(entries, calls, 0, n),
  };
}

/** Messages after the span in {@link readings}' second reading of the commands that never failed. */
const AFTER = 40;

/**
 * The same read afresh: copies of the messages (nothing kept applies to them), and the names and
 * commands read as a part of a longer span (a message before the span: a part is never continued).
 */
function fresh(entries: RetentionEntry[]) {
  const copy = structuredClone(entries);
  const longer: RetentionEntry[] = [{ message: { role: 'user', content: 'Before the span.' } }, ...copy];
  const calls = agentCalls(longer);
  const n = longer.length;
  return {
    names: codeNames(longer, 1, n, calls),
    neverFailed: neverFailedCommands(longer, 1, n, n, calls),
    neverFailedBeforeEnd: neverFailedCommands(longer, 1, n - AFTER, n, calls),
    errors: errorSignatures(copy, 0, copy.length, copy.length, agentCalls(copy)),
    commits: spanCommits(longer, calls, 1, n),
  };
}

const inserted = itemsFromEntries([
  {
    id: 's',
    message: { role: 'user', content: 'Summary: npm test failed in src/parser.ts; `parseConfig3()` was called.' },
  },
]);

for (const form of ['native', 'text'] as const) {
  test(`${form} calls: a grown span reads as a fresh reading of the whole span, also for a call waiting at the cut`, () => {
    for (const seed of [1, 2, 3]) {
      const all = session(form, seed, 400);
      // Cut right after a command run once, before its result: it waits for its result in the shorter span.
      const cut =
        all.findIndex(
          (e, i) =>
            i > all.length / 2 && e.message.role === 'assistant' && JSON.stringify(e.message).includes('node -e'),
        ) + 1;
      const shorter = all.slice(0, cut);
      // Fresh readings first: a reading of copies replaces what was kept.
      const freshShorter = fresh(shorter);
      const freshAll = fresh(all);
      const before = readings(shorter);
      assert.deepEqual(before, freshShorter, `seed ${seed}: the shorter span`);
      assert.equal(agentCalls(shorter).at(-1)?.result, undefined, 'the last call waits for its result');
      const grown = readings(all);
      assert.deepEqual(grown, freshAll, `seed ${seed}: the grown span`);
      assert.notDeepEqual(grown.errors, before.errors, 'the grown span has more failures and resolutions');
      assert.ok(grown.commits.length > before.commits.length, 'the grown span made more commits');
      // The scorecard continues its entries and facts the same way.
      const freshItems = itemsFromEntries(structuredClone(all).map((e, i) => ({ id: `m${i}`, ...e })));
      const freshCard = retentionScorecard({ replaced: freshItems, inserted });
      const items = itemsFromEntries(all.map((e, i) => ({ id: `m${i}`, ...e })));
      retentionScorecard({ replaced: items.slice(0, cut), inserted });
      assert.deepEqual(retentionScorecard({ replaced: items, inserted }), freshCard, `seed ${seed}: scorecard`);
    }
  });

  test(`${form} calls: a shorter span, then one with another tail, read as fresh readings after a longer one`, () => {
    const all = session(form, 4, 400);
    const other = session(form, 5, 120).slice(1);
    readings(all);
    // The kept reading covers calls past the shorter span's end: their successes and edits must not resolve its failures.
    const shorter = all.slice(0, 300);
    assert.deepEqual(readings(shorter), fresh(shorter), 'the shorter span');
    const changedTail = [...all.slice(0, 250), ...other];
    assert.deepEqual(readings(changedTail), fresh(changedTail), 'the span with another tail');
    assert.deepEqual(readings(all), fresh(all), 'the longer span again');
    // Failures labelled at a point before the end: the calls after the point are not read.
    const calls = agentCalls(all);
    const point = all.length - 60;
    const copy = structuredClone(all);
    assert.deepEqual(
      errorSignatures(all, 0, point, point, calls),
      errorSignatures(copy, 0, point, point, agentCalls(copy)),
      'labelled at a point',
    );
  });

  test(`${form} calls: a span whose earlier message is another one is read again`, () => {
    const all = session(form, 9, 300);
    const changed = all.slice();
    // The first call becomes another command that never fails and names other code.
    const first = changed.findIndex((e) => e.message.role === 'assistant');
    changed[first] = {
      message:
        form === 'native'
          ? {
              role: 'assistant',
              content: 'Calling `renderTable()` now.',
              tool_calls: [
                {
                  id: 'c0',
                  type: 'function',
                  function: { name: 'bash', arguments: JSON.stringify({ command: 'cargo check --all' }) },
                },
              ],
            }
          : {
              role: 'assistant',
              content:
                'Calling `renderTable()` now.\n<function=bash>\n<parameter=command>cargo check --all</parameter>\n</function>',
            },
    };
    changed[first + 1] =
      form === 'native'
        ? { message: { role: 'tool', tool_call_id: 'c0', content: 'ok' }, meta: { toolOk: true } }
        : { message: { role: 'user', content: 'OBSERVATION:\nok' } };
    const want = fresh(changed);
    readings(all);
    const again = readings(changed);
    assert.deepEqual(again, want);
    assert.ok(again.names.includes('renderTable'), 'the new message is read');
    assert.ok(again.neverFailed.includes('cargo check --all'), 'its command is read');
  });
}
