/**
 * A checkpoint's retention scorecard: what the text a compaction wrote keeps of the span it replaced,
 * by the quality benchmark's rules, with what it left out by name; set on every summary a compaction
 * writes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { compact } from '../../src/compaction/rewrite/compactor';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import {
  mergeScorecards,
  retentionScorecard,
  scorecardDetails,
  scorecardLeftOut,
  scorecardLine,
  SCORECARD_NAMES,
} from '../../src/compaction/retention/scorecard';
import type { ContextItem } from '../../src/compaction/types';
import { describeCompaction } from '../../src/compaction/outcome-text';
import { claudeCode, type Step } from '../support/recordings';
import { quarterCounter } from '../support/generate';
import { summaryItem } from '../support/conversation';

const meter = new TokenMeter({ counter: quarterCounter });

const REQUEST =
  'Add a health endpoint to the server that reports the database status, and keep the old routes working exactly as they are now.';
const SECOND = 'Also log every health check at debug level.';

/** Work on two files, a test failure fixed later, a type check left failing, and two typed requests. */
const STEPS: Step[] = [
  { user: REQUEST },
  { tool: 'write', path: '/w/src/health.ts', content: 'export function healthHandler() { return checkDatabase(); }' },
  { tool: 'edit', path: '/w/src/routes.ts', old: 'router.get("/")', new: 'router.get("/health", healthHandler)' },
  { tool: 'bash', command: 'npm test', output: 'FAIL test/health.test.ts\n1 failing', ok: false },
  { user: SECOND },
  { tool: 'edit', path: '/w/src/health.ts', old: 'return checkDatabase();', new: 'return checkDatabase() ?? "down";' },
  { tool: 'bash', command: 'npm test', output: 'all 12 tests passed' },
  {
    tool: 'bash',
    command: 'npx tsc --noEmit',
    output: "src/routes.ts(4,1): error TS2304: Cannot find name 'healthHandler'.",
    ok: false,
  },
  { say: 'The route still needs its import.' },
];

function span(): ContextItem[] {
  return itemsFromEntries(importTranscriptTextSync(claudeCode(STEPS), 'session.jsonl').entries);
}

test('the scorecard names the file changed that the summary left out, the shortened request and the resolved error shown as open', () => {
  const written = [
    '## Files changed',
    '- /w/src/health.ts: created healthHandler',
    '## Open errors',
    '- Next step: resolve `npm test` failing (FAIL test/health.test.ts)',
    '- `npx tsc --noEmit` → error TS2304',
    '## Requests, verbatim',
    `- ${REQUEST.slice(0, 60)} […]`,
    `- ${SECOND}`,
  ].join('\n');
  const card = retentionScorecard({ replaced: span(), inserted: [summaryItem(written)] });
  assert.ok(card);
  assert.deepEqual(card.requests, { total: 2, whole: 1, shortened: 1, leftOut: 0 });
  // Cut at a word, with a mark that it was cut.
  assert.deepEqual(card.missing.requests, [`shortened: ${REQUEST.slice(0, REQUEST.lastIndexOf(' ', 79))}…`]);
  assert.deepEqual(card.filesChanged, { total: 2, named: 1 });
  assert.deepEqual(card.missing.filesChanged, ['/w/src/routes.ts'], 'the dropped file is named');
  assert.deepEqual(card.errors, { open: 1, openNamed: 1, resolved: 1, shownOpen: 1 });
  assert.deepEqual(card.missing.shownOpen, ['npm test'], 'the fixed test run presented as open is named');
  assert.ok(card.identifiers.total > 0 && card.identifiers.kept < card.identifiers.total);
  assert.ok(card.missing.identifiers.includes('checkDatabase'), card.missing.identifiers.join(', '));
  assert.match(scorecardLine(card), /^kept: requests 1\/2 whole \(1 shortened\), files changed 1\/2 named, /);
  // A count of what went wrong reads as such, not as a fraction kept.
  assert.match(scorecardLine(card), /, resolved errors shown as open: 1 of 1(,|$)/);
  assert.doesNotMatch(scorecardLine(card), /\d+\/\d+ resolved/);
  assert.ok(scorecardLeftOut(card).includes('Files changed not named: /w/src/routes.ts'));
});

