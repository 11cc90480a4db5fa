/**
 * A rule that holds only until each stage of the work is reviewed ("Do not proceed to the next phase
 * until I review and approve your work.") is no standing rule once the person says every stage is over
 * ("Approved - All phases complete"): its condition was met, and it is listed as superseded. An
 * approval of one stage ("Approved - proceed to Phase 2") leaves it standing for the next. The same
 * holds when the rule was carried by an earlier summary and the approval came after it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, chainedSummaries, WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { conditionMet } from '../../src/compaction/summary/prose';

const RULE = 'Do not proceed to the next phase until I review and approve your work.';
const filler = (n: number, word: string) => `${word} lorem ipsum dolor sit amet `.repeat(n);

const first: Step[] = [
  { user: `Refactor the storage layer in two phases. ${RULE} Phase 1: move uploads to the new bucket.` },
  { tool: 'write', path: '/w/src/storage.ts', content: 'export const bucket = "media";\n' },
  { say: `Phase 1 is done. ${filler(20, 'phase')}` },
];
const approvals = (last: string): Step[] => [
  { user: 'Approved - proceed to Phase 2' },
  { tool: 'edit', path: '/w/src/storage.ts', old: '"media"', new: '"media-v2"' },
  { say: `Phase 2 is done. ${filler(20, 'second')}` },
  { user: last },
  { tool: 'write', path: '/w/deploy.sh', content: 'gcloud run deploy app\n' },
  { say: `The deploy script is ready. ${filler(700, 'deploy')}` },
  { user: 'Thanks, now add a health check.' },
];

/** The standing rules section of `summary`. */
function rules(summary: string): string {
  return /## Standing rules[^\n]*\n([\s\S]*?)(\n\n|$)/.exec(summary)?.[1] ?? '';
}

function notesOf(text: string, file: string): string {
  const items = itemsFromEntries(importTranscriptTextSync(text, file).entries);
  return new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 6000);
}

const standing = new RegExp(`^- "${RULE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"$`, 'm');

for (const format of ['aider', 'claude-code', 'codex', 'cline'] as const) {
  test(`${format}: a rule held until each phase is reviewed is superseded once all phases are complete`, () => {
    const { write, file } = ALL_WRITERS[format];
    const summary = notesOf(
      write([...first, ...approvals('Approved - All phases complete, ready for deployment')]),
      file,
    );
    const section = rules(summary);
    assert.doesNotMatch(section, standing, summary);
    assert.match(
      section,
      /^- superseded by a later request \("Approved - All phases complete, ready for deployment"\), no longer standing: "Do not proceed to the next phase/m,
      summary,
    );
  });

  test(`${format}: an approval of one phase leaves the rule standing`, () => {
    const { write, file } = ALL_WRITERS[format];
    const summary = notesOf(
      write([...first, ...approvals('Approved - Phase 2 is complete, now write the deploy script')]),
      file,
    );
    assert.match(rules(summary), standing, summary);
  });
}

for (const format of ['claude-code', 'cline'] as const) {
  test(`${format}: a rule an earlier summary carried is superseded when all phases are complete after it`, async () => {
    const { write, file } = WRITERS[format];
    const { first: earlier, second } = await chainedSummaries(
      write,
      file,
      first,
      approvals('Approved - All phases complete, ready for deployment'),
      8000,
    );
    assert.match(rules(earlier), standing, earlier);
    assert.doesNotMatch(rules(second), standing, second);
    assert.match(rules(second), /^- superseded by a later request \("Approved - All phases complete/m, second);
  });
}

test('the condition is met only by a sentence saying every stage is over', () => {
  assert.equal(conditionMet(RULE, 'All phases are complete.'), 'All phases are complete.');
  assert.equal(conditionMet(RULE, 'Good work. The final phase is approved.'), 'The final phase is approved.');
  assert.equal(conditionMet(RULE, 'Not all phases are complete yet.'), undefined);
  assert.equal(conditionMet(RULE, 'Are all phases complete?'), undefined);
  assert.equal(conditionMet(RULE, 'Approved - proceed to Phase 3'), undefined);
  // A rule with no review condition is not ended by the same words.
  assert.equal(conditionMet('Never push to the main branch.', 'All phases complete.'), undefined);
});
