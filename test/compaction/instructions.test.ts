/**
 * Nothing is presented as an instruction that is not one: standing rules come only from sentences
 * that say they last (not one-off scoping repeated in every request, as Aider sessions do), decisions
 * only where a choice is given with its reason, identifiers only real identifiers (no heredoc
 * scripts, no code lines that mention an error), and clipped text ends at a word with a marker.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, summaryOf, type Step } from '../support/recordings';
import { extractIdentifiers } from '../../src/compaction/summary/identifiers/identifiers';
import { clip } from '../../src/compaction/summary/message-facts';
import { DECISION, NOT_DECISION, ruleSentences } from '../../src/compaction/summary/prose';

const filler = (n: number) => `${'lorem ipsum dolor sit amet '.repeat(n)}`;

const work: Step[] = [
  { user: 'Make the header sticky. Do not add new features. Only touch layout classes.' },
  { say: `First, the user wants a sticky header instead of a static one. ${filler(200)}` },
  {
    user: 'Now tighten the footer spacing. Do not add new features. From now on, always run the linter before you say a change is done.',
  },
  { say: `I chose CSS grid instead of flexbox because the footer has three fixed columns. ${filler(300)}` },
  { user: 'And the sidebar colour. Do not add new features.' },
  { say: 'ok' },
];

for (const [format, { write, file }] of Object.entries(ALL_WRITERS)) {
  test(`${format}: standing rules are the sentences that last; one-off scoping and narration are not rules or decisions`, async () => {
    const { summary } = await summaryOf(write(work), file);
    const rules = /## Standing rules[^\n]*\n([\s\S]*?)(\n\n|$)/.exec(summary)?.[1] ?? '';
    if (format !== 'swe-agent') assert.match(rules, /always run the linter/, summary);
    assert.doesNotMatch(rules, /Do not add new features|Only touch layout/, summary);
    const decisions = /## Decisions[^\n]*\n([\s\S]*?)(\n\n|$)/.exec(summary)?.[1] ?? '';
    assert.doesNotMatch(decisions, /the user wants/, summary);
  });
}

test('rules, decisions: the words that make each one', () => {
  assert.deepEqual(ruleSentences('Do not change other parts. Never commit unless I ask.'), [
    'Never commit unless I ask.',
  ]);
  assert.ok(DECISION.test('Went with SQLite rather than Postgres because the app runs offline.'));
  assert.ok(!DECISION.test('Using grid instead of flexbox.'), 'a choice with no reason is no decision');
  assert.ok(NOT_DECISION.test("If you'd rather keep flexbox instead, say so because it is your call."));
});

test('identifiers: no heredoc scripts and no code lines that merely mention an error', () => {
  const text = [
    JSON.stringify({ command: "cat > a.py <<'EOF'\nprint(1)\nEOF" }),
    JSON.stringify({ command: 'npm run build' }),
    "  console.error('Publish error:', err);",
    '} catch (error: any) {',
    '-- ERROR: rows with a failed status are retried',
    'TypeError: Cannot read properties of undefined (reading map)',
  ].join('\n');
  const ids = extractIdentifiers(text);
  assert.ok(ids.includes('npm run build'), ids.join(' | '));
  assert.ok(ids.includes('TypeError: Cannot read properties of undefined (reading map)'), ids.join(' | '));
  for (const junk of ['print(1)', "console.error('Publish error:', err);", '} catch (error: any) {', '-- ERROR'])
    assert.ok(!ids.some((i) => i.includes(junk)), `${junk} in ${ids.join(' | ')}`);
});

test('clipping ends at a sentence or a word, with a marker', () => {
  assert.equal(clip('One two three four five. Six seven eight nine ten eleven', 36), 'One two three four five. …');
  assert.equal(
    clip('The build failed. Then the tests ran for a very long time without output at all', 50),
    'The build failed. Then the tests ran for a very…',
  );
  assert.equal(clip('alpha beta gamma delta epsilon zeta eta theta iota kappa lambda', 30), 'alpha beta gamma delta…');
});
