/**
 * A rule that names its standing ("never") ends only when a later request explicitly reverses it (a
 * rule said as the scope of one request ends sooner, see scoped-rules.test.ts): a request that asks for work
 * on part of what a prohibition forbids ("NEVER modify … root layout" then "Fix the warning in … root
 * layout") makes an exception, and the rule stands with the exception named beside it; a permission
 * covering all it forbids ("You can now change …") or the rule lifted as such shows it superseded; a
 * later request that keeps or bounds the same thing ("leave the root layout unchanged") changes nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { ruleChange } from '../../src/compaction/summary/prose';

const filler = (n: number, word: string) => `${word} lorem ipsum dolor sit amet `.repeat(n);
const RULE = 'NEVER modify public/customer pages (booking, confirmation, home, root layout).';

const steps = (later: string): Step[] => [
  { user: `Create the admin pages under src/app/admin. ${RULE}` },
  { tool: 'write', path: 'src/app/admin/page.tsx', content: 'export default function Admin() { return null; }' },
  { say: `Created the admin pages. ${filler(30, 'admin')}` },
  { user: later },
  {
    tool: 'edit',
    path: 'src/app/layout.tsx',
    old: '<html lang="de">',
    new: '<html lang="de" suppressHydrationWarning>',
  },
  { say: `Done. ${filler(30, 'done')}` },
  { user: 'Now add a footer to the admin pages.' },
];

/** The extractive notes of the recording `text` (named `file`), with room for every section. */
function notesOf(text: string, file: string): string {
  const entries = importTranscriptTextSync(text, file).entries;
  return new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsFromEntries(entries), 6000);
}

/** The standing rules section of `summary`. */
function rules(summary: string): string {
  return /## Standing rules[^\n]*\n([\s\S]*?)(\n\n|$)/.exec(summary)?.[1] ?? '';
}

for (const format of ['aider', 'claude-code', 'codex', 'cline'] as const) {
  test(`${format}: an exception to part of a rule leaves the rule standing, with the exception beside it`, () => {
    const { write, file } = ALL_WRITERS[format];
    const summary = notesOf(
      write(steps('Fix the React hydration mismatch warning in the status page and root layout.')),
      file,
    );
    const section = rules(summary);
    assert.doesNotMatch(section, /superseded|no longer standing/, summary);
    assert.match(
      section,
      /^- "NEVER modify public\/customer pages \(booking, confirmation, home, root layout\)\." \(stands; a later request made an exception: "Fix the React hydration mismatch warning in the status page and root layout\."\)$/m,
      summary,
    );
  });

  test(`${format}: an explicit reversal of the whole rule supersedes it`, () => {
    const { write, file } = ALL_WRITERS[format];
    const summary = notesOf(
      write(steps('Ignore my earlier restriction on the public/customer pages: the root layout needs a theme switch.')),
      file,
    );
    const section = rules(summary);
    assert.ok(!section.split('\n').some((l) => l.startsWith(`- "${RULE}"`)), summary);
    assert.match(
      section,
      /^- superseded by a later request \("Ignore my earlier restriction[^\n]*no longer standing: "NEVER modify public\/customer pages/m,
      summary,
    );
  });

  test(`${format}: a later request that keeps the same thing leaves the rule standing`, () => {
    const { write, file } = ALL_WRITERS[format];
    const summary = notesOf(
      write(steps('Fix the hydration warning in the status page; leave the root layout unchanged.')),
      file,
    );
    assert.ok(rules(summary).split('\n').includes(`- "${RULE}"`), summary);
  });
}

/** Three wordings of one prohibition, each in its own request. */
const SAME_RULE = [
  'Keep the form simple and never change Supabase or Environment cards.',
  'NEVER change Supabase card or Environment card.',
  'Never change Supabase or Environment sections.',
];

const sameRuleSteps = (later: Step[]): Step[] => [
  ...SAME_RULE.flatMap((rule, k): Step[] => [
    { user: `Add the broker form number ${k + 1}. ${rule}` },
    { tool: 'write', path: `src/app/broker-${k}.tsx`, content: 'export const Broker = () => null;' },
    { say: `Added the broker form. ${filler(30, 'broker')}` },
  ]),
  ...later,
];

for (const format of ['aider', 'claude-code', 'codex', 'cline'] as const) {
  test(`${format}: rules that say the same are one line, standing, with an exception or superseded`, () => {
    const { write, file } = ALL_WRITERS[format];
    const standing = rules(notesOf(write(sameRuleSteps([])), file));
    assert.equal(standing.match(/Supabase/g)?.length, 1, standing);
    const restyle = 'Restyle the Environment cards as a vertical stack at the top.';
    const excepted = rules(notesOf(write(sameRuleSteps([{ user: restyle }])), file));
    assert.equal(excepted.match(/Supabase/g)?.length, 1, excepted);
    assert.match(
      excepted,
      /^- "[^\n]*Supabase[^\n]*" \(stands; a later request made an exception: "Restyle the Environment cards/m,
    );
    const reverse = 'You can now change the Supabase and Environment cards as you see fit.';
    const superseded = rules(notesOf(write(sameRuleSteps([{ user: reverse }])), file));
    assert.equal(superseded.match(/Supabase/g)?.length, 2, superseded);
    assert.match(superseded, /^- superseded by a later request \("You can now change the Supabase/m, superseded);
    // Said again after it was superseded, the rule stands again, once.
    const again = rules(notesOf(write(sameRuleSteps([{ user: reverse }, { user: SAME_RULE[1] }])), file));
    assert.equal(again, `- "${SAME_RULE[1]}"`, again);
  });
}

test('how a later sentence changes a prohibition: an exception to part of it, or an explicit reversal of all of it', () => {
  assert.deepEqual(ruleChange(RULE, 'Fix the warning. Also update the root layout to set the theme.'), {
    by: 'Also update the root layout to set the theme.',
    kind: 'exception',
  });
  assert.deepEqual(ruleChange('Do NOT touch src/config.ts.', 'In src/config.ts add the port.'), {
    by: 'In src/config.ts add the port.',
    kind: 'exception',
  });
  // A permission for one of the items is an exception; for all it forbids, a reversal.
  assert.equal(ruleChange(RULE, 'You can now change the root layout.')?.kind, 'exception');
  assert.equal(
    ruleChange('Do not change Supabase or Environment cards.', 'You can now change the Supabase and Environment cards.')
      ?.kind,
    'reversed',
  );
  assert.equal(
    ruleChange('Do NOT touch src/config.ts.', 'Feel free to edit src/config.ts from here on.')?.kind,
    'reversed',
  );
  assert.equal(ruleChange(RULE, 'The restriction no longer applies to the root layout.')?.kind, 'reversed');
  // A single plain word names too much to tell ("booking" of the public pages, "bookings" of the admin).
  assert.equal(ruleChange(RULE, 'Add a data table to the admin bookings page.'), undefined);
  assert.equal(ruleChange(RULE, 'Do not touch the root layout either.'), undefined);
  assert.equal(ruleChange('Explain each command before running it.', 'Explain the root layout.'), undefined);
});
