/**
 * An exception a later request made to a standing rule ends when a request after it forbids again what
 * the exception asked for ("Show the full <MachineCard /> component in the Environment card", then "Do
 * NOT use the full <MachineCard /> component anywhere"): the rule stands without the exception, also
 * when the exception was carried in an earlier summary. Recorded in Aider's, Claude Code's, Codex's and
 * Cline's formats.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { revokingSentence } from '../../src/compaction/summary/prose';
import type { ContextItem } from '../../src/compaction/types';

const filler = (n: number, word: string) => `${word} lorem ipsum dolor sit amet `.repeat(n);
const RULE = 'Never change the Environment or Supabase cards.';
const EXCEPTION = 'Show the full <MachineCard /> component in the Environment card on the detail page.';
const REVOKE = 'Do NOT use the full <MachineCard /> component anywhere — it would nest cards incorrectly.';

const first: Step[] = [
  { user: `Build the machine dashboard. ${RULE}` },
  { tool: 'write', path: 'src/app/dashboard/page.tsx', content: 'export default function Page() { return null; }' },
  { say: `Built the dashboard. ${filler(30, 'dashboard')}` },
  { user: EXCEPTION },
  { tool: 'edit', path: 'src/app/dashboard/page.tsx', old: 'return null;', new: 'return <MachineCard />;' },
  { say: `Done. ${filler(30, 'done')}` },
];
const then: Step[] = [
  { user: `Use a status badge instead. ${REVOKE}` },
  { tool: 'edit', path: 'src/app/dashboard/page.tsx', old: 'return <MachineCard />;', new: 'return <Badge />;' },
  { say: `Replaced it. ${filler(30, 'badge')}` },
  { user: 'Now add a footer to the dashboard.' },
];

/** The extractive notes of `steps` written by `format`, after the summaries `before`, with room for every section. */
function notesOf(format: keyof typeof ALL_WRITERS, steps: readonly Step[], before: ContextItem[] = []): string {
  const { write, file } = ALL_WRITERS[format];
  const items = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
  return new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes([...before, ...items], 6000);
}

/** The standing rules section of `summary`. */
function rules(summary: string): string {
  return /## Standing rules[^\n]*\n([\s\S]*?)(\n\n|$)/.exec(summary)?.[1] ?? '';
}

for (const format of ['aider', 'claude-code', 'codex', 'cline'] as const) {
  test(`${format}: a later prohibition of what an exception asked for ends the exception; the rule stands`, () => {
    const excepted = rules(notesOf(format, first));
    assert.match(excepted, /\(stands; a later request made an exception: "Show the full <MachineCard \/>/, excepted);
    const section = rules(notesOf(format, [...first, ...then]));
    assert.ok(section.split('\n').includes(`- "${RULE}"`), section);
    assert.doesNotMatch(section, /made an exception: "Show the full <MachineCard/, section);
    assert.match(section, /^- "Do NOT use the full <MachineCard \/> component anywhere/m, section);
  });

  test(`${format}: an exception carried in an earlier summary ends when a later request forbids it again`, () => {
    const earlier: ContextItem = {
      id: 'cp~s',
      kind: 'summary',
      message: { role: 'user', content: notesOf(format, first) },
      covers: [],
      checkpointId: 'cp',
    };
    const section = rules(notesOf(format, then, [earlier]));
    assert.ok(section.split('\n').includes(`- "${RULE}"`), section);
    assert.doesNotMatch(section, /made an exception/, section);
  });
}

test('the sentence that forbids again what an exception asked for: by every word of its object, or by a code name', () => {
  assert.equal(revokingSentence(EXCEPTION, `Thanks. ${REVOKE}`), REVOKE);
  assert.equal(
    revokingSentence('Fix the hydration warning in the status page and root layout.', 'Do not touch the root layout.'),
    'Do not touch the root layout.',
  );
  // A prohibition of something else, or a request that forbids nothing, leaves the exception standing.
  assert.equal(revokingSentence(EXCEPTION, 'Do not change the Supabase card.'), undefined);
  assert.equal(revokingSentence(EXCEPTION, 'Use the <MachineCard /> component on the list page too.'), undefined);
});
