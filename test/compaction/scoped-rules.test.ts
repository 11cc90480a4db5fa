/**
 * A prohibition said as the scope of one request ("Fix the MQTT connection …; do not change Supabase
 * or Environment cards.") holds until a later request changes what it protected: then it is shown
 * superseded, not as a standing rule. A rule that names its standing ("never") stands, with the
 * exception beside it. A block the user titles as persistent instructions is kept as standing rules,
 * every line of it whole, before the rules said in passing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, sectionOf, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { isRequestScoped, persistentBlock } from '../../src/compaction/summary/prose';

const filler = (n: number, word: string) => `${word} lorem ipsum dolor sit amet `.repeat(n);

/** The extractive notes of the recording `text` (named `file`) in `tokens` tokens. */
function notesOf(text: string, file: string, tokens = 6000): string {
  const entries = importTranscriptTextSync(text, file).entries;
  return new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsFromEntries(entries), tokens);
}

const SCOPE = 'Keep the code clean and do not change Supabase or Environment cards.';
const steps = (rule: string): Step[] => [
  { user: `Fix the MQTT connection in src/app/status/page.tsx so that it reconnects. ${rule}` },
  { tool: 'edit', path: 'src/app/status/page.tsx', old: 'reconnect: false', new: 'reconnect: true' },
  { say: `Fixed the connection. ${filler(30, 'mqtt')}` },
  { user: 'Restyle the Environment cards as a vertical stack at the top of the page.' },
  { tool: 'edit', path: 'src/app/status/page.tsx', old: 'flex-row', new: 'flex-col' },
  { say: `Restyled. ${filler(30, 'style')}` },
  { user: 'Now add a footer.' },
];

for (const format of ['aider', 'claude-code', 'codex', 'cline'] as const) {
  test(`${format}: a scope sentence of one request is superseded once a later request changes what it protected`, () => {
    const { write, file } = ALL_WRITERS[format];
    const summary = notesOf(write(steps(SCOPE)), file);
    const rules = sectionOf(summary, 'Standing rules');
    assert.ok(!rules.split('\n').some((l) => l.startsWith(`- "${SCOPE}"`)), summary);
    assert.match(
      rules,
      /^- superseded by a later request \("Restyle the Environment cards[^\n]*no longer standing: "Keep the code clean/m,
    );
  });

  test(`${format}: a rule that names its standing stays, with the later change named as an exception`, () => {
    const { write, file } = ALL_WRITERS[format];
    const rule = 'Never change the Supabase or Environment cards.';
    const rules = sectionOf(notesOf(write(steps(rule)), file), 'Standing rules');
    assert.match(
      rules,
      /^- "Never change the Supabase or Environment cards\." \(stands; a later request made an exception/m,
    );
  });
}

const BLOCK = [
  '# Shop project – persistent instructions',
  '',
  'Core stack:',
  '- Next.js 14 (app router)',
  '- Tailwind CSS',
  '',
  'Important: When editing layout:',
  '- Only change Tailwind classes, spacing, colors, sizing',
  '- NEVER modify logic, MQTT subscriptions, Supabase queries, or component props unless asked',
];

for (const format of ['aider', 'claude-code', 'codex', 'openhands'] as const) {
  test(`${format}: a block titled as persistent instructions is kept as standing rules, whole, first`, () => {
    const { write, file } = ALL_WRITERS[format];
    const text = write([
      { user: 'Add the booking page. Do not touch the admin layout.' },
      {
        tool: 'write',
        path: 'src/app/booking/page.tsx',
        content: 'export default function Booking() { return null; }',
      },
      { say: `Added the booking page. ${filler(30, 'booking')}` },
      { user: BLOCK.join('\n') },
      { say: `Understood. ${filler(30, 'ok')}` },
      ...Array.from({ length: 6 }, (_, k): Step[] => [
        { user: `Restyle card number ${k} of the dashboard. ${filler(12, `card${k}`)}` },
        { tool: 'edit', path: 'src/app/dashboard/page.tsx', old: `p-${k}`, new: `p-${k + 1}` },
        { say: `Restyled card ${k}. ${filler(30, `done${k}`)}` },
      ]).flat(),
      { user: 'Now add a footer.' },
    ]);
    for (const tokens of [6000, 600]) {
      const summary = notesOf(text, file, tokens);
      const lines = sectionOf(summary, 'Standing rules').split('\n');
      const kept = BLOCK.filter((l) => l !== '');
      // Every line of the block, whole, in order, before the rule said in passing.
      assert.deepEqual(
        lines.slice(0, kept.length),
        kept.map((l) => `- "${l}"`),
        summary,
      );
    }
  });
}

test('which rule is scoped to its request, and which block is marked as lasting instructions', () => {
  const request = `Fix the MQTT connection in the status page. ${SCOPE}`;
  assert.equal(isRequestScoped(SCOPE, request), true);
  assert.equal(
    isRequestScoped(
      'Do not change the Supabase card for this change.',
      'Do not change the Supabase card for this change.',
    ),
    true,
  );
  assert.equal(isRequestScoped('Never change the Supabase card.', request), false);
  assert.equal(isRequestScoped('Do not change the Supabase card.', 'Do not change the Supabase card.'), false);
  assert.deepEqual(persistentBlock(BLOCK.join('\n'))?.[0], BLOCK[0]);
  assert.equal(persistentBlock(`Project rules:\n- Use pnpm\n- Keep tests green`)?.length, 3);
  assert.equal(persistentBlock('Fix the project build. The rules engine fails on start.'), undefined);
  // A block under its own heading ends at the next heading of the same level.
  assert.deepEqual(persistentBlock('## Project rules\n- Use pnpm\n## Task\nAdd a footer.'), [
    '## Project rules',
    '- Use pnpm',
  ]);
});

test('a sentence that names the project rules is no title', () => {
  assert.equal(
    persistentBlock('Read the project rules in CONTRIBUTING.md and fix the lint errors in src/app.ts.'),
    undefined,
  );
});
