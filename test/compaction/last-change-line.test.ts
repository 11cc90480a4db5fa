/**
 * A file's "last change" quotes the line the edit added, not a context line the old and new text
 * share but for the separator the addition needed (`"test:watch": "vitest"` given its comma so that a
 * new script can follow it). Recorded in each agent's format that edits files.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, sectionOf, summaryOf, type Step } from '../support/recordings';
import { changeGist } from '../../src/compaction/summary/ledger/actions';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

const work: Step[] = [
  { user: 'add a readiness script to package.json' },
  {
    tool: 'edit',
    path: 'package.json',
    old: '    "test": "vitest run",\n    "test:watch": "vitest"\n  },',
    new: '    "test": "vitest run",\n    "test:watch": "vitest",\n    "zerion:readiness": "node scripts/zerion-readiness.mjs"\n  },',
  },
  { say: `Added the script. ${filler(600)}` },
  { user: 'thanks, now the docs' },
  { say: 'ok' },
];

test('the gist of an edit is its added line; a line that only gained a separator is the gist only when nothing else changed', () => {
  assert.equal(changeGist('  "a": 1\n}', '  "a": 1,\n  "b": 2\n}'), '"b": 2');
  assert.equal(changeGist('foo()\nbar()', 'foo();\nbar()'), 'foo();');
  assert.equal(changeGist('x = 1', 'x = 2'), 'x = 2');
});

for (const [format, { write, file }] of Object.entries(ALL_WRITERS)) {
  test(`${format}: the last change of an edit that appended an entry quotes the entry`, async () => {
    const { summary } = await summaryOf(write(work), file);
    const section = sectionOf(summary, 'Files changed');
    assert.match(
      section,
      /package\.json[^\n]*last change: "\\?"zerion:readiness\\?": \\?"node scripts\/zerion-readiness\.mjs\\?""/,
      summary,
    );
    assert.doesNotMatch(section, /test:watch/, summary);
  });
}
