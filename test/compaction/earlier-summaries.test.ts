/**
 * Earlier summaries are content to keep: compacting a context that holds a recording agent's own
 * summary keeps the files, commits and requests it held (or the summary itself), and the checkpoint's
 * scorecard scores them, so a summary that drops them says so.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { applyRecordedCompactions } from '../../src/compaction/rewrite/imported';
import { retentionScorecard, scorecardDetails, scorecardLeftOut } from '../../src/compaction/retention/scorecard';
import { commitsIn, pathsIn, quotedRequests } from '../../src/compaction/retention/earlier';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import type { ContextItem } from '../../src/compaction/types';
import { claudeCode, compactExtractive, type Step } from '../support/recordings';
import { quarterCounter } from '../support/generate';
import { summaryItem } from '../support/conversation';

const meter = new TokenMeter({ counter: quarterCounter });

const ADRS = ['0021-payments', '0022-ledger', '0023-wallets', '0024-telegram'].map((n) => `/w/docs/adr/ADR-${n}.md`);
const CHANGED = [...ADRS, '/w/ROADMAP.md', '/w/docs/zerion-readiness.md', '/w/scripts/zerion-readiness.mjs'];
const FIRST_REQUEST = 'Pick up FW-005 first and write the ADRs for the payment flow before any code.';

/** Claude Code's own summary, in its usual shape: files with what changed, commits, a recommendation. */
const RECORDED_SUMMARY = [
  'This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:',
  'Analysis:',
  'The user asked for architecture records and roadmap updates.',
  '',
  'Summary:',
  '1. Primary Request and Intent:',
  `   ${FIRST_REQUEST}`,
  '2. Files and Code Sections:',
  ...CHANGED.map((p) => `   - ${p}: created or edited (sections on flows and risks)`),
  '3. Commits: f8e6fe0 (ADRs 0021-0022) and 73f00b8 (ADRs 0023-0024, roadmap).',
  '4. Recommendation: FW-007 should use the hosted ledger; the self-hosted one needs a second reviewer.',
].join('\n');

/** Steps after the recorded compaction: a new request, long reads and edits of other files. */
const AFTER: Step[] = [
  { user: 'Now have everything indexed in the docs page and check the build.' },
  ...Array.from({ length: 6 }, (_, k) => ({
    tool: 'read' as const,
    path: `/w/docs/page${k}.md`,
    output: `# Page ${k}\n${'Text of the documentation page with many words in it. '.repeat(40)}`,
  })),
  { tool: 'edit', path: '/w/docs/index.md', old: '# Docs', new: '# Docs\n- ADR index' },
  { tool: 'bash', command: 'pnpm build', output: 'Compiled successfully' },
  // Long replies: collapsing tool results cannot reach the target, a summary must be written.
  ...Array.from({ length: 8 }, (_, k) => ({
    say: `Note ${k}: ${'the index lists every page by its title. '.repeat(50)}`,
  })),
  { say: 'The docs index is updated and the build passes.' },
  { user: 'Good. Commit it.' },
  { tool: 'bash', command: 'git commit -am "docs index"', output: '[main 9c1d2e3] docs index' },
];

/** A Claude Code session: work, a compact boundary with the agent's summary, then {@link AFTER}. */
function recording(): string {
  const before = claudeCode([{ user: FIRST_REQUEST }, { tool: 'bash', command: 'git log', output: 'f8e6fe0 adr' }])
    .trim()
    .split('\n');
  const last = (JSON.parse(before.at(-1)!) as { uuid: string }).uuid;
  const base = {
    sessionId: 's1',
    cwd: '/w',
    version: '2.1.0',
    isSidechain: false,
    timestamp: '2026-01-01T01:00:00.000Z',
  };
  const boundary = {
    ...base,
    type: 'system',
    subtype: 'compact_boundary',
    uuid: 'b1',
    parentUuid: null,
    logicalParentUuid: last,
  };
  const summary = {
    ...base,
    type: 'user',
    uuid: 'cs1',
    parentUuid: 'b1',
    isCompactSummary: true,
    message: { role: 'user', content: RECORDED_SUMMARY },
  };
  const after = claudeCode(AFTER)
    .trim()
    .split('\n')
    .map((l) => {
      const r = JSON.parse(l) as Record<string, unknown>;
      return JSON.stringify({
        ...r,
        uuid: `a-${r.uuid as string}`,
        parentUuid: r.parentUuid ? `a-${r.parentUuid as string}` : 'cs1',
      });
    });
  return [...before, JSON.stringify(boundary), JSON.stringify(summary), ...after].join('\n');
}

function imported(): ContextItem[] {
  const t = importTranscriptTextSync(recording(), 'session.jsonl');
  assert.equal(t.compactions.length, 1, 'the recording holds one compaction of its own');
  return applyRecordedCompactions(itemsFromEntries(t.entries), t.compactions, meter).items;
}

