/**
 * A summary too large for the window by itself (one read back from a file `compact --out` wrote,
 * or the product's own) is clipped by its sections, never in its middle as a whole: it keeps its
 * opening line, every heading and its closing pointer, the typed requests come first, and the other
 * sections keep a part of what they said: a summary read back from an `--out` file (OpenAI chat
 * messages) and an agent's own sectioned summary (Claude Code's compaction).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, claudeCode, claudeCodeCompacted, compactExtractive, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { summaryHeader } from '../../src/compaction/summary/summary-header';
import { clipSummaryToTokens } from '../../src/compaction/summary/summary-clip';
import type { ContextItem } from '../../src/compaction/types';

const long = (n: number, w: string) => `${w} detail of the earlier work that fills this line. `.repeat(n);
const HEADINGS = [
  "## Standing rules (the user's words, verbatim)",
  '## Current work and next step',
  '## Files changed (created or edited, what changed; moves; files read)',
  '## Commands and outcomes',
  "## Requests, verbatim (oldest first; the user's own words)",
];
const REQUESTS = ['- Move the billing module to the new queue.', '- Then make the retries idempotent.'];
const summary = [
  summaryHeader(120),
  '',
  HEADINGS[0],
  '- "Never deploy on Fridays."',
  '',
  HEADINGS[1],
  ...Array.from({ length: 12 }, (_, k) => `- Step ${k}: ${long(4, 'current')}`),
  '',
  HEADINGS[2],
  ...Array.from({ length: 30 }, (_, k) => `- src/billing/part${k}.ts: created; last change: "${long(2, 'code')}"`),
  '',
  HEADINGS[3],
  ...Array.from({ length: 30 }, (_, k) => `- \`npm test -- part${k}\` → ok ${long(2, 'output')}`),
  '',
  HEADINGS[4],
  ...REQUESTS,
  '',
  '[The 120 replaced messages can be read from: session.jsonl, messages 1-120 (context-keeper recall FILE --read 1-120).]',
].join('\n');

/** Checks that `text`, a clipped summary, kept what a clip by sections keeps. */
function keptBySections(text: string): void {
  assert.ok(text.length < summary.length, 'clipped');
  for (const h of HEADINGS) assert.ok(text.includes(`\n${h}\n`) || text.includes(`\n${h}\n\n`), `${h}\n${text}`);
  for (const r of REQUESTS) assert.ok(text.includes(r), `${r}\n${text}`);
  assert.match(text, /\n\[The 120 replaced messages can be read from: [^\n]+\]$/, text);
  // The short rule stays whole; the long sections keep their first lines.
  assert.ok(text.includes('- "Never deploy on Fridays."'), text);
  assert.ok(text.includes('- Step 0: current'), text);
  assert.ok(text.includes('- src/billing/part0.ts: created'), text);
}

const then: Step[] = [{ say: 'Picked the work up.' }, { user: 'Now add the retry metrics.' }];

/** The text of the context's summary message that stands for the earlier work, clipped or not. */
function heldSummary(context: readonly ContextItem[], starts: string): string {
  const texts = context.map((i) => textWithPlaceholders(i.message.content));
  const held = texts.find((t) => t.includes(starts));
  assert.ok(held, texts.join('\n---\n'));
  return held.slice(held.indexOf(starts));
}

test('openai-chat: a summary read back from a file `compact --out` wrote keeps its headings and the typed requests', async () => {
  const { write, file } = WRITERS['openai-chat'];
  const items = itemsFromEntries(importTranscriptTextSync(write([{ user: summary }, ...then]), file).entries);
  const r = await compactExtractive(items, 2000);
  keptBySections(heldSummary(r.context, '[Summary of 120'));
});

test("claude-code: the agent's own sectioned summary over the window keeps its headings and the typed requests", async () => {
  const text = claudeCodeCompacted(
    claudeCode([{ user: 'Start the billing move.' }, { say: 'Started.' }]),
    summary,
    'Now add the retry metrics.',
  );
  const items = itemsFromEntries(importTranscriptTextSync(text, 'session.jsonl').entries);
  const r = await compactExtractive(items, 2000);
  keptBySections(heldSummary(r.context, '[Summary of 120'));
});

test('the typed requests come first; a text without headings is clipped in its middle', () => {
  const count = (t: string) => Math.ceil(t.length / 4);
  const small = clipSummaryToTokens(summary, 400, count);
  assert.ok(count(small) <= 400, `${count(small)}`);
  for (const r of REQUESTS) assert.ok(small.includes(r), small);
  for (const h of HEADINGS) assert.ok(small.includes(h), small);
  const plain = 'a'.repeat(4000);
  const clipped = clipSummaryToTokens(plain, 100, count);
  assert.ok(count(clipped) <= 100 && clipped.includes('characters clipped'), clipped);
  assert.equal(clipSummaryToTokens('short', 100, count), 'short');
});

test('a section left with no room for its body is named in a left-out line, never dropped in silence', () => {
  const count = (t: string) => Math.ceil(t.length / 4);
  const tiny = clipSummaryToTokens(summary, 190, count);
  assert.ok(count(tiny) <= 190, `${count(tiny)}`);
  const note = tiny.split('\n').find((l) => l.startsWith('- … left out here to fit the budget: ')) ?? '';
  assert.ok(note, tiny);
  for (const h of HEADINGS) {
    const name = h.slice(3).replace(/ \(.*$/, '');
    assert.ok(tiny.includes(`${h}\n`) || note.includes(`${name} (`), `${name}\n${tiny}`);
  }
  for (const r of REQUESTS) assert.ok(tiny.includes(r), tiny);
});
