/**
 * A summary summarised again in a much smaller room is not replaced by a thinner one about files:
 * the files section gives up words before it gives up files. Each file's line of what changed is
 * first cut to a short form (its first symbols, the start of its last change), then the files read
 * are named by folder (`- in src/: read a.ts`) instead of going, and a file goes only when even its
 * name cannot stay; what the earlier summary held beyond the room is kept in shorter forms before it
 * is left out. The same work in several recording formats.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, chainedSummaries, sectionOf, type Step } from '../support/recordings';
import { expandFolderLines, shortDetail } from '../../src/compaction/summary/ledger/file-names';
import { keepEarlierHoldings, KEPT_HEADING, SHORTER_HOLDINGS } from '../../src/compaction/summary/earlier-holdings';
import type { ContextItem } from '../../src/compaction/types';

const filler = (n: number, w: string) => `${w} lorem ipsum dolor sit amet `.repeat(n);
const changed = Array.from({ length: 8 }, (_, i) => `src/billing/ledger_part${i}.ts`);
const read = Array.from({ length: 8 }, (_, i) => `docs/billing/guide_${i}.md`);
const fns = (i: number) =>
  ['open', 'close', 'settle', 'refund', 'audit'].map((v) => `export function ${v}Ledger${i}() {\n  return ${i};\n}`);

const first: Step[] = [
  { user: 'Split the billing ledger into parts.' },
  ...read.map((path): Step => ({ tool: 'read', path, output: `How part of the ledger works. ${filler(3, 'doc')}` })),
  ...changed.map((path, i): Step => ({ tool: 'write', path, content: fns(i).join('\n') })),
  { say: `Split the ledger. ${filler(20, 'split')}` },
];
const then: Step[] = [
  { user: 'Now explain how the parts settle.' },
  { say: `The parts settle in order. ${filler(500, 'settle')}` },
  { user: 'And the refunds?' },
  { say: `Refunds go back through the audit. ${filler(500, 'refund')}` },
  { user: 'Thanks, now the invoices.' },
];

for (const format of ['claude-code', 'codex', 'cline', 'openai-chat'] as const) {
  test(`${format}: summarised again in a small room, the files keep a short form of what changed and the files read stay named`, async () => {
    const { write, file } = ALL_WRITERS[format];
    const { first: earlier, second } = await chainedSummaries(write, file, first, then, 8000);
    // The earlier summary named every file with the functions it defines.
    for (const p of [...changed, ...read]) assert.ok(earlier.includes(p), `${p}\n${earlier}`);
    assert.match(earlier, /ledger_part0\.ts: created; defines or changes: openLedger0, closeLedger0/, earlier);
    const files = expandFolderLines(sectionOf(second, 'Files changed'));
    // Every file is still named, each changed one saying it was created, each read one that it was read.
    for (const p of changed) assert.match(files, new RegExp(`^- ${p}(?:: | \\()created`, 'm'), second);
    for (const p of read) assert.ok(new RegExp(`${p}(?: \\(read\\))?`).test(files), `${p}\n${second}`);
    // What changed is kept, in a short form where the room is short, for files beyond the newest.
    const withWhat = changed.filter((p, i) =>
      new RegExp(`^- ${p}: created; defines or changes: openLedger${i}`, 'm').test(files),
    );
    assert.ok(withWhat.length >= 2, `${withWhat.length} files say what changed\n${second}`);
  });
}

test('a long line of what changed is cut at a word end; a short one, or a line without detail, stays as it is', () => {
  const line = `- src/a.ts: created, edited 2×; defines or changes: ${Array.from({ length: 20 }, (_, i) => `name${i}`).join(', ')}`;
  const short = shortDetail(line);
  assert.ok(short.length < line.length && short.endsWith('…'), short);
  assert.match(short, /^- src\/a\.ts: created, edited 2×; defines or changes: name0, name1/);
  assert.equal(shortDetail('- src/a.ts: edited; last change: "x = 1"'), '- src/a.ts: edited; last change: "x = 1"');
  assert.equal(shortDetail('- src/a.ts: edited'), '- src/a.ts: edited');
});

test("an earlier summary's files beyond the room are kept in shorter forms: short lines, then by folder, then the changed ones only", () => {
  const earlier = [
    '## Files changed (created or edited, what changed; moves; files read)',
    '- read only: docs/guide.md, docs/notes.md',
    `- src/pay/a.ts: created; defines or changes: ${Array.from({ length: 12 }, (_, i) => `payName${i}`).join(', ')}`,
    '- src/pay/b.ts: edited 3×; last change: "const rate = 2;"',
  ].join('\n');
  const item: ContextItem = {
    id: 'ck-1~s',
    kind: 'summary',
    message: { role: 'user', content: earlier },
    covers: ['m1'],
    checkpointId: 'ck-1',
  };
  const forms = Array.from({ length: SHORTER_HOLDINGS + 1 }, (_, level) => {
    const t = keepEarlierHoldings('## Current work\n- the invoices', [item], level);
    return t.slice(t.indexOf(KEPT_HEADING));
  });
  assert.match(forms[0], /payName11/);
  assert.match(forms[1], /^- src\/pay\/a\.ts: created; defines or changes: payName0, payName1.*…$/m);
  assert.doesNotMatch(forms[1], /payName11/);
  assert.match(forms[2], /^- in src\/pay\/: created a\.ts; edited b\.ts$/m);
  assert.match(forms[2], /docs\/guide\.md/);
  assert.match(forms[3], /^- in src\/pay\/: created a\.ts; edited b\.ts$/m);
  assert.doesNotMatch(forms[3], /docs\/guide\.md/);
  for (let k = 1; k < forms.length; k++) assert.ok(forms[k].length < forms[k - 1].length, `${forms[k]}`);
});
