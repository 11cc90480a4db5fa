/**
 * A recorded agent's own compactions after import: its summary is not replaced by a thinner one when
 * the context is compacted again, and the requests the user typed before it stay in the context.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { compact } from '../../src/compaction/rewrite/compactor';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { applyRecordedCompactions } from '../../src/compaction/rewrite/imported';
import { REQUESTS_BEFORE_HEADING, shrinkQuoted } from '../../src/compaction/summary/quoted-summary';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { describeCompaction } from '../../src/compaction/outcome-text';
import { claudeCode, claudeCodeCompacted, openhands, type Step } from '../support/recordings';
import { quarterCounter } from '../support/generate';

const meter = new TokenMeter({ counter: quarterCounter });

const ROOT_CAUSE =
  'The root cause is that parseEvents in src/trajectory/parse.ts drops every event whose timestamp has no timezone suffix.';

/** An OpenHands recording: work, a Condensation whose summary states the root cause among filler, more work. */
function openhandsWithCondensation(): string {
  const before: Step[] = [
    { user: 'The timeline in the trajectory visualizer is empty for some runs; find out why.' },
    { tool: 'read', path: '/w/src/trajectory/parse.ts', output: 'export function parseEvents(raw) {\n  // …\n}' },
    { tool: 'bash', command: 'npm test', output: 'FAIL timeline shows 0 events', ok: false },
  ];
  const filler = Array.from(
    { length: 40 },
    (_, i) => `Step ${i + 1} of the investigation looked at the rendering of panel number ${i + 1} and its layout.`,
  );
  const summary = [...filler.slice(0, 20), ROOT_CAUSE, ...filler.slice(20)].join(' ');
  const events = JSON.parse(openhands(before)) as Array<Record<string, unknown>>;
  const forgotten = events.map((e) => e.id as string).filter((id) => id !== 'e0');
  const after: Step[] = [
    { user: 'Now fix it and add a test.' },
    ...Array.from({ length: 6 }, (_, i) => ({
      tool: 'bash' as const,
      command: `npm test -- --grep case${i}`,
      output: `ok case${i}\n${'x'.repeat(400)}`,
    })),
    { say: 'Fixed and tested.' },
  ];
  const later = (JSON.parse(openhands(after)) as Array<Record<string, unknown>>).map((e) => ({
    ...e,
    id: `late-${e.id as string}`,
    ...(e.tool_call_id ? { tool_call_id: `late-${e.tool_call_id as string}` } : {}),
    ...(e.action_id ? { action_id: `late-${e.action_id as string}` } : {}),
    ...(e.tool_call ? { tool_call: { ...e.tool_call, id: `late-${(e.tool_call as { id: string }).id}` } } : {}),
  }));
  const condensation = {
    id: 'c1',
    source: 'environment',
    kind: 'Condensation',
    forgotten_event_ids: forgotten,
    summary,
  };
  return JSON.stringify([...events, condensation, ...later]);
}

