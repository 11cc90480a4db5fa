import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendMissingIdentifiers, extractIdentifiers } from '../../src/compaction/summary/identifiers/identifiers';

test('extractIdentifiers finds paths, URLs, ids, commands and error lines in order', () => {
  const text = [
    '[call call_abc123XYZ] run_shell {"command":"npm test -- --grep \\"csv export\\""}',
    "[result call_abc123XYZ] src/report/export.ts(12,5): error TS2304: Cannot find name 'Row'.",
    'See https://github.com/acme/app/pull/42/files. Commit 3f9a2c1d fixed it.',
    'Request id 123e4567-e89b-12d3-a456-426614174000 in ./logs/server.log and README.md',
    'Traceback (most recent call last):',
    '  File "/app/main.py", line 3, in <module>',
    'ValueError: bad input',
  ].join('\n');
  const ids = extractIdentifiers(text);
  for (const expected of [
    'call_abc123XYZ',
    'npm test -- --grep "csv export"',
    "src/report/export.ts(12,5): error TS2304: Cannot find name 'Row'.",
    'src/report/export.ts',
    'https://github.com/acme/app/pull/42/files',
    '3f9a2c1d',
    '123e4567-e89b-12d3-a456-426614174000',
    './logs/server.log',
    'README.md',
    '/app/main.py',
    'ValueError: bad input',
  ]) {
    assert.ok(ids.includes(expected), `missing ${expected} in ${JSON.stringify(ids)}`);
  }
  assert.equal(new Set(ids).size, ids.length, 'deduplicated');
  assert.ok(ids.indexOf('call_abc123XYZ') < ids.indexOf('https://github.com/acme/app/pull/42/files'));
  assert.ok(!ids.includes('/acme/app/pull/42/files'), 'URL path not reported again as a path');
  assert.ok(!ids.some((i) => i.startsWith('Traceback')), 'traceback header replaced by its exception line');
});

test('extractIdentifiers ignores prose fractions, plain words and digit-only numbers', () => {
  const ids = extractIdentifiers('Use and/or logic for 1/2 of the 12345678 items, e.g. later.');
  assert.deepEqual(ids, []);
});

test('extractIdentifiers reads codex-style command arrays and $ prompt lines', () => {
  const ids = extractIdentifiers('{"command":["bash","-lc","git status --short"]}\n$ cargo build --release\n');
  assert.ok(ids.includes('git status --short'));
  assert.ok(ids.includes('cargo build --release'));
});

test('appendMissingIdentifiers creates a section with only the missing ones', () => {
  const source = 'edited src/a.ts and src/b.ts; see https://example.com/x';
  const r = appendMissingIdentifiers('## Objective\nEdit files in src/a.ts.', source, 1000);
  assert.deepEqual(r.added, ['src/b.ts', 'https://example.com/x']);
  assert.equal(r.text, '## Objective\nEdit files in src/a.ts.\n\n## Identifiers\n- src/b.ts\n- https://example.com/x');
});

test('appendMissingIdentifiers extends an existing section before the next heading', () => {
  const summary = '## Identifiers (verbatim)\n- src/a.ts\n\n## Unresolved and next step\nRun tests.';
  const r = appendMissingIdentifiers(summary, 'src/a.ts src/b.ts', 1000);
  assert.deepEqual(r.added, ['src/b.ts']);
  assert.equal(r.text, '## Identifiers (verbatim)\n- src/a.ts\n- src/b.ts\n\n## Unresolved and next step\nRun tests.');
});

test('appendMissingIdentifiers stays within its character bound', () => {
  const source = Array.from({ length: 50 }, (_, i) => `src/module${i}/file${i}.ts`).join(' ');
  const r = appendMissingIdentifiers('Summary.', source, 120);
  assert.ok(r.text.length - 'Summary.'.length <= 120, `added ${r.text.length - 8} chars`);
  assert.ok(r.added.length > 0 && r.added.length < 50);
  assert.deepEqual(appendMissingIdentifiers('Summary.', source, 0), { text: 'Summary.', added: [] });
  assert.deepEqual(appendMissingIdentifiers('src/a.ts', 'src/a.ts', 100), { text: 'src/a.ts', added: [] });
});

test('extractIdentifiers skips prose with slashes and JSON escapes, and reads Windows paths', () => {
  const ids = extractIdentifiers(
    'Use HTML/JSON or SMS/email/push, see </thinking> and /task.\n{"content":"line one\\nline two\\nError: disk full\\nmore"} C:\\Users\\me\\My Docs\\a.txt. Repo https://example.com/r.git\\" ok',
  );
  assert.deepEqual(ids, ['Error: disk full', 'C:\\Users\\me\\My Docs\\a.txt', 'https://example.com/r.git']);
});

test('extractIdentifiers keeps a long error line from just before its match', () => {
  const line = `${'word '.repeat(100)}TypeError: x is not a function ${'tail '.repeat(10)}`;
  const [id] = extractIdentifiers(line);
  assert.ok(id?.includes('TypeError: x is not a function'), id);
  assert.ok((id?.length ?? 0) <= 240);
});

test('a search hit quoting a line of code is no error line; a compiler report with the same prefix is one', () => {
  const text = [
    'app/api/retrieval/retrieve/route.ts:74:      const { data: localFileItems, error: localFileItemsError } =',
    'src/log.ts:9:    console.error("failed", e)',
    'src/a.ts:3:1: error TS2304: Cannot find name x',
    'lib/x.py:10: error: Incompatible types in assignment',
  ].join('\n');
  const ids = extractIdentifiers(text);
  assert.ok(!ids.some((id) => id.includes('const {') || id.includes('console.error')), JSON.stringify(ids));
  assert.ok(ids.includes('app/api/retrieval/retrieve/route.ts'), JSON.stringify(ids));
  assert.ok(ids.includes('src/a.ts:3:1: error TS2304: Cannot find name x'), JSON.stringify(ids));
  assert.ok(ids.includes('lib/x.py:10: error: Incompatible types in assignment'), JSON.stringify(ids));
});
