/**
 * A hand-over call's own text (Cline's `attempt_completion` result, OpenHands' `finish` message) is
 * the agent's answer: the words before it in the same message, which announce it ("Let me provide a
 * completion summary"), are never quoted in its place.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, sectionOf, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';

/** The extractive notes of the recording `text` (named `file`), with room for every section. */
function notesOf(text: string, file: string): string {
  const items = itemsFromEntries(importTranscriptTextSync(text, file).entries);
  return new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 6000);
}

const LEAD = 'The user has approved all phases. Let me provide a completion summary of the work.';
const REPORT = 'Infrastructure refactoring complete: phase 1 moved the bucket, phase 2 renamed the service.';

const STEPS: Step[] = [
  { user: 'refactor the infrastructure in phases' },
  { tool: 'edit', path: 'infra/main.tf', old: 'bucket = "a"', new: 'bucket = "b"' },
  { done: REPORT, lead: LEAD },
  { user: 'now also rename the database instance' },
  { tool: 'edit', path: 'infra/db.tf', old: 'name = "a"', new: 'name = "b"' },
];

for (const format of ['cline', 'openhands'] as const)
  test(`${format}: the answer quoted is what the hand-over call reports, not the words announcing it`, () => {
    const { write, file } = WRITERS[format];
    const summary = notesOf(write(STEPS), file);
    const answers = sectionOf(summary, "Agent's answers and findings");
    assert.match(answers, /Infrastructure refactoring complete/, summary);
    assert.doesNotMatch(summary, /Let me provide a completion summary/, summary);
  });
