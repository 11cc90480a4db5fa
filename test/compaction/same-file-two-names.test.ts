/**
 * One file named two ways is one file in the summary: agents read a file by its path relative to
 * their working folder and write it by its absolute path (Cline: `read_file src/x.ts`, then
 * `write_to_file c:\Apps\web\src\x.ts`), and a whole-file write over a file that was read is a
 * rewrite, not a creation. The summary must not list the file as read only and as created.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, summaryOf, sectionOf, type Step } from '../support/recordings';
import { LedgerFold } from '../../src/compaction/summary/ledger/ledger-fold';
import type { Action, FileOp } from '../../src/compaction/summary/ledger/actions';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

function work(root: string, sep: '/' | '\\'): Step[] {
  const abs = (p: string) => `${root}${sep}${p.split('/').join(sep)}`;
  return [
    { user: 'move the login page to the new auth client' },
    { tool: 'read', path: 'src/app/login/page.tsx', output: `export default function OldLogin() {}\n${filler(20)}` },
    {
      tool: 'write',
      path: abs('src/app/login/page.tsx'),
      content: 'export default function LoginPage() {\n  return null;\n}\nexport function handleSignIn() {}',
    },
    { tool: 'write', path: abs('src/lib/auth.ts'), content: 'export function authorize() {}' },
    { say: `Done. ${filler(800)}` },
    { user: 'thanks, now the docs' },
    { say: 'ok' },
  ];
}

for (const [format, { write, file }] of Object.entries(WRITERS)) {
  for (const [root, sep] of [
    ['/home/u/web', '/'],
    ['c:\\Apps\\web', '\\'],
  ] as const) {
    test(`${format}, ${sep === '/' ? 'POSIX' : 'Windows'} paths: a file read relative and rewritten absolute is one file, edited`, async () => {
      const { summary } = await summaryOf(write(work(root, sep)), file);
      const files = sectionOf(summary, 'Files changed (created or edited, what changed; moves; files read)');
      assert.ok(files, summary);
      const readOnly = files.split('\n').find((l) => l.startsWith('- read only:')) ?? '';
      assert.doesNotMatch(readOnly, /login/, files);
      const login = files.split('\n').filter((l) => /login[\\/]page\.tsx/.test(l));
      assert.equal(login.length, 1, files);
      assert.match(login[0], /: read, edited\b/, files);
      assert.doesNotMatch(login[0], /created/, files);
      // A file never seen before is still created.
      assert.match(files, /auth\.ts: created\b/, files);
    });
  }
}

const file = (path: string, op: FileOp, ok = true): Action => ({ kind: 'file', path, op, ok, symbols: [], tool: 'x' });

test('a relative path matching two absolute paths stays its own file, and a failed read does not make a write a rewrite', () => {
  const fold = LedgerFold.of([
    file('/a/pkg1/index.ts', 'edited'),
    file('/a/pkg2/index.ts', 'edited'),
    file('index.ts', 'read'),
    file('src/new.ts', 'read', false),
    file('/a/src/new.ts', 'created'),
  ]);
  assert.deepEqual([...fold.files.keys()], ['/a/pkg1/index.ts', '/a/pkg2/index.ts', 'index.ts', '/a/src/new.ts']);
  assert.deepEqual(
    [...fold.files.get('/a/src/new.ts')!.ops].map(([op]) => op),
    ['read', 'created'],
  );
});
