/**
 * At a small window the "Files changed" section names every file changed that it can: lines give up
 * their detail first (symbols, last change), then files are named only, grouped by their folder, and
 * a file is left out only after that; the marker then counts the files left out, never lines. The
 * same work in each recording format.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, summaryOf, type Step, sectionOf } from '../support/recordings';
import { dropOldestNames, expandFolderLines, foldIntoFolders } from '../../src/compaction/summary/ledger/file-names';

const FOLDERS = ['src/server/routes', 'src/client/components', 'docs/guides'];
const files = Array.from({ length: 24 }, (_, i) => `${FOLDERS[i % 3]}/module-${i}-handler.ts`);

const work: Step[] = [
  { user: 'split the handlers into one module each' },
  ...files.map((path, i): Step => ({
    tool: 'write',
    path,
    content: Array.from({ length: 4 }, (_, k) => `export function handle${i}Case${k}() {\n  return ${k};\n}`).join(
      '\n',
    ),
  })),
  { say: `Done: ${files.length} modules written.` },
  { user: 'explain the layout' },
  { say: `The layout: ${'each module holds one handler and its cases. '.repeat(80)}` },
  { user: 'and the naming?' },
  { say: `The naming: ${'a module is named after the handler it holds. '.repeat(80)}` },
  { user: 'now add tests for the first module' },
  { say: 'ok' },
];

/** The files section of a summary. */
function filesSection(summary: string): string {
  return sectionOf(summary, 'Files changed');
}

/** Whether `section` names `path`: on its own line, or as a name on the line of its folder. */
function names(section: string, path: string): boolean {
  const at = path.lastIndexOf('/');
  const [folder, name] = [path.slice(0, at + 1), path.slice(at + 1)];
  return section.split('\n').some((l) => {
    if (l.startsWith(`- ${path}:`)) return true;
    const m = /^- in (.+?): (.+)$/.exec(l);
    return m !== null && m[1] === folder && m[2].split(', ').some((n) => n === name || n.startsWith(`${name} (`));
  });
}

for (const [format, { write, file }] of Object.entries(WRITERS)) {
  test(`${format}: at a small window every file changed is named, by folder, before any is left out`, async () => {
    const { summary } = await summaryOf(write(work), file, 4500);
    const section = filesSection(summary);
    const missing = files.filter((p) => !names(section, p));
    assert.deepEqual(missing, [], summary);
    assert.doesNotMatch(section, /not kept|not named here/, summary);
    // Names only, by folder: the older files' lines gave up their words first.
    assert.match(section, /^- in src\/server\/routes\/: module-0-handler\.ts, /m, summary);
  });
}

test('a folder line reads back as the full paths it names, and its notes stay with their names', () => {
  const lines = foldIntoFolders(
    [],
    [
      '- src/a.ts: created; defines or changes: f, g',
      '- src/old.ts (deleted; no longer exists): edited, deleted',
      '- lib/b.ts (moved from src/b.ts; lives here now): moved',
      '- README.md: edited 2×; last change: "x"',
    ],
  );
  assert.deepEqual(lines, ['- in src/: a.ts, old.ts (deleted)', '- in lib/: b.ts (moved)', '- in ./: README.md']);
  assert.equal(
    expandFolderLines(lines.join('\n')),
    ['- src/a.ts', '- src/old.ts (deleted)', '- lib/b.ts (moved)', '- README.md'].join('\n'),
  );
  // A Windows folder keeps its separators.
  const win = foldIntoFolders([], ['- c:\\App\\src\\x.ts: edited']);
  assert.deepEqual(win, ['- in c:\\App\\src\\: x.ts']);
  assert.equal(expandFolderLines(win[0]), '- c:\\App\\src\\x.ts');
  // The oldest names go first, and a folder line left without names goes.
  const left = [...lines];
  assert.equal(dropOldestNames(left, 3), 3);
  assert.deepEqual(left, ['- in ./: README.md']);
});
