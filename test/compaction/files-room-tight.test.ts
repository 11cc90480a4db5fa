/**
 * A summary whose room is tight (a small window, and a latest request that takes most of the target:
 * it stays verbatim after the summary) still names the files changed: the notes keep a floor of the
 * room beside the verbatim requests, nothing of it is set aside for identifiers, and the standing
 * rules beyond the first and the lines about earlier requests give way before any file's name. The
 * same work in each recording format.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, summaryOf, sectionOf, type Step } from '../support/recordings';
import { expandFolderLines } from '../../src/compaction/summary/ledger/file-names';

const FOLDERS = ['src/api', 'src/ui', 'db'];
const files = Array.from({ length: 9 }, (_, i) => `${FOLDERS[i % 3]}/part${i}.ts`);
const ask = (k: number) =>
  `Step ${k}: never touch the production bucket. ${'Keep each change small and explain it before running anything. '.repeat(8)}`;

const work: Step[] = [
  ...files.flatMap((path, i): Step[] => [
    { user: ask(i) },
    { tool: 'write', path, content: `export const part${i} = ${i};\n`.repeat(6) },
    { say: `Wrote ${path}.` },
  ]),
  // The latest request: most of the target, kept verbatim after the summary.
  { user: `Now deploy. ${'Here is the whole log of the last failed deploy, read it first. '.repeat(125)}` },
];

for (const [format, { write, file }] of Object.entries(WRITERS)) {
  test(`${format}: a tight room still names every file changed, each created or edited`, async () => {
    const { summary } = await summaryOf(write(work), file, 4000);
    const section = expandFolderLines(sectionOf(summary, 'Files changed'));
    const missing = files.filter(
      (p) => !new RegExp(`^- ${p.replace(/\./g, '\\.')}(:| \\(created\\))`, 'm').test(section),
    );
    assert.deepEqual(missing, [], summary);
    // The requests are still there, the first and newest kept (shortened when the standing rules take
    // their room), and the first request's rule with them.
    assert.ok((sectionOf(summary, 'Requests, verbatim').match(/^- /gm)?.length ?? 0) >= 2, summary);
    assert.match(summary, /Step 0: never touch/, summary);
  });
}
