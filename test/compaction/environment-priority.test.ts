/**
 * The environment's few lines (programs found missing, versions found) take the room kept for
 * back-filled identifiers before those do, when the files fill the notes' budget; and a section an earlier summary left out to
 * fit its budget stays named in the left-out line of every later summary, never gone in silence.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compactExtractive, sectionOf, WRITERS, type Step } from '../support/recordings';
import { quarterCounter } from '../support/generate';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { recallPointer } from '../../src/compaction/summary/recall-pointer';
import type { ContextItem } from '../../src/compaction/types';

/** A probe that finds maven missing, then many files written under many folders, then routes called. */
const steps: Step[] = [
  { user: 'add the reservation endpoints and their tests' },
  { tool: 'bash', command: 'which mvn && mvn -version 2>&1 | head -3', output: 'mvn not found', ok: false },
  ...Array.from({ length: 40 }, (_, i): Step => ({
    tool: 'write',
    path: `backend/src/main/java/com/example/module${i}/ReservationPart${i}Controller.java`,
    content: `class ReservationPart${i}Controller { void handle${i}() {} }`,
  })),
  ...Array.from({ length: 20 }, (_, i): Step => ({
    tool: 'bash',
    command: `curl -s http://localhost:8080/api/reservations/part${i}/items`,
    output: '[]',
    exit: 0,
  })),
  { say: 'The endpoints are written.' },
  { user: 'now run the tests' },
];

for (const format of ['claude-code', 'codex', 'openai-chat'] as const) {
  test(`${format}: the environment's lines stay, in the identifiers' room, when the files fill a small budget`, () => {
    const { write, file } = WRITERS[format];
    const items = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
    for (const budget of [300, 400]) {
      // The room kept for back-filled identifiers (a quarter of the notes' budget) takes the environment first.
      const notes = new ExtractiveSummarizer(quarterCounter.countText).notes(items, budget, undefined, [], budget / 4);
      assert.match(sectionOf(notes, 'Environment'), /^- not available: mvn \("mvn not found"\)$/m, notes);
    }
  });
}

/** An earlier summary that left its environment section out, saying so in its current work. */
const EARLIER = [
  '## Current work and next step',
  '- Next step: continue with the latest request',
  '- … left out here to fit the budget: Environment (2 lines), Commands and outcomes (5 lines); read them in the replaced messages (last line)',
  '',
  '## Files changed (created or edited, what changed; moves; files read)',
  '- src/app.ts: created',
].join('\n');

for (const format of ['claude-code', 'codex'] as const) {
  test(`${format}: sections an earlier summary left out stay named in the next summary's left-out line`, async () => {
    const { write, file } = WRITERS[format];
    const later = itemsFromEntries(
      importTranscriptTextSync(
        write([
          { user: 'add a health check route' },
          { tool: 'write', path: 'src/health.ts', content: 'export const health = () => "ok";' },
          { say: 'Added the route. '.repeat(40) },
          { user: 'now document it' },
          { say: 'Documenting it.' },
        ]),
        file,
      ).entries,
    );
    const earlier: ContextItem = {
      id: 'cp~s',
      kind: 'summary',
      message: { role: 'user', content: `${EARLIER}\n\n${recallPointer('cp-first', 30)}` },
      covers: ['x1', 'x2'],
      checkpointId: 'cp',
    };
    const r = await compactExtractive([earlier, ...later]);
    const summary = r.context.find((i) => i.kind === 'summary' && i !== earlier);
    assert.ok(summary, JSON.stringify(r.status));
    const text = textWithPlaceholders(summary.message.content);
    assert.match(text, /^- … left out here to fit the budget: [^\n]*Environment \(2 lines\)/m, text);
    assert.match(text, /^- … left out here to fit the budget: [^\n]*Commands and outcomes \([5-9]\d* lines\)/m, text);
  });
}