test('a summary that keeps everything leaves nothing out; a span of tool results alone has no scorecard', () => {
  const replaced = span();
  // Requests as items, files under a files-changed heading (where a summary presents them), then
  // every message as it was (the identifiers).
  const everything = [
    '## Requests',
    `- ${REQUEST}`,
    `- ${SECOND}`,
    '## Files changed',
    '- /w/src/health.ts: created',
    '- /w/src/routes.ts: edited',
    '## Messages',
    ...replaced.map((i) => JSON.stringify(i.message)),
  ].join('\n');
  const card = retentionScorecard({ replaced, inserted: [summaryItem(everything)] })!;
  assert.equal(card.requests.whole, 2);
  assert.equal(card.filesChanged.named, 2);
  assert.equal(card.identifiers.kept, card.identifiers.total);
  assert.deepEqual(card.missing.filesChanged, []);
  const results = replaced.filter((i) => i.message.role === 'tool');
  assert.ok(results.length > 0);
  assert.equal(retentionScorecard({ replaced: results, inserted: [summaryItem('(collapsed)')] }), undefined);
});

test('the lists of what was left out are bounded and say how many more there are; merged cards add up', () => {
  const many: Step[] = Array.from({ length: SCORECARD_NAMES + 4 }, (_, k) => ({
    tool: 'write' as const,
    path: `/w/src/file${k}.ts`,
    content: `export const value${k} = ${k};`,
  }));
  const replaced = itemsFromEntries(
    importTranscriptTextSync(claudeCode([{ user: 'Write the files.' }, ...many]), 'session.jsonl').entries,
  );
  const card = retentionScorecard({ replaced, inserted: [summaryItem('Wrote the files. Write the files.')] })!;
  assert.equal(card.filesChanged.total, SCORECARD_NAMES + 4);
  assert.equal(card.missing.filesChanged.length, SCORECARD_NAMES);
  assert.ok(
    scorecardDetails(card).some((l) => l.startsWith('Files changed not named: ') && l.endsWith('; and 4 more')),
  );
  const both = mergeScorecards([card, undefined, card])!;
  assert.equal(both.filesChanged.total, 2 * card.filesChanged.total);
  assert.equal(both.missing.filesChanged.length, SCORECARD_NAMES);
  assert.equal(mergeScorecards([undefined]), undefined);
});

test('every summary a compaction writes carries its scorecard, judged on the text it wrote', async () => {
  const steps: Step[] = [
    ...STEPS,
    // Long replies: collapsing tool results cannot reach the target, a summary must be written.
    ...Array.from({ length: 8 }, (_, k) => ({ say: `Note ${k}: ${'the handler reads the pool state. '.repeat(60)}` })),
    { user: 'Now write the changelog entry.' },
    { say: 'Writing it.' },
  ];
  const items = itemsFromEntries(importTranscriptTextSync(claudeCode(steps), 'session.jsonl').entries);
  const size = items.reduce((n, i) => n + meter.countMessage(i.message), 0);
  const r = await compact({
    items,
    meter,
    summarizer: new ExtractiveSummarizer((s) => meter.countText(s)),
    options: {
      budget: { contextWindow: Math.ceil(size * 1.25), reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
      trigger: 'manual',
      force: true,
    },
  });
  assert.equal(r.status.kind, 'applied', describeCompaction(r.status));
  const summaries = r.checkpoints.filter((c) => c.strategy === 'extractive' || c.strategy === 'summary');
  assert.ok(summaries.length > 0, 'a summary was written');
  for (const cp of summaries) {
    assert.ok(cp.retention, `checkpoint ${cp.id} has a scorecard`);
    // Judged with the items kept after the span (a request typed there makes the span's failures an earlier turn's).
    const after = items.slice(items.lastIndexOf(cp.replaced.at(-1)!) + 1);
    assert.deepEqual(cp.retention, retentionScorecard(cp, after), 'the scorecard is that of its own span and text');
    assert.ok(cp.retention.requests.total >= 2, 'the typed requests of the span are counted');
    assert.ok(cp.retention.filesChanged.total >= 2, 'the files written in the span are counted');
  }
});

test('a command that never failed shown as failing is named, in the details and in what was left out', () => {
  const replaced = itemsFromEntries(
    importTranscriptTextSync(
      claudeCode([
        { user: 'Build it.' },
        { tool: 'bash', command: 'pnpm build', output: 'Compiled successfully' },
        { say: 'Built.' },
      ]),
      'session.jsonl',
    ).entries,
  );
  const card = retentionScorecard({
    replaced,
    inserted: [summaryItem('- Next step: resolve `pnpm build` failing\n- Build it.')],
  })!;
  assert.equal(card.neverFailedShownFailing, 1);
  assert.deepEqual(card.missing.neverFailed, ['pnpm build']);
  assert.ok(scorecardLeftOut(card).includes('Commands that never failed shown as failing: pnpm build'));
  assert.ok(scorecardDetails(card).includes('Commands that never failed shown as failing: 1'));
});