test('the files, commits and requests an earlier summary holds are read by the measurement rules', () => {
  assert.deepEqual(pathsIn(RECORDED_SUMMARY), CHANGED);
  assert.deepEqual(commitsIn(RECORDED_SUMMARY), ['f8e6fe0', '73f00b8']);
  const ours = [
    '## Current work',
    '- x',
    '## Requests, verbatim',
    '- one request',
    '  on two lines',
    '- b [… 40 characters of this request left out …] c',
    '## Next',
    '- y',
  ].join('\n');
  assert.deepEqual(quotedRequests(ours), [
    'one request\non two lines',
    'b [… 40 characters of this request left out …] c',
  ]);
});

test('a summary that drops an earlier summary reports what it dropped, by name', () => {
  const replaced = imported();
  assert.ok(replaced.some((i) => i.kind === 'summary'));
  const thin = summaryItem(
    '## Current work\n- Files edited most recently: /w/docs/index.md\n- Now have everything indexed in the docs page and check the build.',
  );
  const card = retentionScorecard({ replaced, inserted: [thin] })!;
  assert.deepEqual(card.earlier, { total: CHANGED.length + 2, kept: 0, commits: 2 });
  assert.ok(card.missing.earlier!.includes('/w/ROADMAP.md'));
  assert.ok(card.requests.total >= 2, 'the request the earlier summary stands for is scored');
  assert.ok(
    card.missing.requests.some((r) => r.includes('Pick up FW-005')),
    card.missing.requests.join(' | '),
  );
  assert.ok(scorecardDetails(card).some((l) => l.startsWith('Files and commits named by earlier summaries: 0 of 9')));
  assert.ok(scorecardLeftOut(card).some((l) => l.startsWith("Earlier summaries' files and commits not named: ")));
  const whole = retentionScorecard({
    replaced,
    inserted: [summaryItem(`${RECORDED_SUMMARY}\n${thin.message.content as string}`)],
  })!;
  assert.deepEqual(whole.earlier, { total: CHANGED.length + 2, kept: CHANGED.length + 2, commits: 2 });
});

test('compacting again keeps the earlier summary’s files, commits, recommendation and request', async () => {
  const items = imported();
  const size = items.reduce((n, i) => n + meter.countMessage(i.message), 0);
  for (const window of [Math.ceil(size * 1.1), Math.ceil(size * 0.6)]) {
    const r = await compactExtractive(items, window);
    const text = r.context.map((i) => textWithPlaceholders(i.message.content)).join('\n');
    for (const p of CHANGED) assert.ok(text.includes(p), `${window}: ${p} is named\n${text}`);
    for (const c of ['f8e6fe0', '73f00b8']) assert.ok(text.includes(c), `${window}: commit ${c} is kept\n${text}`);
    assert.match(text, /FW-007 should use the hosted ledger/, `${window}: the recommendation is kept`);
    assert.ok(text.includes(FIRST_REQUEST), `${window}: the earlier request is kept whole`);
    const rewrote = r.checkpoints.find((c) => c.replaced.some((i) => i.kind === 'summary'));
    assert.ok(rewrote, `${window}: the earlier summary is compacted again`);
    const card = rewrote.retention;
    assert.ok(card?.earlier, `${window}: the scorecard scores the earlier summary`);
    assert.equal(card.earlier.kept, card.earlier.total, `${window}: ${card.missing.earlier?.join(', ')}`);
  }
});

test('however small the window, the earlier summary’s files and commits stay named, or the summary stays whole', async () => {
  const items = imported();
  const size = items.reduce((n, i) => n + meter.countMessage(i.message), 0);
  for (const share of [0.4, 0.25]) {
    const r = await compactExtractive(items, Math.ceil(size * share));
    const text = r.context.map((i) => textWithPlaceholders(i.message.content)).join('\n');
    for (const n of [...CHANGED, 'f8e6fe0', '73f00b8']) assert.ok(text.includes(n), `${share}: ${n} is kept\n${text}`);
    for (const c of r.checkpoints.filter((c) => c.replaced.some((i) => i.kind === 'summary')))
      assert.equal(c.retention?.earlier?.kept, c.retention?.earlier?.total, c.retention?.missing.earlier?.join(', '));
  }
});

/** A session of the product's own: memory files created, two commits, then long work on other files. */
function ownSession(): string {
  const memory = ['project_gtm_order', 'project_fundy', 'project_visa'].map((n) => `/home/u/.claude/memory/${n}.md`);
  const steps: Step[] = [
    { user: 'Record the rollout order and the partner research in memory, then commit the roadmap.' },
    ...memory.map((path) => ({ tool: 'write' as const, path, content: `# ${path}\n${'A note. '.repeat(30)}` })),
    { tool: 'edit', path: '/w/ROADMAP.md', old: '# Roadmap', new: '# Roadmap\n- Split first' },
    { tool: 'bash', command: 'git commit -am "roadmap"', output: '[main 4be9a4b] roadmap\n 1 file changed' },
    { tool: 'bash', command: 'git commit -am "adr"', output: '[main 7d1c0e2] adr\n 2 files changed' },
    { say: `Recorded. ${'The memory notes hold the order and the partners. '.repeat(20)}` },
    { user: 'Now build the readiness script and check the build.' },
    ...Array.from({ length: 8 }, (_, k) => ({
      tool: 'read' as const,
      path: `/w/src/mod${k}.ts`,
      output: `export const m${k} = 1;\n${'// a long module comment line\n'.repeat(60)}`,
    })),
    { tool: 'write', path: '/w/scripts/readiness.mjs', content: 'export function main() {}\n' },
    { tool: 'bash', command: 'pnpm build', output: 'Compiled successfully' },
    ...Array.from({ length: 6 }, (_, k) => ({
      say: `Step ${k}: ${'the script reads the wallet positions. '.repeat(40)}`,
    })),
    { user: 'Good. Commit it.' },
  ];
  return claudeCode(steps);
}