test('openhands: compacting again keeps the root-cause sentence of the recorded condensation', async () => {
  const t = importTranscriptTextSync(openhandsWithCondensation(), 'events.json');
  assert.equal(t.compactions.length, 1);
  const applied = applyRecordedCompactions(itemsFromEntries(t.entries), t.compactions, meter);
  assert.ok(
    applied.items.some((i) => i.kind === 'summary' && textWithPlaceholders(i.message.content).includes(ROOT_CAUSE)),
  );
  const size = applied.items.reduce((n, i) => n + meter.countMessage(i.message), 0);
  const r = await compact({
    items: applied.items,
    meter,
    summarizer: new ExtractiveSummarizer((s) => meter.countText(s)),
    options: {
      // A small window: the recorded summary (about 950 tokens) cannot be kept whole.
      budget: { contextWindow: Math.ceil(size * 0.6), reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
      trigger: 'manual',
      force: true,
    },
  });
  const summaries = r.context.filter((i) => i.kind === 'summary' && !i.checkpointId?.startsWith('import-'));
  assert.ok(summaries.length > 0, `a new summary was written (${describeCompaction(r.status)})`);
  const text = r.context.map((i) => textWithPlaceholders(i.message.content)).join('\n');
  assert.ok(text.includes(ROOT_CAUSE), 'the root-cause sentence is kept whole');
  assert.match(text, /sentences? of the recorded summary left out to fit the budget/);
  assert.ok(!text.includes('panel number 40 and its layout'), 'filler gave way first');
});

test('openhands: a quoted recorded summary that later work followed says it is as written then', () => {
  const t = importTranscriptTextSync(openhandsWithCondensation(), 'events.json');
  const items = applyRecordedCompactions(itemsFromEntries(t.entries), t.compactions, meter).items;
  const at = items.findIndex((i) => i.kind === 'summary');
  assert.ok(at >= 0 && at < items.length - 1, 'the recorded summary is followed by later messages');
  const notes = (span: typeof items) => new ExtractiveSummarizer((s) => meter.countText(s)).notes(span, 6000);
  const followed = notes(items);
  assert.match(
    followed,
    /## Earlier summary\n- \(As written then; later work may have done what it calls next/,
    followed,
  );
  const alone = notes(items.slice(0, at + 1));
  assert.match(alone, /## Earlier summary\n> /, alone);
  assert.doesNotMatch(alone, /As written then/, alone);
  // Summarised again with nothing after it, the mark stays (the work that followed is in the earlier notes).
  const again = notes([
    { ...items[at], id: 'notes', checkpointId: 'ck-1', kind: 'summary', message: { role: 'user', content: followed } },
  ]);
  assert.equal(again.match(/As written then/g)?.length, 1, again);
});

test('quoted summary: sentences naming causes, fixes and files are removed last, with one marker', () => {
  const lines = ['> Looked at the header. The bug is in src/a.ts. Looked at the footer.', '> Fixed by a guard.'];
  assert.equal(shrinkQuoted(lines, 2), true);
  assert.deepEqual(lines, [
    '> The bug is in src/a.ts.',
    '> Fixed by a guard.',
    '> [… 2 sentences of the recorded summary left out to fit the budget …]',
  ]);
  assert.equal(shrinkQuoted(lines, 1), true);
  assert.deepEqual(lines, [
    '> The bug is in src/a.ts.',
    '> [… 3 sentences of the recorded summary left out to fit the budget …]',
  ]);
});

/** A Claude Code session: typed requests and work, a compact boundary with its summary, then one more request. */
function claudeCodeWithBoundary(): { text: string; early: string[] } {
  const early = [
    'Port the importer to streams; keep the old API working.',
    'Also: never log the API key, not even masked.',
  ];
  const lines = claudeCode([
    { user: early[0] },
    { tool: 'read', path: '/w/src/import.ts', output: 'export function load() {}' },
    { user: early[1] },
    { say: 'Understood.' },
  ]);
  return { text: claudeCodeCompacted(lines, 'Summary: importer work started.', 'Continue.'), early };
}

test('claude-code: requests typed before the first compact boundary are in the imported context and counted', () => {
  const { text, early } = claudeCodeWithBoundary();
  const t = importTranscriptTextSync(text, 'session.jsonl');
  assert.equal(t.compactions.length, 1);
  const applied = applyRecordedCompactions(itemsFromEntries(t.entries), t.compactions, meter);
  const summary = applied.items.find((i) => i.kind === 'summary');
  assert.ok(summary);
  const body = textWithPlaceholders(summary.message.content);
  assert.match(body, /importer work started/);
  assert.ok(body.includes(REQUESTS_BEFORE_HEADING));
  for (const r of early) assert.ok(body.includes(`- ${r}`), `kept verbatim: ${r}`);
  // Counted in the meter: the checkpoint's size after is that of the context holding them.
  assert.equal(applied.checkpoints[0].tokensAfter, meter.measure(applied.items).total);
  assert.ok(meter.countMessage(summary.message) > meter.countText(early.join('\n')));
});
