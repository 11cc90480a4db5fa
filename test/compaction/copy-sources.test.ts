/**
 * A copy reads its sources and creates its destination: `cp` (also with its paths in shell
 * variables), cmd.exe `copy`, PowerShell `Copy-Item`. The summary's "Files changed" section and the
 * scorecard name the destinations as changed, never the sources; the earlier summaries' files carried
 * by a later summary are neither a copy's source, nor a path only pointed at to be read, nor a type's
 * constant written like a file name (`SqlTypes.JSON`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, compactExtractive, type Step, sectionOf } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { shellEffects } from '../../src/compaction/retention/shell';
import { pathsIn } from '../../src/compaction/retention/earlier';
import { keepEarlierHoldings, KEPT_HEADING } from '../../src/compaction/summary/earlier-holdings';
import type { ContextItem } from '../../src/compaction/types';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

test('a copy reads its sources and creates its destination (cp, variables, copy, Copy-Item)', () => {
  const seen = (command: string) => shellEffects(command).map((e) => `${e.action} ${e.path}`);
  assert.deepEqual(seen('cp -r a.txt b.txt'), ['created b.txt', 'read a.txt']);
  assert.deepEqual(seen('SRC=/logs/run.jsonl\nDST=/out/session.json\ncp "$SRC" "$DST"'), [
    'created /out/session.json',
    'read /logs/run.jsonl',
  ]);
  assert.deepEqual(seen('copy /y notes\\draft.txt notes\\final.txt'), [
    'created notes\\final.txt',
    'read notes\\draft.txt',
  ]);
  assert.deepEqual(seen('Copy-Item -Destination site/index.html -Path templates/base.html'), [
    'created site/index.html',
    'read templates/base.html',
  ]);
  assert.deepEqual(seen('Copy-Item -WhatIf a.md b.md'), []);
});

const work: Step[] = [
  { user: 'make the release copies' },
  { tool: 'bash', command: 'cp config/app_settings.json backup/app_settings.json', output: '', exit: 0 },
  {
    tool: 'bash',
    command: 'SRC=/data/run_history.jsonl\nDST=/data/out/session_copy.json\ncp "$SRC" "$DST"',
    output: '',
    exit: 0,
  },
  {
    tool: 'bash',
    command: 'Copy-Item -Path templates/base_page.html -Destination site/home_page.html',
    output: '',
    exit: 0,
  },
  {
    tool: 'bash',
    command: 'cmd /c copy /y notes\\draft_notes.txt notes\\final_notes.txt',
    output: '        1 file(s) copied.',
    exit: 0,
  },
  { say: `Done. ${filler(2500)}` },
  { user: 'thanks, now the docs' },
  { say: 'ok' },
];

for (const [format, { write, file }] of Object.entries(WRITERS)) {
  test(`${format}: a copy's destination is named as changed, its source is not`, async () => {
    const t = importTranscriptTextSync(write(work), file);
    const r = await compactExtractive(itemsFromEntries(t.entries));
    const item = r.context.find((i) => i.kind === 'summary');
    assert.ok(item, 'a summary was written');
    const summary = textWithPlaceholders(item.message.content);
    const section = sectionOf(summary, 'Files changed');
    const changed = section
      .split('\n')
      .filter((l) => !/read only/.test(l))
      .join('\n');
    for (const name of ['app_settings.json', 'session_copy.json', 'home_page.html', 'final_notes.txt'])
      assert.ok(changed.includes(name), `${name} is named as changed:\n${summary}`);
    for (const name of ['run_history.jsonl', 'base_page.html', 'draft_notes.txt'])
      assert.ok(!changed.includes(name), `${name} is no changed file:\n${summary}`);
    const card = r.checkpoints.find((c) => c.retention)?.retention;
    assert.ok(card, 'the checkpoint has a scorecard');
    assert.deepEqual(card.missing.filesChanged, [], summary);
    assert.equal(card.filesChanged.total, 4, JSON.stringify(card));
  });
}

/** An earlier summary, as a compaction replaced a span with it. */
function earlierSummary(text: string): ContextItem {
  return { kind: 'summary', message: { role: 'user', content: text } } as unknown as ContextItem;
}

test('the files kept from an earlier summary are no copy source, read pointer or type constant', () => {
  const text = [
    '- /w/src/Store.java: created, JSON column via `@JdbcTypeCode(SqlTypes.JSON)`',
    '- Ran `cp /w/docs/design_source.md /w/out/design_copy.md` to mirror the docs',
    'If you need specific details, read the full transcript at: /home/u/.agent/abc123.jsonl',
  ].join('\n');
  const out = keepEarlierHoldings('## Current work\n- nothing', [earlierSummary(text)]);
  const kept = out.slice(out.indexOf(KEPT_HEADING));
  assert.ok(kept.includes('/w/src/Store.java'), kept);
  assert.ok(kept.includes('/w/out/design_copy.md'), kept);
  for (const name of ['SqlTypes.JSON', 'abc123.jsonl']) assert.ok(!kept.includes(name), kept);
  assert.ok(!/design_source\.md(?!.*design_copy)/.test(kept.replace(/Ran `cp[^`]*`/, '')), kept);
  // The scorecard's own reader agrees on the constant and the read pointer.
  const held = pathsIn(text);
  assert.ok(held.includes('/w/src/Store.java') && !held.includes('SqlTypes.JSON'), held.join(' '));
  assert.ok(!held.some((p) => p.endsWith('abc123.jsonl')), held.join(' '));
});
