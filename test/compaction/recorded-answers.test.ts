/**
 * Importing a recording whose agent compacted itself keeps the agent's answers and findings of the
 * span that agent replaced beside its summary, as a native compaction keeps them; a later compaction
 * carries them in its own answers section (never quoted as part of the recorded summary). Claude Code
 * compact boundaries, OpenHands condensations and Codex compacted records alike.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { applyRecordedCompactions } from '../../src/compaction/rewrite/imported';
import { ANSWERS_HEADING } from '../../src/compaction/summary/quoted-summary';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { claudeCode, claudeCodeCompacted, codex, openhands, type Step } from '../support/recordings';
import { quarterCounter } from '../support/generate';

const meter = new TokenMeter({ counter: quarterCounter });

const FINDING =
  'Found it: parseEvents drops every event whose timestamp has no timezone suffix, so runs recorded in local time show nothing.';
const LAST = 'Every run recorded before version 2.3 is affected; later runs write UTC timestamps.';
const RECORDED = 'Summary: the timeline investigation is under way.';

const before: Step[] = [
  { user: 'Why is the timeline empty for some runs?' },
  { tool: 'read', path: '/w/src/trajectory/parse.ts', output: 'export function parseEvents(raw) {\n  return [];\n}' },
  { say: FINDING },
  { user: 'Which runs are affected?' },
  { tool: 'bash', command: 'ls /w/runs', output: 'r1\nr2' },
  { say: LAST },
];
const after: Step[] = [{ user: 'Now fix it and add a test.' }, { say: 'On it.' }];

/** Each format's recording: `before`, the agent's own compaction of it, then `after`. */
const RECORDINGS: Record<string, { file: string; text: () => string }> = {
  'claude-code': {
    file: 'session.jsonl',
    text: () => claudeCodeCompacted(claudeCode(before), RECORDED, 'Now fix it and add a test.'),
  },
  openhands: {
    file: 'events.json',
    text: () => {
      const events = JSON.parse(openhands(before)) as Array<Record<string, unknown>>;
      const later = (JSON.parse(openhands(after)) as Array<Record<string, unknown>>).map((e) => ({
        ...e,
        id: `late-${e.id as string}`,
      }));
      const condensation = {
        id: 'c1',
        source: 'environment',
        kind: 'Condensation',
        forgotten_event_ids: events.map((e) => e.id as string).filter((id) => id !== 'e0'),
        summary: RECORDED,
      };
      return JSON.stringify([...events, condensation, ...later]);
    },
  },
  codex: {
    file: 'rollout-2025-11-17T15-30-28-x.jsonl',
    text: () => {
      const compacted = JSON.stringify({
        timestamp: '2025-11-17T21:31:00.000Z',
        type: 'compacted',
        payload: { message: RECORDED },
      });
      const rest = codex(after).split('\n').slice(1);
      return [codex(before), compacted, ...rest].join('\n');
    },
  },
};

for (const [format, { file, text }] of Object.entries(RECORDINGS)) {
  test(`${format}: an imported compaction keeps the agent's answers of the span it replaced beside its summary`, () => {
    const t = importTranscriptTextSync(text(), file);
    assert.equal(t.compactions.length, 1);
    const applied = applyRecordedCompactions(itemsFromEntries(t.entries), t.compactions, meter);
    const summary = applied.items.find((i) => i.kind === 'summary');
    assert.ok(summary);
    const body = textWithPlaceholders(summary.message.content);
    assert.ok(body.includes(RECORDED), body);
    const answers = body.slice(body.indexOf(ANSWERS_HEADING));
    assert.ok(body.includes(ANSWERS_HEADING), body);
    // The finding answered the first request; the last message ended the agent's turn too.
    assert.ok(answers.includes('(to "Why is the timeline empty for some runs?") "Found it: parseEvents drops'), body);
    assert.ok(answers.includes(`"${LAST}"`), body);
    // Counted as the context's: the checkpoint's size after is that of the context holding them.
    assert.equal(applied.checkpoints[0].tokensAfter, meter.measure(applied.items).total);

    // Compacted again, the answers are the notes' own (not a quote of the recorded summary).
    const notes = new ExtractiveSummarizer((s) => meter.countText(s)).notes(applied.items, 6000);
    const own = /## Agent's answers and findings[^\n]*\n([\s\S]*?)(?:\n\n|$)/.exec(notes)?.[1] ?? '';
    assert.ok(own.includes('Found it: parseEvents drops'), notes);
    assert.doesNotMatch(notes, /^> .*Found it: parseEvents/m, notes);
    assert.doesNotMatch(notes, /^> ## Agent's answers/m, notes);
  });
}
