/**
 * Standing rules come only from the user's own words that constrain later work: a note passed on
 * for information ("Security note: … never commit to git.") is no rule, nor is a sentence of the task
 * itself (a prohibition giving the task's purpose, a statement of what there is); rules that forbid
 * the same thing in other words are one rule, overridden as one, so one is never shown superseded
 * while its twin still stands.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { isRuleSentence, prohibitionKey } from '../../src/compaction/summary/prose';

const filler = (n: number, word: string) => `${word} lorem ipsum dolor sit amet `.repeat(n);

/** The extractive notes of `steps` written by `format`'s writer, with room for every section. */
function notesOf(format: keyof typeof ALL_WRITERS, steps: Step[]): string {
  const { write, file } = ALL_WRITERS[format];
  const entries = importTranscriptTextSync(write(steps), file).entries;
  return new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsFromEntries(entries), 6000);
}

/** The standing rules section of `summary`. */
function rules(summary: string): string {
  return /## Standing rules[^\n]*\n([\s\S]*?)(\n\n|$)/.exec(summary)?.[1] ?? '';
}

for (const format of ['aider', 'cline', 'claude-code', 'codex'] as const) {
  test(`${format}: a note passed on and sentences of the task are no standing rules; a prohibition is`, () => {
    const summary = notesOf(format, [
      {
        user: [
          'Here are the details for the new environment. However, there is a major architectural shift you must account for: We are dropping Firebase from this deployment.',
          'We need to create a new database and storage bucket for local testing so we do not overwrite any production data.',
          'Security note: Hardcoded password is only for local dev testing – never commit to git.',
          'Do NOT remove existing broker URLs or logic.',
        ].join('\n'),
      },
      { tool: 'write', path: 'src/lib/storage.ts', content: 'export const bucket = "dev-media";' },
      { say: `Created the storage module. ${filler(20, 'storage')}` },
      { user: 'Now add the database client.' },
    ]);
    const section = rules(summary);
    assert.match(section, /^- "Do NOT remove existing broker URLs or logic\."$/m, summary);
    assert.doesNotMatch(section, /Security note|never commit/, summary);
    assert.doesNotMatch(section, /architectural shift|dropping Firebase/, summary);
    assert.doesNotMatch(section, /overwrite any production data/, summary);
  });

  test(`${format}: rules that forbid the same thing in other words are superseded together`, () => {
    const summary = notesOf(format, [
      { user: 'Add a broker selector to the page. Keep code clean, do not change Supabase or Environment cards.' },
      { tool: 'edit', path: 'src/app/page.tsx', old: '<main>', new: '<main><Selector />' },
      { say: `Added the selector. ${filler(20, 'selector')}` },
      { user: 'Add a warning to the local option. Do NOT change Supabase card or Environment card.' },
      { tool: 'edit', path: 'src/app/page.tsx', old: '<Selector />', new: '<Selector warn />' },
      { say: `Added the warning. ${filler(20, 'warning')}` },
      { user: 'Add HiveMQ Cloud as a broker. Do not change Supabase or Environment sections.' },
      { tool: 'edit', path: 'src/app/page.tsx', old: '<Selector warn />', new: '<Selector warn cloud />' },
      { say: `Added the cloud broker. ${filler(20, 'cloud')}` },
      {
        user: 'Restyle the page.\nYou can now change the Environment and Supabase cards: vertical stack at top, full-width.',
      },
      { tool: 'edit', path: 'src/app/page.tsx', old: '<main>', new: '<main className="stack">' },
      { say: `Restyled. ${filler(20, 'styled')}` },
      { user: 'Now add a footer.' },
    ]);
    const section = rules(summary);
    const standing = section.split('\n').filter((l) => l.startsWith('- "'));
    assert.deepEqual(
      standing.filter((l) => /Supabase/.test(l)),
      [],
      summary,
    );
    // Said three times in other words, the rule is one line: superseded once.
    assert.equal(
      section.split('\n').filter((l) => l.startsWith('- superseded') && /Supabase/.test(l)).length,
      1,
      summary,
    );
  });
}

test('rule sentences: notes, purposes and statements of what there is are no rules', () => {
  assert.equal(
    isRuleSentence('Security note: Hardcoded password is only for local dev testing – never commit to git.'),
    false,
  );
  assert.equal(isRuleSentence('Note: the staging database is shared.'), false);
  assert.equal(isRuleSentence('We need to create a bucket so we do not overwrite any production data.'), false);
  assert.equal(isRuleSentence('However, there is a shift you must account for: we drop Firebase.'), false);
  // A purpose clause does not hide a prohibition of its own, and an important note is still a rule.
  assert.equal(isRuleSentence('Do not push to main so we do not break the release.'), true);
  assert.equal(isRuleSentence('Important note: never push to main.'), true);
  assert.equal(isRuleSentence('Do not change the Supabase card.'), true);
});

test('prohibitions of the same thing share a key; a different object or verb does not', () => {
  const key = prohibitionKey('Do NOT change Supabase card or Environment card.');
  assert.ok(key);
  assert.equal(prohibitionKey('Keep code clean, do not change Supabase or Environment cards.'), key);
  assert.equal(prohibitionKey('Do not modify Supabase or Environment sections.'), key);
  assert.notEqual(prohibitionKey('Do not change the Supabase card.'), key);
  assert.notEqual(prohibitionKey('Do not remove Supabase or Environment cards.'), key);
  assert.equal(prohibitionKey('Explain each command before running it.'), undefined);
});
