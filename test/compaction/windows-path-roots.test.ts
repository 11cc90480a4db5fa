/**
 * Windows paths (a drive letter, backslashes) are written from named folders like POSIX ones
 * (`$A = c:\Apps\Web`, `$A\src\lib\auth.ts`), read back by a later compaction and by the scorecard's
 * path matching (a path under a named folder counts when its expansion matches).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, summaryOf, type Step } from '../support/recordings';
import {
  chooseRoots,
  fullPath,
  parseRootsLine,
  rootsIn,
  rootsLine,
  shortPath,
  withFullPaths,
} from '../../src/compaction/summary/ledger/path-root';
import { expandRoots, hasPathIn, slashed } from '../../src/compaction/retention/presence';

const ROOT = 'c:\\Apps\\MarineResponse20260424\\webapp\\';
const FILES = [
  'src\\lib\\gcs-storage.ts',
  'src\\lib\\auth.ts',
  'src\\app\\login\\page.tsx',
  'src\\app\\admin\\layout.tsx',
  'src\\context\\IncidentContext.tsx',
  'terraform\\main.tf',
  'terraform\\variables.tf',
].map((f) => `${ROOT}${f}`);

test('Windows folders are named and their paths written from the name, read back whole', () => {
  const roots = chooseRoots(FILES);
  assert.ok(roots.list.length >= 1, 'a folder is named');
  assert.ok(
    roots.list.every((r) => r.dir.endsWith('\\')),
    JSON.stringify(roots),
  );
  for (const p of FILES) {
    const s = shortPath(roots, p);
    assert.match(s, /^\$[A-Z]\\\S+\\/, s);
    assert.ok(s.length < p.length, s);
    assert.equal(fullPath(roots, s), p);
  }
  const line = rootsLine(roots)!;
  assert.deepEqual(parseRootsLine(line), roots);
  const text = `${line}\n- ${shortPath(roots, FILES[0])}: created`;
  assert.ok(withFullPaths(text).includes(FILES[0]), withFullPaths(text));
  // The scorecard's reading: the expanded path matches.
  assert.ok(hasPathIn(slashed(expandRoots(text)), FILES[0]), expandRoots(text));
  // Folders with spaces are not named (the roots line is read back word by word); JSON-escaped paths neither.
  const spaced = chooseRoots(FILES.map((f) => f.replace('webapp', 'web app')));
  assert.ok(
    spaced.list.every((r) => !/\s/.test(r.dir)),
    JSON.stringify(spaced),
  );
  assert.deepEqual(chooseRoots(FILES.map((f) => f.replace(/\\/g, '\\\\'))).list, []);
});

const steps: Step[] = [
  { user: 'move storage off Firebase and add sign-in' },
  ...FILES.map((path, i): Step => ({ tool: 'write', path, content: `export const part${i} = ${i};` })),
  { say: `Wrote the storage client, sign-in pages and the terraform files. ${'Each file is in place. '.repeat(40)}` },
  { user: 'now deploy it' },
  { say: 'ok' },
];

for (const format of ['cline', 'claude-code'] as const) {
  test(`${format}: a ledger of Windows paths names their folder once`, async () => {
    const { write, file } = WRITERS[format];
    const { summary } = await summaryOf(write(steps), file);
    assert.match(summary, /\$A = c:\\Apps\\\S*\\/, summary);
    // The files are written from the name, read back whole, and matched through it as the scorecard reads them.
    const recent = summary.split('\n').find((l) => l.startsWith('- Files edited most recently: '));
    const listed = recent!.slice('- Files edited most recently: '.length).split(', ');
    assert.ok(listed.length >= 3 && listed.every((p) => p.startsWith('$A\\')), summary);
    const text = slashed(expandRoots(summary));
    for (const short of listed) {
      const full = fullPath(rootsIn(summary), short);
      assert.ok(FILES.includes(full), `${short} → ${full}`);
      assert.ok(hasPathIn(text, full), `${full} not matched in\n${summary}`);
    }
  });
}
