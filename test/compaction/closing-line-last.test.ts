/**
 * A summary's closing line (where its replaced messages can be read) stays its last line: what an
 * earlier summary held and the new text does not name, and lines added to it by hand, go before it
 * when the summary has no requests section. And an earlier summary's lines that say nothing (an
 * empty quote `> `, `- ""`) are not carried into the summary replacing it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { keepEarlierHoldings, KEPT_HEADING } from '../../src/compaction/summary/earlier-holdings';
import { HAND_HEADING, keepHandLines } from '../../src/compaction/summary/hand-lines';
import { recallPointer, recordingPointer } from '../../src/compaction/summary/recall-pointer';
import type { ContextItem } from '../../src/compaction/types';
import { WRITERS, type Step } from '../support/recordings';

const notesOf = (items: ContextItem[]) => new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 6000);

const FIRST: Step[] = [
  { user: 'add a health endpoint and its test' },
  { tool: 'write', path: '/w/src/health.ts', content: 'export const health = () => "ok";\n' },
  { tool: 'write', path: '/w/test/health.test.ts', content: 'import { health } from "../src/health";\n' },
  { say: 'Both files are written.' },
];

/** An earlier summary item of `text`, standing for two messages. */
const earlier = (text: string): ContextItem => ({
  id: 'cp~s',
  kind: 'summary',
  message: { role: 'user', content: text },
  covers: ['a', 'b'],
  checkpointId: 'cp',
});

for (const format of ['claude-code', 'codex', 'openhands'] as const) {
  test(`${format}: kept files and hand lines go before the closing line of a summary with no requests section`, () => {
    const { write, file } = WRITERS[format];
    const first = notesOf(itemsFromEntries(importTranscriptTextSync(write(FIRST), file).entries));
    assert.match(first, /health\.test\.ts/, first);
    const span = [earlier(`${first}\n\n- checked with the team by hand\n\n${recallPointer('cp', 2)}`)];
    for (const pointer of [recallPointer('ck-2', 7), recordingPointer('session.jsonl', 3, 7)]) {
      const summary = `## Current work and next step\n- Continuing.\n\n${pointer}`;
      const kept = keepEarlierHoldings(summary, span);
      assert.ok(kept.includes(KEPT_HEADING), kept);
      assert.equal(kept.trimEnd().split('\n').at(-1), pointer, kept);
      assert.ok(kept.indexOf(KEPT_HEADING) < kept.indexOf(pointer), kept);
    }
    // A line added by hand to the earlier summary.
    const handSpan: ContextItem[] = [{ ...span[0], handLines: ['- checked with the team by hand'] }];
    const summary = `## Current work and next step\n- Continuing.\n\n${recallPointer('ck-2', 7)}`;
    const hand = keepHandLines(summary, handSpan);
    assert.ok(hand.includes(HAND_HEADING), hand);
    assert.equal(hand.trimEnd().split('\n').at(-1), recallPointer('ck-2', 7), hand);
  });

  test(`${format}: an earlier summary's empty quoted lines are not carried`, () => {
    const { write, file } = WRITERS[format];
    const first = notesOf(itemsFromEntries(importTranscriptTextSync(write(FIRST), file).entries));
    const padded = first.replace(
      '## Current work and next step',
      '## Decisions (with reasons)\n- ""\n- keep the endpoint unauthenticated\n\n## Current work and next step',
    );
    const recorded = 'The agent added a health endpoint.\n\n>\n> \n""\nIt wrote src/health.ts.';
    const later = itemsFromEntries(importTranscriptTextSync(write([{ user: 'now document it' }]), file).entries);
    for (const text of [padded, recorded]) {
      const item = { ...earlier(text), ...(text === recorded ? { checkpointId: 'import-1' } : {}) };
      const notes = notesOf([item, ...later]);
      const lines = notes.split('\n');
      assert.ok(!lines.some((l) => /^\s*(?:[-*]\s*)?>?\s*(?:""|>)?\s*$/.test(l) && l.trim() !== ''), notes);
      assert.ok(!lines.some((l) => /^- ""$|^> ""$|^> >?$/.test(l.trim())), notes);
    }
  });
}
