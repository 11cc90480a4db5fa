/**
 * Shorter paths in the ledger: folders named once (`$A = /…`), paths written from them, read back
 * by a later compaction of the summary, and a class named like its file not repeated.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Acalls, T, U, items } from '../support/conversation';
import {
  chooseRoots,
  expandRoots,
  fullPath,
  parseRootsLine,
  rootsLine,
  shortPath,
  withFullPaths,
} from '../../src/compaction/summary/ledger/path-root';
import { backfillIdentifiers } from '../../src/compaction/summary/identifiers/backfill';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { actionsOf } from '../../src/compaction/summary/ledger/actions';
import { buildLedger } from '../../src/compaction/summary/ledger/ledger';
import type { ContextItem } from '../../src/compaction/types';
import { parseSections, SECTIONS } from '../../src/compaction/summary/span-scan';
import { expandRoots as presenceExpand } from '../../src/compaction/retention/presence';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';

const ROOT = '/home/someone/projects/orders-service/';
const JAVA = `${ROOT}backend/src/main/java/com/example/orders/`;

function writes(paths: string[]) {
  return paths.map((p, i) =>
    Acalls([
      [
        `c${i}`,
        'Write',
        JSON.stringify({
          file_path: p,
          content: `public class ${p.split('/').pop()!.replace('.java', '')} {\n  run() {\n  }\n}`,
        }),
      ],
    ]),
  );
}

test('folders are named by the characters they save; every path under one is written from it', () => {
  const paths = [
    'entity/Order.java',
    'entity/Item.java',
    'repository/OrderRepository.java',
    'service/OrderService.java',
  ].map((p) => `${JAVA}${p}`);
  const roots = chooseRoots([...paths, `${ROOT}README.md`, `${ROOT}docs/design.md`]);
  assert.ok(roots.list.length >= 1, 'a folder is named');
  for (const p of paths) {
    const s = shortPath(roots, p);
    assert.match(s, /^\$[A-Z]\/\S+\/\w+\.java$/, s);
    assert.ok(s.length < p.length / 2, `${s} is much shorter than ${p}`);
    assert.equal(fullPath(roots, s), p, 'the full path is read back');
  }
  // A file directly in a named folder is written from it too: one folder is never written two ways.
  assert.equal(shortPath({ list: [{ name: '$A', dir: ROOT }] }, `${ROOT}README.md`), '$A/README.md');
  // Few or short paths name nothing.
  assert.deepEqual(chooseRoots(['src/a.ts', 'src/b.ts', 'test/a.test.ts']).list, []);
  assert.deepEqual(chooseRoots([`${JAVA}a/X.java`]).list, []);
});

test('the roots line is read back, and lines written from other roots are written out in full', () => {
  const roots = chooseRoots(['a', 'b', 'c', 'd'].map((n) => `${JAVA}pkg/${n}.java`));
  const line = rootsLine(roots)!;
  assert.deepEqual(parseRootsLine(line), roots);
  assert.equal(parseRootsLine('- Last tool call: bash'), undefined);
  assert.equal(
    expandRoots(roots, '- $A/pkg/a.java: created; see also $HOME/x'),
    `- ${roots.list[0].dir}pkg/a.java: created; see also $HOME/x`,
  );
});

test('the ledger writes paths from the named folders and drops a symbol named like its file', () => {
  const paths = ['Order', 'Item', 'Customer', 'Invoice'].map((n) => `${JAVA}entity/${n}.java`);
  const msgs = [U('build the orders service'), ...writes(paths).flatMap((a, i) => [a, T(`c${i}`, 'File created.')])];
  const acts = actionsOf(items(msgs));
  const roots = chooseRoots(paths);
  const ledger = buildLedger(acts, new Map(), roots);
  assert.ok(
    ledger.files.some((l) => /^- \$A\/entity\/Order\.java: created; defines or changes: run$/.test(l)),
    ledger.files.join('\n'),
  );
  assert.deepEqual(ledger.edited, paths, 'the edited list keeps the full paths');
});

test("a chained summary keeps the first summary's folder names and its carried file lines", async () => {
  const count = (t: string) => Math.ceil(t.length / 4);
  const x = new ExtractiveSummarizer(count);
  const first = ['Order', 'Item', 'Customer', 'Invoice'].map((n) => `${JAVA}entity/${n}.java`);
  const firstNotes = x.notes(
    items([U('build the orders service'), ...writes(first).flatMap((a, i) => [a, T(`c${i}`, 'File created.')])]),
    4000,
  );
  assert.match(firstNotes, /- Path roots \(a path starting with one is under that folder\): \$A = \//);
  const summary: ContextItem = {
    id: 's1',
    kind: 'summary',
    message: { role: 'user', content: firstNotes },
    covers: ['e0'],
  };
  const later = writes([`${JAVA}service/OrderService.java`]).map((m, i) => ({
    id: `n${i}`,
    kind: 'raw' as const,
    message: m,
    covers: [`n${i}`],
  }));
  const notes = x.notes(
    [summary, ...later, { id: 't', kind: 'raw', message: T('c0', 'File created.'), covers: ['t'] }],
    4000,
  );
  const sec = parseSections(notes);
  const named = (sec.get(SECTIONS.current) ?? []).map(parseRootsLine).find((r) => r !== undefined)!;
  assert.deepEqual(
    named.list[0],
    parseRootsLine((parseSections(firstNotes).get(SECTIONS.current) ?? []).find((l) => parseRootsLine(l))!)!.list[0],
  );
  const files = (sec.get(SECTIONS.files) ?? []).join('\n');
  for (const p of [...first, `${JAVA}service/OrderService.java`])
    assert.ok(
      files.split('\n').some((l) => fullPath(named, l.slice(2).split(':')[0]) === p),
      `${p} in\n${files}`,
    );
});

test('back-fill does not add a path the summary already writes from a named folder; full-path searches read the names', () => {
  const paths = ['Order', 'Item', 'Customer', 'Invoice'].map((n) => `${JAVA}entity/${n}.java`);
  const roots = chooseRoots(paths);
  const summary = `## Current work and next step\n${rootsLine(roots)}\n\n## Files (what happened to each; where it lives now)\n${paths.map((p) => `- ${shortPath(roots, p)}: created`).join('\n')}`;
  const span = writes(paths).map((m, i) => ({ id: `e${i}`, kind: 'raw' as const, message: m, covers: [`e${i}`] }));
  const filled = backfillIdentifiers(summary, span, 4000);
  for (const p of paths) assert.ok(!filled.added.includes(p), `${p} is not added again`);
  for (const p of paths) assert.ok(withFullPaths(summary).includes(p), p);
  // Without the roots line the same paths are missing and are added.
  assert.ok(backfillIdentifiers(paths.map((p) => `- ${p.slice(-20)}`).join('\n'), span, 4000).added.includes(paths[0]));
});

/** `text` with each `$X` a roots line names replaced by what the line gives for it, as a shell expands a variable. */
function shellExpanded(text: string): string {
  const line = text.split('\n').find((l) => l.includes('- Path roots'));
  assert.ok(line, text);
  const values = new Map([...line.matchAll(/(\$[A-Z]) = ([^\s,]+)/g)].map((m) => [m[1], m[2]]));
  const body = text
    .split('\n')
    .filter((l) => l !== line)
    .join('\n');
  return body.replace(/\$[A-Z]\b/g, (name) => values.get(name) ?? name);
}

