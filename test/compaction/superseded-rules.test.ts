/**
 * A standing rule that a later request overrides no longer stands: a prohibition whose object a later
 * request asks to work on ("Do NOT modify … root layout" then "Fix the warning in … root layout") is
 * shown as superseded by that request, never as a standing rule; a later request that keeps or
 * bounds the same thing ("leave the root layout unchanged") overrides nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { overridingSentence } from '../../src/compaction/summary/prose';

const filler = (n: number, word: string) => `${word} lorem ipsum dolor sit amet `.repeat(n);
const RULE = 'Do NOT modify public/customer pages (booking, confirmation, home, root layout).';

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
  test(`${format}: a rule a later request overrides is shown as superseded, not as standing`, () => {
    const { write, file } = ALL_WRITERS[format];
    const summary = notesOf(
      write(steps('Fix the React hydration mismatch warning in the status page and root layout.')),
      file,
    );
    const section = rules(summary);
    assert.ok(!section.split('\n').includes(`- "${RULE}"`), summary);
    assert.match(
      section,
      /^- superseded by a later request \("Fix the React hydration mismatch[^\n]*no longer standing: "Do NOT modify public\/customer pages/m,
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
  'Keep the form simple and do not change Supabase or Environment cards.',
  'Do NOT change Supabase card or Environment card.',
  'Do not change Supabase or Environment sections.',
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
  test(`${format}: rules that say the same are one line, standing or superseded`, () => {
    const { write, file } = ALL_WRITERS[format];
    const standing = rules(notesOf(write(sameRuleSteps([])), file));
    assert.equal(standing.match(/Supabase/g)?.length, 1, standing);
    const restyle = 'Restyle the Environment cards as a vertical stack at the top.';
    const superseded = rules(notesOf(write(sameRuleSteps([{ user: restyle }])), file));
    assert.equal(superseded.match(/Supabase/g)?.length, 1, superseded);
    assert.match(superseded, /^- superseded by a later request \("Restyle the Environment cards/m, superseded);
    // Said again after it was superseded, the rule stands again, once.
    const again = rules(notesOf(write(sameRuleSteps([{ user: restyle }, { user: SAME_RULE[1] }])), file));
    assert.equal(again, `- "${SAME_RULE[1]}"`, again);
  });
}

test('what overrides a prohibition: a later sentence asking for work on what it forbids', () => {
  assert.equal(
    overridingSentence(RULE, 'Fix the warning. Also update the root layout to set the theme.'),
    'Also update the root layout to set the theme.',
  );
  assert.equal(
    overridingSentence('Do NOT touch src/config.ts.', 'In src/config.ts add the port.'),
    'In src/config.ts add the port.',
  );
  // A single plain word names too much to tell ("booking" of the public pages, "bookings" of the admin).
  assert.equal(overridingSentence(RULE, 'Add a data table to the admin bookings page.'), undefined);
  assert.equal(overridingSentence(RULE, 'Do not touch the root layout either.'), undefined);
  assert.equal(overridingSentence('Explain each command before running it.', 'Explain the root layout.'), undefined);
});
