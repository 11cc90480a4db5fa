/**
 * Files moved, renamed or deleted by shell commands are named in the summary's "Files changed" section
 * ("deleted", "moved from …"), and counted by the scorecard, in every recording format with a shell
 * tool: POSIX `mv`/`rm`, `git mv`/`git rm`, Windows `ren`/`rename`/`move`/`del`/`erase`, PowerShell
 * `Remove-Item`/`Move-Item`/`Rename-Item`, also inside `bash -lc "…"`, `cmd /c` and
 * `powershell -Command`. A command that failed moved and deleted nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, compactExtractive, type Step, sectionOf } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { shellEffects } from '../../src/compaction/retention/shell';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

const work: Step[] = [
  { user: 'tidy the repository layout' },
  { tool: 'bash', command: 'mv src/old_name.ts src/new_name.ts', output: '', exit: 0 },
  { tool: 'bash', command: 'git mv lib/legacy.py lib/modern.py', output: '', exit: 0 },
  { tool: 'bash', command: 'git rm -q docs/stale_page.md', output: "rm 'docs/stale_page.md'", exit: 0 },
  { tool: 'bash', command: 'bash -lc "rm -f build/tmp_bundle.js"', output: '', exit: 0 },
  { tool: 'bash', command: 'cmd /c ren config\\app_old.json app_new.json', output: '', exit: 0 },
  { tool: 'bash', command: 'cmd /c "del /q notes_draft.txt"', output: '', exit: 0 },
  {
    tool: 'bash',
    command: 'cmd /c move reports\\jan.csv archive\\jan.csv',
    output: '        1 file(s) moved.',
    exit: 0,
  },
  {
    tool: 'bash',
    command: 'powershell -Command "Remove-Item -Path logs/run_old.log -Force"',
    output: '',
    exit: 0,
  },
  {
    tool: 'bash',
    command: 'powershell -NoProfile -Command "Rename-Item -Path scripts/setup_old.ps1 -NewName setup.ps1"',
    output: '',
    exit: 0,
  },
  { tool: 'bash', command: 'Move-Item -Path assets/logo_v1.png -Destination assets/logo.png', output: '', exit: 0 },
  { tool: 'bash', command: 'erase cache_index.db', output: '', exit: 0 },
  {
    tool: 'bash',
    command: 'rm never_there.txt',
    output: "rm: cannot remove 'never_there.txt': No such file or directory",
    ok: false,
  },
  { say: `Done. ${filler(2500)}` },
  { user: 'thanks, now the docs' },
  { say: 'ok' },
];

test('shell moves, renames and deletions are read as such, in POSIX, Windows and PowerShell forms', () => {
  const seen = (command: string) => shellEffects(command).map((e) => `${e.action} ${e.path}`);
  assert.deepEqual(seen('mv a.txt b.txt'), ['moved b.txt', 'deleted a.txt']);
  assert.deepEqual(seen('git mv -f a.txt dir/b.txt'), ['moved dir/b.txt', 'deleted a.txt']);
  assert.deepEqual(seen('git rm --cached keep.txt'), []);
  assert.deepEqual(seen('bash -lc "rm -rf dist/out.js"'), ['deleted dist/out.js']);
  assert.deepEqual(seen('cmd /c ren src\\a.ts b.ts'), ['moved src\\b.ts', 'deleted src\\a.ts']);
  assert.deepEqual(seen('cmd.exe /c "del /f /q x.log && erase y.log"'), ['deleted x.log', 'deleted y.log']);
  assert.deepEqual(seen('move /y a.csv old\\a.csv'), ['moved old\\a.csv', 'deleted a.csv']);
  assert.deepEqual(seen("pwsh -c 'Remove-Item -Recurse -Force build/tmp'"), ['deleted build/tmp']);
  assert.deepEqual(seen('Rename-Item -Path docs/a.md -NewName b.md'), ['moved docs/b.md', 'deleted docs/a.md']);
  assert.deepEqual(seen('Rename-Item docs/a.md b.md'), ['moved docs/b.md', 'deleted docs/a.md']);
  assert.deepEqual(seen('Move-Item -Destination new/c.md -Path c.md'), ['moved new/c.md', 'deleted c.md']);
  assert.deepEqual(seen('ri old.txt'), ['deleted old.txt']);
  assert.deepEqual(seen('echo see rm later; grep -n "rm x" notes.md'), []);
});

for (const [format, { write, file }] of Object.entries(WRITERS)) {
  test(`${format}: files moved, renamed or deleted by shell commands are named under Files changed; a failed rm changes nothing`, async () => {
    const t = importTranscriptTextSync(write(work), file);
    const r = await compactExtractive(itemsFromEntries(t.entries));
    const item = r.context.find((i) => i.kind === 'summary');
    assert.ok(item, 'a summary was written');
    const summary = textWithPlaceholders(item.message.content);
    const section = sectionOf(summary, 'Files changed');
    for (const re of [
      /src\/new_name\.ts \(moved from src\/old_name\.ts/,
      /lib\/modern\.py \(moved from lib\/legacy\.py/,
      /docs\/stale_page\.md \(deleted/,
      /build\/tmp_bundle\.js \(deleted/,
      /config[\\/]app_new\.json \(moved from config[\\/]app_old\.json/,
      /notes_draft\.txt \(deleted/,
      /archive[\\/]jan\.csv \(moved from reports[\\/]jan\.csv/,
      /logs\/run_old\.log \(deleted/,
      /scripts\/setup\.ps1 \(moved from scripts\/setup_old\.ps1/,
      /assets\/logo\.png \(moved from assets\/logo_v1\.png/,
      /cache_index\.db \(deleted/,
    ])
      assert.match(section, re, summary);
    assert.doesNotMatch(section, /never_there/, summary);
    const card = r.checkpoints.find((c) => c.retention)?.retention;
    assert.ok(card, 'the checkpoint has a scorecard');
    assert.deepEqual(card.missing.filesChanged, [], summary);
    // 6 moves (each with its old and its new path) and 5 deletions; the failed rm is none of them.
    assert.equal(card.filesChanged.total, 17, JSON.stringify(card));
  });
}