const SHELL_FILES = [
  'entity/Order.java',
  'entity/Item.java',
  'repository/OrderRepository.java',
  'api/OrderApi.java',
].map((p) => `${JAVA}${p}`);

for (const format of ['claude-code', 'codex'] as const) {
  test(`${format}: a path written from a named folder expands to the exact path, as a shell reads $A/x`, () => {
    const { write, file } = WRITERS[format];
    const steps: Step[] = [
      { user: 'build the orders service' },
      ...SHELL_FILES.map((path, i): Step => ({ tool: 'write', path, content: `public class C${i} {}` })),
      { say: 'Wrote the entities, the repository and the API.' },
    ];
    const span = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
    const notes = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(span, 4000);
    assert.match(notes, /- Path roots .*\$A = /, notes);
    const expanded = shellExpanded(notes);
    assert.ok(!/[^:]\/\//.test(expanded), `a doubled separator in\n${expanded}`);
    for (const p of SHELL_FILES) assert.ok(expanded.includes(p), `${p} in\n${expanded}`);
  });
}

test('roots lines of either form are read back: the folder with or without its last separator', () => {
  const prefix = '- Path roots (a path starting with one is under that folder): ';
  const want = {
    list: [
      { name: '$A', dir: '/x/y/' },
      { name: '$B', dir: 'c:\\Apps\\Web\\' },
    ],
  };
  assert.deepEqual(parseRootsLine(`${prefix}$A = /x/y, $B = c:\\Apps\\Web`), want);
  assert.deepEqual(parseRootsLine(`${prefix}$A = /x/y/, $B = c:\\Apps\\Web\\`), want);
  assert.equal(rootsLine(want), `${prefix}$A = /x/y, $B = c:\\Apps\\Web`);
  // The scorecard's reading expands both forms to the same paths.
  for (const line of [`${prefix}$A = /x/y`, `${prefix}$A = /x/y/`])
    assert.equal(presenceExpand(`${line}\n- $A/adr/0001.md: created`).split('\n')[1], '- /x/y/adr/0001.md: created');
});
