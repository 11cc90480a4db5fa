/**
 * A failure the agent ran on purpose (a negative check) and took as the outcome it meant to see in
 * its next words is no open work: the summary lists it as resolved, never as the next step, and its
 * scorecard reads it the same way; a failure the agent's next words do not accept stays open. A
 * failure an earlier summary carried as resolved stays resolved when summarised again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chainedSummaries, sectionOf, WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { errorSignatures } from '../../src/compaction/retention/errors';
import { expectsFailure } from '../../src/compaction/retention/outcome';
import { expectedOutcomes } from '../../src/compaction/summary/ledger/expected-failures';
import { keepMessageMemos } from '../../src/compaction/message-memo';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);
const FORMATS = ['claude-code', 'codex', 'openai-chat', 'swe-agent'] as const;

function notesAndErrors(format: keyof typeof WRITERS, steps: Step[]) {
  const { write, file } = WRITERS[format];
  const entries = importTranscriptTextSync(write(steps), file).entries;
  const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsFromEntries(entries), 6000);
  return { summary, errors: errorSignatures(entries, 0, entries.length) };
}

const MISSING = 'error: `wallet` CLI not found on PATH.\nInstall it and re-run this script.\nexit=2';

const NEGATIVE_CHECK: Step[] = [
  { user: 'add a wallet readiness script and make sure a bad address exits non-zero' },
  { tool: 'write', path: 'scripts/readiness.mjs', content: `#!/usr/bin/env node\n${filler(10)}` },
  { tool: 'bash', command: 'node scripts/readiness.mjs --help', output: `Usage: readiness <address>\n${filler(5)}` },
  // Run twice, the second time without words in between: the agent's next words speak of both.
  { tool: 'bash', command: 'node scripts/readiness.mjs BAD_ADDRESS | head -5', output: MISSING, ok: false },
  { tool: 'bash', command: 'node scripts/readiness.mjs BAD_ADDRESS; echo "exit=$?"', output: MISSING, ok: false },
  { say: 'Exit codes work. Now the build:' },
  { tool: 'bash', command: 'pnpm build', output: `Compiled successfully\n${filler(5)}` },
  { tool: 'read', path: 'README.md', output: `# Wallet\n${filler(20)}` },
];

for (const format of FORMATS) {
  test(`${format}: a negative check the agent's next words take as intended is resolved, not the next step`, () => {
    const { summary, errors } = notesAndErrors(format, NEGATIVE_CHECK);
    assert.doesNotMatch(summary, /^- open: `node scripts\/readiness/m, summary);
    assert.doesNotMatch(summary, /Next step: resolve/, summary);
    // It was never broken: an outcome the agent meant to see, not a fix.
    assert.doesNotMatch(summary, /^- fixed:[^\n]*BAD_ADDRESS/m, summary);
    assert.match(
      sectionOf(summary, 'Commands and outcomes'),
      /^- `node scripts\/readiness\.mjs BAD_ADDRESS; echo[^\n]*→ failed as intended [^\n]*"Exit codes work\."/m,
      summary,
    );
    assert.doesNotMatch(
      sectionOf(summary, 'Commands and outcomes'),
      /BAD_ADDRESS[^\n]*→ failed(?! as intended)/,
      summary,
    );
    const bad = errors.filter((e) => e.key.includes('BAD_ADDRESS'));
    assert.equal(bad.length, 2);
    for (const e of bad) assert.equal(e.state, 'resolved', e.key);
  });

  test(`${format}: a failure the agent's next words do not accept stays open`, () => {
    const { summary, errors } = notesAndErrors(format, [
      { user: 'make the readiness script work' },
      { tool: 'bash', command: 'node scripts/readiness.mjs 0xabc', output: MISSING, ok: false },
      { say: 'This is not the expected error: the CLI is missing on this machine.' },
      { tool: 'read', path: 'README.md', output: `# Wallet\n${filler(20)}` },
    ]);
    assert.match(summary, /^- open: `node scripts\/readiness\.mjs 0xabc`/m, summary);
    assert.equal(errors.find((e) => e.key.includes('0xabc'))?.state, 'open');
  });

  test(`${format}: a failure an earlier summary carried as resolved stays resolved in the next one`, async () => {
    const { write, file } = WRITERS[format];
    const { first, second } = await chainedSummaries(write, file, NEGATIVE_CHECK, [
      { user: 'now document the script' },
      { tool: 'write', path: 'docs/readiness.md', content: `# Readiness\n${filler(30)}` },
      { say: `Documented. ${filler(10)}` },
      { user: 'thanks' },
    ]);
    assert.match(first, /^- `node scripts\/readiness\.mjs BAD_ADDRESS; echo[^\n]*→ failed as intended/m, first);
    assert.doesNotMatch(second, /^- (?:open|unresolved[^:]*):[^\n]*BAD_ADDRESS/m, second);
    assert.doesNotMatch(second, /Next step: resolve/, second);
  });
}

test('the words that accept a failure, and negated ones that do not', () => {
  for (const w of [
    'Exit codes work. Now run the build:',
    'Good, it fails as expected with a bad address.',
    'The script correctly rejects the fake address.',
    'That is the expected error for an unknown address.',
  ])
    assert.equal(expectsFailure(w), true, w);
  for (const w of [
    'This is not the expected error.',
    "The check doesn't work as expected.",
    'The build failed; I will fix the import.',
    'Reproduced the bug: the script raises KeyError.',
  ])
    assert.equal(expectsFailure(w), false, w);
});

for (const format of FORMATS) {
  test(`${format}: the outcomes the agent expected, read from what is kept per message, equal a fresh reading`, () => {
    const { write, file } = WRITERS[format];
    const steps = [...NEGATIVE_CHECK, ...NEGATIVE_CHECK.slice(1), { say: 'That failed; the address check is wrong.' }];
    const entries = importTranscriptTextSync(write(steps), file).entries;
    const items = itemsFromEntries(entries);
    const fresh = () => expectedOutcomes(itemsFromEntries(structuredClone(entries)));
    try {
      keepMessageMemos(false);
      const unkept = [...expectedOutcomes(items)];
      keepMessageMemos(true);
      // The span before it grew, then the grown span: its first messages' facts are read as kept.
      for (let end = 1; end <= items.length; end++)
        assert.deepEqual(
          [...expectedOutcomes(items.slice(0, end))],
          [...expectedOutcomes(itemsFromEntries(structuredClone(entries.slice(0, end))))],
          `first ${end}`,
        );
      assert.deepEqual([...expectedOutcomes(items)], unkept);
      assert.deepEqual([...fresh()], unkept);
      assert.ok(
        entries.slice(0, entries.length - 2).some((_, end) => expectedOutcomes(items.slice(0, end + 1)).size > 0),
        'some prefix holds an expected failure',
      );
    } finally {
      keepMessageMemos(true);
    }
  });
}

for (const format of ['claude-code', 'openai-chat'] as const) {
  test(`${format}: a long span's expected outcomes, grown, cut short or with another tail, equal a fresh reading`, () => {
    const { write, file } = WRITERS[format];
    // Long enough that the reading is kept for the next, grown span; accepted and rejected runs alternate.
    const steps: Step[] = [];
    for (let k = 0; k < 40; k++)
      steps.push(...NEGATIVE_CHECK.slice(1), {
        say: k % 3 === 0 ? 'That failed; the address check is wrong.' : 'Exit codes work.',
      });
    const entries = importTranscriptTextSync(write(steps), file).entries;
    const items = itemsFromEntries(entries);
    assert.ok(items.length > 300, `${items.length} items`);
    const same = (list: typeof items, label: string) => {
      const copy = itemsFromEntries(structuredClone(entries.slice(0, list.length)));
      const want = [...expectedOutcomes(copy)];
      assert.deepEqual([...expectedOutcomes(list)], want, label);
    };
    const other = itemsFromEntries(importTranscriptTextSync(write(NEGATIVE_CHECK), file).entries);
    for (const end of [280, 290, items.length]) same(items.slice(0, end), `first ${end}`);
    same(items.slice(0, 270), 'a shorter span after a longer one');
    // Another tail: the fresh reading of the same messages (the copies of the other tail's).
    const tail = [...items.slice(0, 260), ...other];
    const want = [...expectedOutcomes([...itemsFromEntries(structuredClone(entries.slice(0, 260))), ...other])];
    expectedOutcomes(items);
    assert.deepEqual([...expectedOutcomes(tail)], want, 'another tail');
    assert.ok(want.length > 0, 'some command was expected to fail');
  });
}
