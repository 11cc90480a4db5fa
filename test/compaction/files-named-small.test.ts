/**
 * At a small window the "Files changed" section names every file changed that it can: lines give up
 * their detail first (symbols, last change), then files are named only, grouped by their folder, and
 * a file is left out only after that; the marker then counts the files left out, never lines. A
 * file named by folder still says what happened to it (created, edited, deleted, moved here). When
 * room is tighter still, folder lines merge into the folder they share, each name written from it,
 * so more files stay named in the same room, and the quote of the agent's answer to an earlier request
 * gives way before a file's name does. The same work in each recording format.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, summaryOf, type Step, sectionOf } from '../support/recordings';
import {
  dropOldestNames,
  expandFolderLines,
  filesNamed,
  foldIntoFolders,
  mergeFolderLines,
} from '../../src/compaction/summary/ledger/file-names';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';

const FOLDERS = ['src/server/routes', 'src/client/components', 'docs/guides'];
const files = Array.from({ length: 24 }, (_, i) => `${FOLDERS[i % 3]}/module-${i}-handler.ts`);
/** Files that existed before the work: only edited. */
const edited = ['src/server/routes/index.ts', 'src/client/components/index.ts', 'docs/guides/index.md'];

const work: Step[] = [
  { user: 'split the handlers into one module each' },
  ...files.map((path, i): Step => ({
    tool: 'write',
    path,
    content: Array.from({ length: 4 }, (_, k) => `export function handle${i}Case${k}() {\n  return ${k};\n}`).join(
      '\n',
    ),
  })),
  // A third of the modules are edited after they were written, and three files that existed before are edited.
  ...files
    .filter((_, i) => i % 3 === 1)
    .map((path, i): Step => ({ tool: 'edit', path, old: 'return 0;', new: `return ${i + 10};` })),
  ...edited.map((path): Step => ({ tool: 'edit', path, old: 'const a = 1;', new: 'const a = 2;' })),
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

/**
 * What `section` says happened to `path`: the operations of its own line, or the verb of the group
 * that names it on its folder's line (`- in src/: created a.ts, b.ts; edited c.ts`); undefined when
 * it is not named.
 */
function said(section: string, path: string): string | undefined {
  const at = path.lastIndexOf('/');
  const [folder, name] = [path.slice(0, at + 1), path.slice(at + 1)];
  for (const l of section.split('\n')) {
    if (l.startsWith(`- ${path}: `)) return l.slice(`- ${path}: `.length).split(';')[0];
    const m = /^- in (.+?): (.+)$/.exec(l);
    if (m === null || m[1] !== folder) continue;
    for (const group of m[2].split('; ')) {
      const g = /^(created|edited|deleted|moved here) (.+)$/.exec(group);
      if (g && g[2].split(', ').includes(name)) return g[1];
    }
  }
  return undefined;
}

for (const [format, { write, file }] of Object.entries(WRITERS)) {
  test(`${format}: at a small window every file changed is named, by folder, before any is left out`, async () => {
    const { summary } = await summaryOf(write(work), file, 3500);
    const section = filesSection(summary);
    const missing = [...files, ...edited].filter((p) => said(section, p) === undefined);
    assert.deepEqual(missing, [], summary);
    // Each file says whether it is new or was edited, on its own line or in its folder's group.
    for (const p of files) assert.match(said(section, p)!, /^created\b/, `${p}\n${summary}`);
    for (const p of edited) assert.match(said(section, p)!, /^edited\b/, `${p}\n${summary}`);
    assert.doesNotMatch(section, /not kept|not named here/, summary);
    // Names only, by folder: the older files' lines gave up their words first.
    assert.match(section, /^- in src\/server\/routes\/: created module-0-handler\.ts, /m, summary);
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
  assert.deepEqual(lines, [
    '- in src/: created a.ts; deleted old.ts',
    '- in lib/: moved here b.ts',
    '- in ./: edited README.md',
  ]);
  assert.equal(
    expandFolderLines(lines.join('\n')),
    ['- src/a.ts (created)', '- src/old.ts (deleted)', '- lib/b.ts (moved here)', '- README.md (edited)'].join('\n'),
  );
  // A file written whole after edits is new content: created; one folded again keeps its newest verb.
  assert.deepEqual(foldIntoFolders(lines, ['- src/c.ts: edited, created', '- src/a.ts: edited']), [
    '- in src/: created c.ts; edited a.ts; deleted old.ts',
    '- in lib/: moved here b.ts',
    '- in ./: edited README.md',
  ]);
  // A folder line written without verbs reads each name's note as its verb, a bare name as edited.
  assert.deepEqual(foldIntoFolders(['- in src/: a.ts, old.ts (deleted)'], []), [
    '- in src/: edited a.ts; deleted old.ts',
  ]);
  // A Windows folder keeps its separators.
  const win = foldIntoFolders([], ['- c:\\App\\src\\x.ts: edited']);
  assert.deepEqual(win, ['- in c:\\App\\src\\: edited x.ts']);
  assert.equal(expandFolderLines(win[0]), '- c:\\App\\src\\x.ts (edited)');
  // The oldest folder's names go first (a deleted file before the others), and a folder line left without names goes.
  const left = [...lines];
  assert.equal(dropOldestNames(left, 3), 3);
  assert.deepEqual(left, ['- in ./: edited README.md']);
  const one = [...lines];
  assert.equal(dropOldestNames(one, 1), 1);
  assert.deepEqual(one, ['- in src/: created a.ts', '- in lib/: moved here b.ts', '- in ./: edited README.md']);
});

/** One file in each of eight folders under `src` (paths after the project folder, parts apart). */
const SPREAD = [
  ['components', 'cart', 'Cart.tsx'],
  ['components', 'checkout', 'Checkout.tsx'],
  ['lib', 'db', 'client.ts'],
  ['lib', 'auth', 'session.ts'],
  ['app', 'orders', 'page.tsx'],
  ['app', 'admin', 'page.tsx'],
  ['hooks', 'cart', 'useCart.ts'],
  ['types', 'orders', 'order.ts'],
];

for (const [format, root, sep] of [
  ['claude-code', '/home/dev/shop/', '/'],
  ['cline', 'c:\\Users\\dev\\shop\\', '\\'],
] as const) {
  test(`${format}: with little room, files in many folders are named from the folder they share`, () => {
    const { write, file } = WRITERS[format];
    const steps: Step[] = [
      { user: 'build the shop checkout' },
      ...SPREAD.map((p): Step => ({ tool: 'write', path: root + ['src', ...p].join(sep), content: 'export {}' })),
      { say: 'Done.' },
      { user: 'thanks' },
    ];
    const items = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
    // Room for the current work and about 45 tokens of files: a line per folder names half of them.
    const notes = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 240);
    const section = sectionOf(notes, 'Files changed');
    assert.equal(filesNamed(section.split('\n')), SPREAD.length, notes);
    assert.match(section, new RegExp(`: created components\\${sep}cart\\${sep}Cart\\.tsx, `), notes);
  });
}

for (const [format, root, sep] of [
  ['claude-code', '/home/dev/shop/', '/'],
  ['cline', 'c:\\Users\\dev\\shop\\', '\\'],
] as const) {
  test(`${format}: the answer to an earlier request gives way before a file changed goes unnamed, not sooner`, () => {
    const { write, file } = WRITERS[format];
    const steps: Step[] = [
      { user: 'build the shop checkout' },
      ...SPREAD.map((p): Step => ({ tool: 'write', path: root + ['src', ...p].join(sep), content: 'export {}' })),
      {
        say: 'The checkout is built: the cart page lists the items, the checkout page takes the address and the card, and the orders page shows what was bought.',
      },
      { user: 'now add tests for the cart' },
    ];
    const items = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
    const notes = (budget: number) => new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, budget);
    const tight = notes(200);
    assert.equal(filesNamed(sectionOf(tight, 'Files changed').split('\n')), SPREAD.length, tight);
    assert.doesNotMatch(tight, /^- Answered an earlier request/m, tight);
    // With room for both, both stay.
    const roomy = notes(300);
    assert.equal(filesNamed(sectionOf(roomy, 'Files changed').split('\n')), SPREAD.length, roomy);
    assert.match(roomy, /^- Answered an earlier request [^\n]*"The checkout/m, roomy);
  });
}

test('folder lines merge into the deepest folder they share, only when shorter, and read back as the same paths', () => {
  const lines = [
    '- in src/app/orders/: created page.tsx',
    '- in src/app/admin/: edited page.tsx',
    '- in lib/: edited util.ts',
    '- in ./: edited README.md',
  ];
  const before = expandFolderLines(lines.join('\n')).split('\n').sort();
  assert.equal(mergeFolderLines(lines), true);
  assert.deepEqual(lines, [
    '- in src/app/: created orders/page.tsx; edited admin/page.tsx',
    '- in lib/: edited util.ts',
    '- in ./: edited README.md',
  ]);
  assert.deepEqual(expandFolderLines(lines.join('\n')).split('\n').sort(), before);
  // `src/app/` and `lib/` share no folder; a bare name's `./` merges nothing.
  assert.equal(mergeFolderLines(lines), false);
  // A shared folder that would make the names longer than the lines it saves is no merge.
  const long = [
    '- in src/components/forms/: created a.ts, b.ts, c.ts, d.ts, e.ts, f.ts',
    '- in src/lib/: created u.ts',
  ];
  assert.equal(mergeFolderLines(long), false);
});