test('re-summarising the product’s own summary at a small window keeps the files it created and its commits', async () => {
  let items = itemsFromEntries(importTranscriptTextSync(ownSession(), 'session.jsonl').entries);
  const size = items.reduce((n, i) => n + meter.countMessage(i.message), 0);
  // A first compaction at a roomy window writes a summary naming the memory files and the commits.
  const first = await compactExtractive(items, Math.ceil(size * 0.9));
  items = first.context;
  const earlier = items.filter((i) => i.kind === 'summary').map((i) => textWithPlaceholders(i.message.content));
  const held = ['project_gtm_order.md', 'project_fundy.md', 'project_visa.md', '4be9a4b', '7d1c0e2'];
  for (const n of held)
    assert.ok(earlier.join('\n').includes(n), `the first summary holds ${n}\n${earlier.join('\n')}`);
  // Then a window a fraction of that: the earlier summary is folded into a new one.
  const later = items.reduce((n, i) => n + meter.countMessage(i.message), 0);
  const r = await compactExtractive(items, Math.ceil(later * 0.35));
  const folded = r.checkpoints.find((c) => c.replaced.some((i) => i.kind === 'summary'));
  const text = r.context.map((i) => textWithPlaceholders(i.message.content)).join('\n');
  for (const n of held) assert.ok(text.includes(n), `${n} is still named\n${text}`);
  assert.ok(folded, 'the earlier summary is summarised again');
  assert.equal(folded.retention?.earlier?.kept, folded.retention?.earlier?.total);
});

test('the scorecard’s left-out list names files and commits first; an extension alone or a product name is no file', () => {
  const earlier = summaryItem(
    ['## Identifiers', '- Next.js', '- .tsx', '- review.md', '- commit 4be9a4b', '- /w/docs/adr/0021.md'].join('\n'),
  );
  const card = retentionScorecard({
    replaced: [
      earlier,
      { id: 'u', kind: 'raw', message: { role: 'user', content: 'Fix the parser and run the suite.' }, covers: ['u'] },
    ],
    inserted: [summaryItem('## Current work\n- nothing named')],
  })!;
  assert.deepEqual(card.missing.earlier, ['/w/docs/adr/0021.md', '4be9a4b', 'review.md']);
  const lines = scorecardLeftOut(card);
  assert.match(
    lines[0],
    /^Earlier summaries' files and commits not named: \/w\/docs\/adr\/0021\.md; 4be9a4b; review\.md$/,
  );
  assert.ok(lines.findIndex((l) => l.startsWith('Requests not kept whole')) > 0, lines.join('\n'));
});

test('where naming what an earlier summary held would leave the context over its trigger, the compaction fits and the scorecard names what was left out', async () => {
  // Names so long that even their shortest form (names by folder) would leave the context over its trigger.
  const files = Array.from(
    { length: 150 },
    (_, k) => `/w/src/area${k % 7}/module_${k}_handler_for_the_billing_ledger_settlement_and_refunds.ts`,
  );
  const earlier: ContextItem = {
    id: 'old~s',
    kind: 'summary',
    covers: ['o1'],
    checkpointId: 'old',
    message: {
      role: 'user',
      content: `[Summary of 40 earlier messages]\n\n## Files changed (created or edited, what changed; moves; files read)\n${files.map((f) => `- ${f}: created`).join('\n')}`,
    },
  };
  const later = itemsFromEntries(
    importTranscriptTextSync(
      claudeCode([
        { user: 'Now document every module.' },
        ...Array.from({ length: 6 }, (_, k) => ({
          say: `Part ${k}: ${'the module docs list their exports. '.repeat(40)}`,
        })),
        { user: 'Good, go on.' },
      ]),
      'session.jsonl',
    ).entries,
  );
  const items = [earlier, ...later];
  const size = items.reduce((n, i) => n + meter.countMessage(i.message), 0);
  const r = await compactExtractive(items, Math.ceil(size * 0.5));
  assert.equal(r.status.kind, 'applied');
  assert.ok(r.tokensAfter < Math.ceil(size * 0.5) * 0.8, `${r.tokensAfter} is under the trigger`);
  const card = r.checkpoints.find((c) => c.replaced.some((i) => i.id === 'old~s'))?.retention;
  assert.ok(card?.earlier && card.earlier.kept < card.earlier.total, 'some earlier files could not be kept');
  assert.equal(card.missing.earlier?.length, Math.min(8, card.earlier.total - card.earlier.kept));
  assert.ok(card.missing.earlier?.every((n) => files.includes(n)));
});
